//! The `fixed:LAG` watermark: processing time − a constant lag.

use std::fmt;

use super::{Estimate, WatermarkKind, WatermarkRule};
use crate::stream::Event;
use crate::window::fmt_ms;

/// The fixed watermark's parameters.
#[derive(Debug, Clone, Copy)]
pub(super) struct Fixed {
    /// How far behind processing time, ms.
    pub(super) lag: f64,
}

impl WatermarkRule for Fixed {
    /// Stateless: the parameters are the whole generator.
    type Generator = Fixed;

    fn generator(self, _max_delay: f64) -> Fixed {
        self
    }

    fn family(self) -> &'static str {
        "fixed"
    }

    fn write(self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "fixed:{}", fmt_ms(self.lag))
    }

    fn lag(self) -> Option<f64> {
        Some(self.lag)
    }

    fn with_lag(self, lag: f64) -> WatermarkKind {
        Fixed { lag }.into()
    }
}

impl Estimate for Fixed {
    #[inline]
    fn estimate(&mut self, e: &Event) -> f64 {
        e.proc_time - self.lag
    }
}
