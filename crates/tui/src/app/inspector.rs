//! The inspector's moves: to the event before or after the inspected one, and the jumps to the
//! next or previous late or dropped event, which move the playhead there.

use super::App;

impl App {
    /// The newest arrived event, if any.
    pub(super) fn newest(&self) -> Option<usize> {
        self.trace().arrived().checked_sub(1)
    }

    /// The inspector to the event before or after the inspected one (among those arrived).
    pub(super) fn inspect_step(&mut self, i: usize, forward: bool) -> bool {
        let n = self.trace().arrived();
        let next = if forward {
            (i + 1 < n).then_some(i + 1)
        } else {
            i.checked_sub(1)
        };
        match next {
            Some(j) => {
                self.selection.inspected = Some(j);
                true
            }
            None if forward => self.say("the newest event: > finds the next late or dropped"),
            None => self.say("the first event of the stream"),
        }
    }

    /// The playhead paused on event `offset` (it has just arrived), the inspector open on it.
    fn seek(&mut self, offset: usize) {
        let e = self.scenario().stream.events[offset];
        self.playing = false;
        self.steered.place(e.proc_time, offset + 1, false);
        self.selection.inspected = Some(offset);
        if self.trace().arrived() <= offset + 1 && !self.trace().is_finished() {
            self.steered.follow();
        } else {
            self.rerun();
        }
    }

    /// `>` and `<`: the next or previous late or dropped event after or before the inspected
    /// one. With none inspected they start at the playhead: the newest arrived event is the
    /// answer either way when it is late or dropped itself (at the end of a stream whose last
    /// event was dropped, `>` opens the inspector on it rather than finding nothing after it),
    /// and the playhead stays. Forward, the engine runs on until one arrives; with none left
    /// the playhead stops at the end.
    pub(super) fn jump_exception(&mut self, forward: bool) -> bool {
        let Some(ex) = self.trace().exceptions() else {
            return self.say("< and > need the single processor: j leaves job mode");
        };
        if self.steered.rerunning() {
            return self.say("re-running for the new dials: a moment");
        }
        if self.selection.inspected.is_none() {
            let newest = self.newest();
            if newest.is_some_and(|n| ex.binary_search_by_key(&n, |e| e.offset).is_ok()) {
                self.playing = false;
                self.selection.inspected = newest;
                return true;
            }
        }
        let cur = self.selection.inspected.or_else(|| self.newest());
        if !forward {
            let before = cur.map_or(0, |c| ex.partition_point(|e| e.offset < c));
            return match before.checked_sub(1).map(|k| ex[k].offset) {
                Some(offset) => {
                    self.seek(offset);
                    true
                }
                None => self.say("no late or dropped event before this one"),
            };
        }
        let after = ex.partition_point(|e| cur.is_some_and(|c| e.offset <= c));
        if let Some(offset) = ex.get(after).map(|e| e.offset) {
            self.seek(offset);
            return true;
        }
        // None has arrived yet: run on, one event at a time, until one does.
        if let Some(offset) = self.steered.run_to_next_exception() {
            self.seek(offset);
            return true;
        }
        self.selection.inspected = None;
        self.jump_to_end();
        self.say("no late or dropped event left: at the end")
    }
}
