//! The `fixed:LAG` watermark: processing time − a constant lag.

use std::fmt;

use super::{read_lag, write_lag, Estimate, WatermarkKind, WatermarkRule};
use crate::stream::Event;

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

    const NAME: &'static str = "fixed";
    const SPELLING: &'static str = "fixed:DUR";

    fn read(params: &[&str]) -> Result<Fixed, Option<String>> {
        match params {
            [lag] => Ok(Fixed {
                lag: read_lag(lag)?,
            }),
            _ => Err(None),
        }
    }

    fn preset(lag: f64) -> Fixed {
        Fixed { lag }
    }

    fn write(self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("fixed:")?;
        write_lag(f, self.lag)
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
