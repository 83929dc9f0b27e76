//! Clicks and drags: the panel under the mouse, found with the same geometry the view draws
//! with, turns a mouse position into the [`Action`] it asks for (a dial set on its track, a
//! frontier point adopted, a window selected, an operator picked, an event inspected). A drag
//! only moves a dial. Nothing is under the mouse while the help covers the panels.

use super::{Action, App, Dial};
use crate::tui::geometry::{self, plot::PlotFrame, Areas};

impl App {
    /// The action a click (a drag with `drag`) at screen (col, row) asks for, if any.
    pub(super) fn pointed(&self, col: u16, row: u16, drag: bool) -> Option<Action> {
        let areas = Areas::compute_for(self.size, self.job.is_some())?;
        if self.overlay.is_some() {
            return None;
        }
        let order = Dial::order(self.job.is_some());
        if let Some((dial, r)) = geometry::dials::hit(areas.dials, order, col, row) {
            return Some(Action::SetDial(dial, r));
        }
        if drag {
            return None;
        }
        let frontier = self.frontier().flatten();
        if let Some((lag, grace)) = areas
            .frontier
            .zip(frontier)
            .and_then(|(a, f)| geometry::frontier::hit(f, a, col, row))
        {
            return Some(Action::AdoptPoint { lag, grace });
        }
        let windows = self.scenario.windows.len();
        let selected = self.selection.window;
        if let Some(w) = geometry::windows::hit(areas.windows, windows, selected, col, row) {
            return Some(Action::SelectWindow(w));
        }
        if let Some(job) = self.job.as_deref() {
            let cfg = job.config();
            return areas
                .topology
                .and_then(|a| geometry::topology::hit(a, cfg.partitions, cfg.parallelism, col, row))
                .map(Action::PickOperatorAt);
        }
        let f = PlotFrame::of(self, areas.plot)?;
        let at = f.to_data(col, row)?;
        self.timeline
            .nearest(&self.scenario.stream, at, f.cell_size())
            .map(Action::InspectEvent)
    }
}
