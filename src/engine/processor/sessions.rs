//! Session windows in the processor: the session store and how an arrival merges into it.
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

use std::collections::{BTreeMap, BTreeSet};

use super::super::lateness::Fate;
use super::super::stream::{Event, KeyId};
use super::super::trigger::{Accumulation, CellState, Timer, Timing};
use super::super::window::{Assignment, CellId, WindowId};
use super::{Arrival, FinalValue, Output, Processor};

/// Estimated bytes of one open session's place in the session index, besides its cell (counted
/// in [`super::CELL_BYTES`]): its entry by key and start (key, start and end) and its entry by
/// end (end, start and key), each with a share of the ordered maps' node overhead.
pub const SESSION_BYTES: usize =
    std::mem::size_of::<(KeyId, i64, i64)>() + std::mem::size_of::<(i64, i64, KeyId)>() + 2 * 16;

/// A change of one key's sessions, caused by one kept event: a new session, or the sessions
/// its proto-window overlapped (one it extended, or several it bridged) replaced by one covering
/// them all. An event inside an open session changes no bounds and is no change.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionChange {
    /// The position in processing order of the event that caused it.
    pub offset: usize,
    /// Its processing time, ms.
    pub proc_time: f64,
    /// Its event time, ms.
    pub event_time: f64,
    /// The key whose sessions changed.
    pub key: KeyId,
    /// The open sessions it replaced, latest first (empty: it opened a new session).
    pub replaced: Vec<WindowId>,
    /// The session it left open: the cover of the event's proto-window and `replaced`.
    pub into: WindowId,
    /// The watermark had already passed `into` (the event was late data for it: a LATE pane).
    pub late: bool,
    /// How many of `replaced` the watermark had already passed (sessions that had fired).
    pub fired: usize,
}

impl SessionChange {
    /// It merged: an existing session was extended or several were bridged into one.
    pub fn is_merge(&self) -> bool {
        !self.replaced.is_empty()
    }

    /// It bridged two or more sessions into one.
    pub fn is_bridge(&self) -> bool {
        self.replaced.len() >= 2
    }
}

/// An open session: where it ends, and its cell's state.
#[derive(Debug, Clone)]
struct Session {
    end: i64,
    state: CellState,
}

/// The open sessions: per key by start, and all of them by end.
#[derive(Debug, Clone, Default)]
pub(super) struct SessionStore {
    /// Per key, its open sessions by start: `(key, start) → (end, state)`.
    by_key: BTreeMap<(KeyId, i64), Session>,
    /// Every open session by end: `(end, start, key)`.
    by_end: BTreeSet<(i64, i64, KeyId)>,
}

impl SessionStore {
    /// Open sessions, over every key.
    pub(super) fn len(&self) -> usize {
        self.by_key.len()
    }

    /// The state of session `cell`, if it is open.
    pub(super) fn get(&self, cell: CellId) -> Option<&CellState> {
        self.by_key
            .get(&(cell.key, cell.window.start_ms()))
            .filter(|s| s.end == cell.window.end_ms())
            .map(|s| &s.state)
    }

    /// The state of session `cell`, to change, if it is open.
    pub(super) fn get_mut(&mut self, cell: CellId) -> Option<&mut CellState> {
        self.by_key
            .get_mut(&(cell.key, cell.window.start_ms()))
            .filter(|s| s.end == cell.window.end_ms())
            .map(|s| &mut s.state)
    }

    /// The open sessions with their state, by key then start.
    pub(super) fn iter(&self) -> impl Iterator<Item = (CellId, &CellState)> + '_ {
        self.by_key.iter().map(|(&(key, start), s)| {
            let window = WindowId::new(start, s.end);
            (CellId { window, key }, &s.state)
        })
    }

    /// Opens session `cell` with `state`.
    fn insert(&mut self, cell: CellId, state: CellState) {
        let (start, end) = (cell.window.start_ms(), cell.window.end_ms());
        self.by_key
            .insert((cell.key, start), Session { end, state });
        self.by_end.insert((end, start, cell.key));
    }

    /// Closes session `cell`: its state, if it was open.
    fn remove(&mut self, cell: CellId) -> Option<CellState> {
        let (start, end) = (cell.window.start_ms(), cell.window.end_ms());
        let s = self.by_key.remove(&(cell.key, start))?;
        self.by_end.remove(&(s.end, start, cell.key));
        debug_assert_eq!(s.end, end);
        Some(s.state)
    }

    /// The open sessions of `key` that overlap `window`, into `into` (latest first). A key's
    /// sessions are disjoint, so those starting before `window` ends and ending after it starts
    /// are the last few of them by start.
    fn overlapping(&self, key: KeyId, window: WindowId, into: &mut Vec<CellId>) {
        into.clear();
        let before_end = (key, i64::MIN)..(key, window.end_ms());
        for (&(key, start), s) in self.by_key.range(before_end).rev() {
            let session = WindowId::new(start, s.end);
            if !session.overlaps(window) {
                break;
            }
            into.push(CellId {
                window: session,
                key,
            });
        }
    }

    /// The session that ends first, if any is open.
    fn first_by_end(&self) -> Option<CellId> {
        self.by_end.first().map(|&(end, start, key)| CellId {
            window: WindowId::new(start, end),
            key,
        })
    }

    /// The sessions ending in `(after, through]` (ends are whole milliseconds), by end, into
    /// `into`.
    fn ending_in(&self, after: f64, through: f64, into: &mut Vec<CellId>) {
        into.clear();
        // An end `e` is above `after` iff `e ≥ ⌊after⌋ + 1`, and at most `through` iff
        // `e ≤ ⌊through⌋` (the casts saturate at the ends of the range).
        let from = (after.floor() as i64).saturating_add(1);
        let to = through.floor() as i64;
        if after.is_nan() || through.is_nan() || from > to {
            return;
        }
        let range = (from, i64::MIN, KeyId::MIN)..=(to, i64::MAX, KeyId::MAX);
        into.extend(self.by_end.range(range).map(|&(end, start, key)| CellId {
            window: WindowId::new(start, end),
            key,
        }));
    }
}

impl Processor {
    /// Whether the watermark has passed session `id` (so it has fired on time).
    pub(super) fn session_passed(&self, id: WindowId) -> bool {
        id.end() <= self.passed_wm
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
            let f = self.decide(offset, e, proto, wm, out);
            fate = fate.worst(f);
            if f != Fate::Dropped {
                self.merge(e, proto, wm, out);
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

    /// Counts the event with proto-window `proto` in its key's sessions: in the one session
    /// holding the proto-window, or in a new session covering it and every session it
    /// overlaps, which it replaces.
    fn merge(&mut self, e: &Event, proto: WindowId, wm: f64, out: &mut Output) {
        let key = e.key;
        let mut found = std::mem::take(&mut self.scratch_cells);
        self.sessions.overlapping(key, proto, &mut found);
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
            let Some(s) = self.sessions.remove(old) else {
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
        self.scratch_cells = found;
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
        self.sessions.insert(cell, state);
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
        let mut ids = std::mem::take(&mut self.scratch_cells);
        self.sessions.ending_in(self.passed_wm, wm, &mut ids);
        for &cell in &ids {
            let bounds = (cell.window.start(), cell.window.end());
            if let Some(c) = self.sessions.get_mut(cell) {
                c.timer = None;
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
            if !Fate::finalised(cell.window.end(), wm, self.cfg.grace) {
                break;
            }
            self.close_session(cell, proc_time, out);
        }
    }

    /// The end of input: every session is finalised.
    pub(super) fn close_all_sessions(&mut self, proc_time: f64, out: &mut Output) {
        while let Some(cell) = self.sessions.first_by_end() {
            self.close_session(cell, proc_time, out);
        }
    }

    /// Closes session `cell`: its value is final, its state freed.
    fn close_session(&mut self, cell: CellId, proc_time: f64, out: &mut Output) {
        if let Some(c) = self.sessions.remove(cell) {
            self.open_cells -= 1;
            out.finals.push(FinalValue {
                cell,
                value: c.value,
                proc_time,
            });
            self.counters.windows_finalised += 1;
        }
    }
}
