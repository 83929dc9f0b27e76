//! What the processor hands back: the panes, drops, final values, session changes and
//! expirations each step emits (`Output`), the running totals that are part of its state
//! (`Counters`), and what one arrival did, for the UI to animate (`Arrival`).

use crate::lateness::{Dropped, Fate};
use crate::stream::KeyId;
use crate::trigger::Pane;
use crate::window::WindowId;
use crate::window::{Assignment, CellId};

/// A cell's value when its window was finalised.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FinalValue {
    /// The (window, key) cell whose window was finalised.
    pub cell: CellId,
    /// Events the cell counted, on time and late within grace: its value for good.
    pub value: u64,
    /// Processing time of the arrival that finalised it (the last one, at end of input).
    pub proc_time: f64,
}

/// What the engine emits, appended to by each step; the caller keeps or clears it.
#[derive(Debug, Clone, Default)]
pub struct Output {
    /// Panes emitted (EARLY, ON_TIME and LATE), in emission order.
    pub panes: Vec<Pane>,
    /// Events refused past grace, one entry per (event, window) placement refused.
    pub dropped: Vec<Dropped>,
    /// Cells whose window was finalised, with their values for good.
    pub finals: Vec<FinalValue>,
    /// Sessions opened, extended or bridged (session windows only), in order; recorded only
    /// by a processor made [`Processor::recording`](super::Processor::recording).
    pub sessions: Vec<SessionChange>,
    /// Keys whose state expired under the global window's TTL, in order; recorded only by a
    /// processor made [`Processor::recording`](super::Processor::recording).
    pub expirations: Vec<Expiry>,
}

impl Output {
    /// Forgets everything emitted so far (the caller has taken it).
    #[inline]
    pub fn clear(&mut self) {
        self.panes.clear();
        self.dropped.clear();
        self.finals.clear();
        self.sessions.clear();
        self.expirations.clear();
    }
}

/// Running totals, part of the processor's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counters {
    /// Events processed.
    pub events: u64,
    /// (event, window) placements counted before their window fired.
    pub on_time: u64,
    /// Placements counted after their window fired, within grace.
    pub late: u64,
    /// Placements refused: past grace.
    pub dropped: u64,
    /// EARLY panes emitted so far: fired by a cell's processing-time timer before the
    /// watermark passed its window.
    pub early_panes: u64,
    /// ON_TIME panes emitted so far: one per cell when the watermark passed its window.
    pub on_time_panes: u64,
    /// LATE panes emitted so far: one per cell an arrival changed after its window fired.
    pub late_panes: u64,
    /// Windows finalised so far (past their grace or at the end of input), their state freed.
    pub windows_finalised: u64,
    /// Keys whose state expired under the global window's TTL, each a reset to zero.
    pub ttl_expired: u64,
    /// The most state entries (open cells) held at once.
    pub state_entries_max: u64,
}

impl Counters {
    /// Panes emitted so far, of every timing.
    pub fn panes(&self) -> u64 {
        self.early_panes + self.on_time_panes + self.late_panes
    }
}

/// What one arrival did, for the UI to animate.
#[derive(Debug, Clone, PartialEq)]
pub struct Arrival {
    /// Position of the event in processing order.
    pub offset: usize,
    /// The watermark after the event.
    pub watermark: f64,
    /// The windows the event belongs to.
    pub(crate) windows: Assignment,
    /// Its worst fate over those windows.
    pub fate: Fate,
}

impl Arrival {
    /// The windows the event belongs to, earliest first.
    pub fn windows(&self) -> impl ExactSizeIterator<Item = WindowId> + Clone {
        self.windows.clone()
    }
}

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

/// One key's state expiring under the TTL: the key starts from zero when seen again.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Expiry {
    /// Events processed before it: it happened before the event at this offset was placed
    /// (or, on an `advance`, after all of them).
    pub offset: usize,
    /// The processing time of the step (or advance) that expired it, ms.
    pub proc_time: f64,
    /// The deadline it reached: its last update plus the TTL, on the TTL's clock, ms.
    pub deadline: f64,
    /// The key whose state expired.
    pub key: KeyId,
    /// The value its state held, now a segment of the key's count.
    pub value: u64,
}
