//! The `perfect` watermark: processing time − the stream's largest delay. It knows the whole
//! stream in advance, so it is never wrong and always slow: the oracle's setting.

use std::fmt;

use super::{Estimate, WatermarkRule};
use crate::stream::Event;

/// The perfect watermark's parameters: none (its lag is read from the stream).
#[derive(Debug, Clone, Copy)]
pub(super) struct Perfect;

/// A running perfect watermark.
#[derive(Debug, Clone)]
pub(super) struct Generator {
    /// The stream's largest delay, resolved before the run.
    lag: f64,
}

impl WatermarkRule for Perfect {
    type Generator = Generator;

    fn generator(self, max_delay: f64) -> Generator {
        Generator { lag: max_delay }
    }

    fn family(self) -> &'static str {
        "perfect"
    }

    fn write(self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "perfect")
    }

    fn nominal_lag(self, max_delay: f64) -> f64 {
        max_delay
    }
}

impl Estimate for Generator {
    #[inline]
    fn estimate(&mut self, e: &Event) -> f64 {
        e.proc_time - self.lag
    }
}
