//! The read model's tally: a run's headline figures at its playhead in one value, for a view
//! that shows two runs side by side: the fates so far, the panes emitted so far, the oracle's
//! cells the run has got wrong so far (over the truth, or short of it once final; for
//! sessions, an oracle session not reproduced once final) and, for a parallel run, how long
//! its combined watermark has stood still.

use std::collections::BTreeMap;

use super::Trace;
use crate::job_timeline::Standing;
use crate::window::CellId;

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

impl Trace {
    /// The run's headline figures at its playhead, against the oracle `truth`.
    pub fn tally(&self, truth: &BTreeMap<CellId, u64>) -> Tally {
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

    /// The oracle's cells whose value the run has wrong so far: over the truth, or short of it
    /// once the cell's window is final. With merging windows (a single run's sessions), the
    /// oracle sessions not reproduced exactly once final, or over their count.
    pub fn wrong_cells(&self, truth: &BTreeMap<CellId, u64>) -> usize {
        if self.config().window.is_merging() && self.records_sessions() {
            let run = self.run_sessions();
            return truth
                .keys()
                .filter(|c| {
                    self.session_row(c.window, Some(c.key), &run, truth)
                        .standing()
                        == Standing::Wrong
                })
                .count();
        }
        truth
            .keys()
            .filter(|c| {
                let row = self.window_row(c.window, Some(c.key), 0, truth);
                row.standing(row.value) == Standing::Wrong
            })
            .count()
    }
}
