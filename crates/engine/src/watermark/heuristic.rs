//! The `heuristic:Q:N` watermark: processing time − a quantile of the last N delays, the
//! arriving event's included. Its lag moves with the data, so it has no nominal lag.

use std::fmt;

use super::quantile::SlidingQuantile;
use super::{Estimate, WatermarkRule};
use crate::stream::Event;

/// The quantile when none is given.
pub(super) const DEFAULT_Q: f64 = 0.95;
/// The history length when none is given.
pub(super) const DEFAULT_N: usize = 2000;

/// The heuristic watermark's parameters.
#[derive(Debug, Clone, Copy)]
pub(super) struct Heuristic {
    /// The quantile of the recent delays, 0 to 1.
    pub(super) q: f64,
    /// How many recent delays it is taken over.
    pub(super) n: usize,
}

/// A running heuristic watermark: the recent delays, kept for their quantile.
#[derive(Debug, Clone)]
pub(super) struct Generator {
    delays: SlidingQuantile,
}

impl WatermarkRule for Heuristic {
    type Generator = Generator;

    fn generator(self, _max_delay: f64) -> Generator {
        Generator {
            delays: SlidingQuantile::new(self.q, self.n.max(1)),
        }
    }

    fn family(self) -> &'static str {
        "heuristic"
    }

    fn write(self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "heuristic:{}:{}", self.q, self.n)
    }
}

impl Estimate for Generator {
    #[inline]
    fn estimate(&mut self, e: &Event) -> f64 {
        self.delays.push(e.delay());
        e.proc_time - self.delays.value().unwrap_or(0.0)
    }
}
