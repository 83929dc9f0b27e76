//! The global window: one window per key that never closes, a running count. Its span is the whole
//! millisecond range, `[i64::MIN, i64::MAX)` ([`WindowId::GLOBAL`]), so its end lies beyond every
//! watermark the engine accepts (event times within ±2^53 ms): [`Fate::decide`] never finds it late
//! or dropped, and no watermark short of the end of input passes it. It has no number; reports
//! print `global`.
//!
//! Its state may carry a time-to-live ([`Ttl`]): a key's state expires `ttl` ms after its last
//! update, and a key seen again starts from zero. The expiry itself is the processor's
//! (`processor::ttl`); this file only holds the dials.
//!
//! [`Fate::decide`]: crate::lateness::Fate::decide

use super::{Assignment, WindowError, WindowFn, WindowId, WindowShape};

/// Which clock a state TTL runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TtlTime {
    /// Processing time: a key's state expires once an arrival (or an advance of processing
    /// time) comes at or after its last event's arrival time + TTL.
    #[default]
    Processing,
    /// Event time: a key's state expires once the watermark reaches the latest event time
    /// among its events + TTL.
    Event,
}

impl TtlTime {
    /// `processing` or `event`.
    pub fn name(self) -> &'static str {
        match self {
            TtlTime::Processing => "processing",
            TtlTime::Event => "event",
        }
    }
}

/// A state time-to-live: how long a key's state lives after its last update, and on which clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ttl {
    /// Time to live after the last update, whole ms (at least 1).
    pub ms: i64,
    /// The clock it is measured on.
    pub time: TtlTime,
}

/// The global window, its state optionally under a TTL.
#[derive(Debug, Clone, Copy)]
pub(super) struct Global {
    /// The state's time-to-live, if any.
    pub(super) ttl: Option<Ttl>,
}

impl Global {
    /// The global window, checked: a TTL of at least 1 ms.
    pub(super) fn checked(ttl: Option<Ttl>) -> Result<WindowFn, WindowError> {
        if let Some(t) = ttl {
            if t.ms < 1 {
                return Err(WindowError::Ttl(t.ms));
            }
        }
        Ok(WindowFn::Global { ttl })
    }
}

impl WindowShape for Global {
    /// The span of the one window.
    #[inline]
    fn size(self) -> i64 {
        i64::MAX
    }

    /// There is one window; 1 keeps `1 / slide` finite.
    #[inline]
    fn slide(self) -> i64 {
        1
    }

    // Kept out of line, as the sessions' is, so the fixed windows' hot path stays small.
    #[inline(never)]
    fn assign(self, _event_time: f64, _inv_slide: f64) -> Assignment {
        Assignment::one(WindowId::GLOBAL)
    }

    /// Only the end of input (+∞) ends the global window; no finite time does.
    fn last_ended_by(self, t: f64) -> Option<WindowId> {
        (t == f64::INFINITY).then_some(WindowId::MAX)
    }

    fn next(self, _id: WindowId) -> WindowId {
        WindowId::MAX
    }

    fn prev(self, _id: WindowId) -> WindowId {
        WindowId::MIN
    }

    /// The one window is numbered 0 (reports print `global`).
    fn index(self, _id: WindowId) -> i64 {
        0
    }

    fn at_index(self, _index: i64) -> WindowId {
        WindowId::GLOBAL
    }

    fn describe(self) -> String {
        match self.ttl {
            None => "global".to_string(),
            Some(t) => format!(
                "global, {} {}-time TTL",
                crate::duration::Duration::short(t.ms as f64),
                t.time.name()
            ),
        }
    }
}

impl WindowId {
    /// The global window's span: the whole millisecond range. Its end, about 9.2·10^18 ms, is
    /// beyond every watermark an event can raise.
    pub const GLOBAL: WindowId = WindowId::new(i64::MIN, i64::MAX);
}
