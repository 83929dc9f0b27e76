//! The `bounded:B` watermark: the highest event time seen − B, Flink's and Beam's bounded
//! out-of-orderness. It moves with event time, not processing time.

use std::fmt;

use super::{Estimate, WatermarkKind, WatermarkRule};
use crate::stream::Event;
use crate::window::fmt_ms;

/// The bounded watermark's parameters.
#[derive(Debug, Clone, Copy)]
pub(super) struct Bounded {
    /// How far behind the highest event time seen, ms.
    pub(super) bound: f64,
}

/// A running bounded watermark.
#[derive(Debug, Clone)]
pub(super) struct Generator {
    bound: f64,
    /// The highest event time seen so far (−∞ before the first event).
    max_event_time: f64,
}

impl WatermarkRule for Bounded {
    type Generator = Generator;

    fn generator(self, _max_delay: f64) -> Generator {
        Generator {
            bound: self.bound,
            max_event_time: f64::NEG_INFINITY,
        }
    }

    fn family(self) -> &'static str {
        "bounded"
    }

    fn write(self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bounded:{}", fmt_ms(self.bound))
    }

    fn lag(self) -> Option<f64> {
        Some(self.bound)
    }

    fn with_lag(self, lag: f64) -> WatermarkKind {
        Bounded { bound: lag }.into()
    }
}

impl Estimate for Generator {
    #[inline]
    fn estimate(&mut self, e: &Event) -> f64 {
        self.max_event_time = self.max_event_time.max(e.event_time);
        self.max_event_time - self.bound
    }
}
