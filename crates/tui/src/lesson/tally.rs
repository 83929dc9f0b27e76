//! A run's tally: its headline figures at its playhead in one value, for the view that shows two
//! runs side by side, read from the engine's read model: the fates so far, the panes emitted so
//! far, the oracle's cells the run has got wrong so far (over the truth, or short of it once final;
//! for sessions, an oracle session not reproduced once final) and, for a parallel run, how long its
//! combined watermark has stood still.

use std::collections::BTreeMap;

use twoclocks_engine::trace::Trace;
use twoclocks_engine::CellId;

/// A run's headline figures at its playhead.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Tally {
    /// Placements on time, so far.
    pub on_time: u64,
    /// Placements late within grace, so far.
    pub late: u64,
    /// Placements dropped, so far.
    pub dropped: u64,
    /// Panes emitted so far, of every timing.
    pub panes: u64,
    /// The oracle's cells (sessions) whose value the run has wrong so far.
    pub wrong_cells: usize,
    /// How long the combined watermark has stood still, ms (a parallel run's, once shown as
    /// stalled; None otherwise).
    pub stall: Option<f64>,
}

/// The tally of a run's read model.
pub trait Tallied {
    /// The run's headline figures at its playhead, against the oracle `truth`.
    fn tally(&self, truth: &BTreeMap<CellId, u64>) -> Tally;
}

impl Tallied for Trace {
    fn tally(&self, truth: &BTreeMap<CellId, u64>) -> Tally {
        let c = self.counters();
        Tally {
            on_time: c.on_time,
            late: c.late,
            dropped: c.dropped,
            panes: c.panes(),
            wrong_cells: self.wrong_cells(truth),
            stall: self.watermark_stall(),
        }
    }
}
