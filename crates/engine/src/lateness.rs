//! Block 4, late data: what happens to an event once the watermark has passed its window.
//! With window end `E`, watermark `W` (already updated for the arriving event) and grace `G`:
//! `E ≤ W − G` drops it (it goes to a side output with the inequality that decided it),
//! `E ≤ W` keeps it as late, otherwise it is on time. A window is finalised, and its state
//! freed, once `E ≤ W − G`.

use super::conventions::Conventions;
use super::stream::{Event, KeyId};
use super::window::WindowId;

/// What became of an event in one of its windows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Fate {
    /// Its window had not ended by the watermark: counted before the window fired.
    OnTime,
    /// Its window had ended by the watermark but was still within grace: counted, late.
    Late,
    /// Its window had ended more than grace before the watermark: not counted.
    Dropped,
}

impl Fate {
    /// The drop threshold: a window ending at or before `wm − grace` is past its grace. Both
    /// the drop rule and finalisation test against it, and nothing else decides what a
    /// window's final value counts.
    #[inline]
    pub fn threshold(wm: f64, grace: f64) -> f64 {
        wm - grace
    }

    /// The fate of an event in a window ending at `end`, under watermark `wm` and `grace`.
    #[inline]
    pub fn decide(end: f64, wm: f64, grace: f64) -> Fate {
        if end <= Fate::threshold(wm, grace) {
            Fate::Dropped
        } else if end <= wm {
            Fate::Late
        } else {
            Fate::OnTime
        }
    }

    /// [`Fate::decide`] under `conventions`, for a window ending at `end` (`merging`: a
    /// session): dropped by its drop rule, late once its watermark (Kafka Streams: stream
    /// time) has passed the window's end, else on time. Under Beam's it is [`Fate::decide`]
    /// itself.
    #[inline]
    pub fn decide_under(
        conventions: Conventions,
        end: f64,
        wm: f64,
        grace: f64,
        merging: bool,
    ) -> Fate {
        if conventions == Conventions::Beam {
            return Fate::decide(end, wm, grace);
        }
        if conventions.drops(end, wm, grace, merging) {
            Fate::Dropped
        } else if conventions.passed_end(end, wm) {
            Fate::Late
        } else {
            Fate::OnTime
        }
    }

    /// [`Fate::finalised`] under `conventions`: a window is finalised once its data is
    /// dropped.
    #[inline]
    pub fn finalised_under(
        conventions: Conventions,
        end: f64,
        wm: f64,
        grace: f64,
        merging: bool,
    ) -> bool {
        if conventions == Conventions::Beam {
            return Fate::finalised(end, wm, grace);
        }
        conventions.drops(end, wm, grace, merging)
    }

    /// Whether a window ending at `end` is finalised under `wm` and `grace`.
    #[inline]
    pub fn finalised(end: f64, wm: f64, grace: f64) -> bool {
        end <= Fate::threshold(wm, grace)
    }

    /// The fate as printed and drawn: `on time`, `late` or `dropped`.
    pub fn label(&self) -> &'static str {
        match self {
            Fate::OnTime => "on time",
            Fate::Late => "late",
            Fate::Dropped => "dropped",
        }
    }

    /// The worse of two fates (an event in several windows is shown by its worst).
    pub fn worst(self, other: Fate) -> Fate {
        self.max(other)
    }
}

/// An event the engine refused, with everything needed to say why.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dropped {
    /// Position of the event in processing order.
    pub offset: usize,
    /// The event refused, with both its times.
    pub event: Event,
    /// The window it was refused from (an event in several windows may be refused from some only).
    pub window: WindowId,
    /// Where the window starts in event time, ms (inclusive).
    pub window_start: f64,
    /// Where the window ends in event time, ms (exclusive): the end the watermark is tested
    /// against.
    pub window_end: f64,
    /// The grace period in force, ms.
    pub grace: f64,
    /// The watermark when the event arrived (after taking it into account).
    pub watermark: f64,
}

impl Dropped {
    /// The refused event's key.
    pub fn key(&self) -> KeyId {
        self.event.key
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundaries_are_inclusive_at_the_end() {
        assert_eq!(Fate::decide(240_000.0, 240_000.0, 0.0), Fate::Dropped);
        assert_eq!(Fate::decide(240_000.0, 239_999.9, 0.0), Fate::OnTime);
        assert_eq!(Fate::decide(240_000.0, 250_000.0, 10_000.0), Fate::Dropped);
        assert_eq!(Fate::decide(240_000.0, 249_999.0, 10_000.0), Fate::Late);
    }
}
