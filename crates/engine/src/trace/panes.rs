//! The read model's panes of one selected cell, as the plot draws them (bars in the manner of
//! the Dataflow paper's figures): a session's panes are those of every span the run gave the
//! key inside the oracle session, as it grew and merged; any other window's, the cell's own.

use super::Trace;
use crate::trigger::Pane;
use crate::window::CellId;

impl Trace {
    /// The panes emitted so far for `cell`, oldest first. With `merging` (sessions, `cell`
    /// naming the oracle session), every pane of the key whose span lies inside it: each
    /// carries the span it had when it fired, which grows as the session merges.
    pub fn cell_panes(&self, cell: CellId, merging: bool) -> Vec<&Pane> {
        if !merging {
            return self.panes_of(cell).collect();
        }
        let span = cell.window;
        self.panes()
            .iter()
            .filter(|p| {
                p.cell.key == cell.key
                    && p.cell.window.start_ms() >= span.start_ms()
                    && p.cell.window.end_ms() <= span.end_ms()
            })
            .collect()
    }
}
