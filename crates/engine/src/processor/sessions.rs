//! Session windows in the processor: how an arrival merges into the session store
//! (`session_store.rs`).
//!
//! The store keeps each key's open sessions by start (a key's sessions never overlap, so they
//! end in that order too), which is the index an event's proto-window is merged through, and
//! every open session by end, which is how the watermark finds the sessions it passes and the
//! ones past their grace (sessions of different keys do not end in the order they start).
//!
//! An event's fate is decided on its own proto-window `[t, t + gap)` by [`Fate::decide`]. Kept,
//! the proto-window merges with every open session of its key it overlaps
//! ([`WindowId::overlaps`]): an event inside one session adds to it as to a fixed window;
//! otherwise the sessions it touches are replaced by one session covering them all, whose count
//! is their sum, whose early timer is the earliest of theirs (or a new one, for a session that
//! has not fired on time and had none), and whose ON_TIME pane fires when the watermark passes
//! its end. A merged session the watermark has already passed takes the event as late data: a
//! LATE pane. What the replaced sessions said before depends on the accumulation mode:
//!
//! - accumulating: the merged session is a new cell; its panes carry its whole count, and the
//!   replaced sessions' panes stand as they were;
//! - discarding: the merged session's panes carry only what none of the replaced sessions had
//!   emitted yet (its count less what they emitted), so the panes of all cells still add up to
//!   the events kept;
//! - retracting: the merged session is a new cell whose panes carry its whole count, and each
//!   replaced session that had emitted a pane emits one more, at the moment of the merge, saying
//!   0 and retracting its last value (EARLY if the watermark had not passed it, LATE if it had).
//!
//! A recording processor records every change of a key's sessions in [`Output::sessions`] as a
//! [`SessionChange`]:
//! a session opened by an event no open session held, or sessions an event extended or bridged,
//! replaced by the one covering them. Replaying the changes gives the run's sessions at any
//! point; the read model draws them and marks the merges.

use super::output::{Arrival, FinalValue, Output, SessionChange};
use super::Processor;
use crate::lateness::Fate;
use crate::stream::Event;
use crate::trigger::{Accumulation, CellState, Timer, Timing};
use crate::window::{Assignment, CellId, WindowId};

impl Processor {
    /// Whether the watermark has passed session `id` (so it has fired on time).
    pub(super) fn session_passed(&self, id: WindowId) -> bool {
        self.cfg.conventions.passed_end(id.end(), self.passed_wm)
    }

    /// [`Processor::place`] for sessions: the event's fate is decided on its proto-window;
    /// kept, the proto-window merges into its key's sessions. Then, as for other windows, due
    /// EARLY timers fire, sessions the watermark has passed fire ON_TIME, sessions that took
    /// late data emit LATE panes and sessions past their grace are finalised.
    pub(super) fn place_in_session(
        &mut self,
        e: &Event,
        windows: Assignment,
        wm: f64,
        out: &mut Output,
    ) -> Arrival {
        let offset = self.arrive(e);
        let mut fate = Fate::OnTime;
        self.late_cells.clear();
        for proto in windows.clone() {
            // Flink and Kafka Streams test lateness on the session the element would merge
            // into: the sessions it merges with are found first, once for both uses.
            let found = self
                .cfg
                .conventions
                .tests_merged_window()
                .then(|| self.merging_with(e.key, proto));
            let judged = found.as_ref().map_or(proto, |found| {
                found.iter().fold(proto, |span, c| span.cover(c.window))
            });
            let f = self.decide(offset, e, judged, wm, out);
            fate = fate.worst(f);
            if f != Fate::Dropped {
                let found = found.unwrap_or_else(|| self.merging_with(e.key, proto));
                self.merge(e, proto, found, wm, out);
            } else if let Some(found) = found {
                self.scratch_cells = found;
            }
        }
        if self.cfg.early.is_some() {
            self.fire_timers(e.proc_time, wm, out);
        }
        self.pass_sessions(wm, e.proc_time, out);
        self.emit_late_panes(e.proc_time, wm, out);
        self.finalise_sessions(wm, e.proc_time, out);
        Arrival {
            offset,
            watermark: wm,
            windows,
            fate,
        }
    }

    /// The open sessions of `key` a proto-window merges with, in the scratch list (to be
    /// handed back to `scratch_cells` when done).
    fn merging_with(&mut self, key: crate::stream::KeyId, proto: WindowId) -> Vec<CellId> {
        let mut found = std::mem::take(&mut self.scratch_cells);
        self.sessions.overlapping(
            key,
            proto,
            self.cfg.conventions.merges_touching(),
            &mut found,
        );
        found
    }

    /// Counts the event with proto-window `proto` in its key's sessions (`found`, those it
    /// merges with): in the one session holding the proto-window, or in a new session
    /// covering it and every session it overlaps, which it replaces.
    fn merge(&mut self, e: &Event, proto: WindowId, found: Vec<CellId>, wm: f64, out: &mut Output) {
        let key = e.key;
        if let [only] = found[..] {
            if only.window.cover(proto) == only.window {
                // Inside an open session: it takes the event as a fixed window would.
                let passed = self.session_passed(only.window);
                if let Some(c) = self.sessions.get_mut(only) {
                    c.value += 1;
                }
                if passed {
                    self.late_cells.push(only);
                }
                self.scratch_cells = found;
                return;
            }
        }
        let mode = self.cfg.accumulation;
        let mut span = proto;
        let mut state = CellState {
            value: 1,
            ..CellState::default()
        };
        let mut emitted: Option<u64> = None;
        let mut timer: Option<f64> = None;
        let mut replaced = Vec::new();
        let mut fired = 0;
        for &old in &found {
            let Some(&s) = self.sessions.get(old) else {
                continue;
            };
            if self.records {
                replaced.push(old.window);
                fired += usize::from(self.session_passed(old.window));
            }
            self.open_cells -= 1;
            span = span.cover(old.window);
            state.value += s.value;
            if let Some(said) = s.emitted {
                emitted = Some(emitted.unwrap_or(0) + said);
                if mode == Accumulation::Retracting {
                    self.retract(old, s, e.proc_time, wm, out);
                }
            }
            timer = match (timer, s.timer) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        let cell = CellId { window: span, key };
        let passed = self.session_passed(span);
        if self.records {
            out.sessions.push(SessionChange {
                offset: self.offset.saturating_sub(1),
                proc_time: e.proc_time,
                event_time: e.event_time,
                key,
                replaced,
                into: span,
                late: passed,
                fired,
            });
        }
        if mode == Accumulation::Discarding {
            state.emitted = emitted;
        }
        if let (Some(every), false) = (self.cfg.early, passed) {
            let due = timer.unwrap_or(e.proc_time + every);
            state.timer = Some(due);
            self.timers.push(Timer { due, cell });
        }
        self.sessions.replace(&found, cell, state);
        self.scratch_cells = found;
        self.open_cells += 1;
        self.counters.state_entries_max =
            self.counters.state_entries_max.max(self.open_cells as u64);
        if passed {
            self.late_cells.push(cell);
        }
    }

    /// The pane of a session replaced by a merge, under accumulating-and-retracting: it holds
    /// nothing now, and retracts the last value it emitted.
    fn retract(
        &mut self,
        cell: CellId,
        replaced: CellState,
        proc_time: f64,
        wm: f64,
        out: &mut Output,
    ) {
        let timing = if self.session_passed(cell.window) {
            self.counters.late_panes += 1;
            Timing::Late
        } else {
            self.counters.early_panes += 1;
            Timing::Early
        };
        let mut emptied = CellState {
            value: 0,
            ..replaced
        };
        let bounds = (cell.window.start(), cell.window.end());
        out.panes.push(emptied.emit(
            cell,
            bounds,
            timing,
            proc_time,
            wm,
            Accumulation::Retracting,
        ));
    }

    /// Fires ON_TIME panes for the open sessions that end by `wm` and had not been passed.
    pub(super) fn pass_sessions(&mut self, wm: f64, proc_time: f64, out: &mut Output) {
        // Only a watermark above the last one passes anything (a NaN passes nothing).
        if wm.is_nan() || wm <= self.passed_wm {
            return;
        }
        let mode = self.cfg.accumulation;
        let fires_empty = self.cfg.conventions.fires_empty_on_time_pane();
        let fires = self.cfg.conventions.fires_on_watermark();
        let only_changed = self.only_changed_on_time();
        let mut ids = std::mem::take(&mut self.scratch_cells);
        self.sessions.ending_in(
            self.cfg.conventions.ends_passed_by(self.passed_wm),
            self.cfg.conventions.ends_passed_by(wm),
            &mut ids,
        );
        for &cell in &ids {
            let bounds = (cell.window.start(), cell.window.end());
            if let Some(c) = self.sessions.get_mut(cell) {
                c.timer = None;
                if !fires
                    || (!fires_empty && !c.changed() && mode == Accumulation::Discarding)
                    || (only_changed && !c.changed())
                {
                    continue;
                }
                out.panes
                    .push(c.emit(cell, bounds, Timing::OnTime, proc_time, wm, mode));
                self.counters.on_time_panes += 1;
            }
        }
        self.scratch_cells = ids;
        self.passed_wm = wm;
    }

    /// Finalises the sessions past their grace under `wm`, earliest end first.
    pub(super) fn finalise_sessions(&mut self, wm: f64, proc_time: f64, out: &mut Output) {
        while let Some(cell) = self.sessions.first_by_end() {
            if !Fate::finalised_under(
                self.cfg.conventions,
                cell.window.end() + self.session_kept_for,
                wm,
                self.cfg.grace,
                true,
            ) {
                break;
            }
            self.close_session(cell, proc_time, wm, out);
        }
    }

    /// The end of input: every session is finalised.
    pub(super) fn close_all_sessions(&mut self, proc_time: f64, out: &mut Output) {
        while let Some(cell) = self.sessions.first_by_end() {
            self.close_session(cell, proc_time, f64::INFINITY, out);
        }
    }

    /// Closes session `cell`: its value is final, its state freed.
    fn close_session(&mut self, cell: CellId, proc_time: f64, wm: f64, out: &mut Output) {
        if let Some(mut c) = self.sessions.remove(cell) {
            self.open_cells -= 1;
            if !self.cfg.conventions.fires_on_watermark() {
                let bounds = (cell.window.start(), cell.window.end());
                self.final_pane(cell, bounds, &mut c, proc_time, wm, out);
            }
            if self.fires_closing_panes() {
                let bounds = (cell.window.start(), cell.window.end());
                self.closing_pane(cell, bounds, &mut c, proc_time, wm, out);
            }
            out.finals.push(FinalValue {
                cell,
                value: c.value,
                proc_time,
            });
            self.counters.windows_finalised += 1;
        }
    }
}
