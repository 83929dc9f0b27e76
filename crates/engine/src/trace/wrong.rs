//! The read model's count of what a run has wrong so far: the oracle's cells whose value the
//! run has over the truth, or short of it once final (for sessions, an oracle session not
//! reproduced once final).

use std::collections::BTreeMap;

use super::Trace;
use crate::job_timeline::Standing;
use crate::window::CellId;

impl Trace {
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
