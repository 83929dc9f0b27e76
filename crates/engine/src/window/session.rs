//! Session windows: per key, bursts of activity separated by gaps of inactivity. Each event
//! gets its own proto-window, the `gap` ms from the millisecond it happened in,
//! `[⌊t⌋, ⌊t⌋ + gap)`; a key's proto-windows that overlap merge into one session, so a session
//! ends `gap` after its last event. Windows that only touch (`[a, b)` and `[b, c)`) do not
//! merge, as in Beam. The assignment is the proto-window; the merging is the store's
//! (`processor::sessions`) and the oracle's, both by [`WindowId::overlaps`].
//!
//! Proto-windows start at every millisecond, so as a grid they are windows of `gap` ms sliding
//! by 1 ms: that is what `last_ended_by`, `next` and `prev` answer (which proto-windows a time
//! has completed), and what an event's fate is decided on. A session has no number: `index`
//! gives its start, and reports print its span.

use super::{periodic, Assignment, WindowError, WindowFn, WindowId, WindowShape};
use crate::duration::Duration;

/// Session windows with a gap of `gap` ms.
#[derive(Debug, Clone, Copy)]
pub(super) struct Session {
    /// The gap of inactivity that ends a session, ms: the length of each event's proto-window.
    pub(super) gap: i64,
}

impl Session {
    /// Session windows, checked: a gap of at least 1 ms.
    pub(super) fn checked(gap: i64) -> Result<WindowFn, WindowError> {
        if gap < 1 {
            return Err(WindowError::Gap(gap));
        }
        Ok(WindowFn::Session { gap })
    }

    /// The proto-window of an event at `event_time`: `[⌊t⌋, ⌊t⌋ + gap)`, saturating at the
    /// ends of the millisecond range.
    #[inline]
    fn proto(self, event_time: f64) -> WindowId {
        // The cast saturates (and takes NaN to 0): no time, however far out, overflows.
        let start = super::floor::floor_to_i64(event_time);
        WindowId::new(start, start.saturating_add(self.gap))
    }
}

impl WindowShape for Session {
    fn is_merging(self) -> bool {
        true
    }

    #[inline]
    fn size(self) -> i64 {
        self.gap
    }

    /// Proto-windows start at every millisecond.
    #[inline]
    fn slide(self) -> i64 {
        1
    }

    // Kept out of line: the match over kinds that every event goes through stays as small as
    // the fixed windows' hot path needs it to be inlined.
    #[inline(never)]
    fn assign(self, event_time: f64, _inv_slide: f64) -> Assignment {
        Assignment::one(self.proto(event_time))
    }

    fn last_ended_by(self, t: f64) -> Option<WindowId> {
        periodic::last_ended_by(self.gap, 1, 0, t)
    }

    #[inline]
    fn next(self, id: WindowId) -> WindowId {
        id.shifted(1)
    }

    #[inline]
    fn prev(self, id: WindowId) -> WindowId {
        id.shifted(-1)
    }

    /// A session's start, ms: sessions are not numbered, reports print their span.
    fn index(self, id: WindowId) -> i64 {
        periodic::index(1, 0, id)
    }

    fn at_index(self, index: i64) -> WindowId {
        periodic::window(self.gap, 1, 0, index)
    }

    fn describe(self) -> String {
        format!("{}-gap session", Duration::short(self.gap as f64))
    }
}
