//! Clicks and drags: the panel under the mouse, found with the same geometry the view draws
//! with, turns a mouse position into the [`Action`] it asks for (a dial set on its track, a
//! frontier point adopted, a window selected, an operator picked, an event inspected). A drag
//! only moves a dial. Nothing is under the mouse while the help covers the panels.

use super::{Action, App};
use crate::geometry;

impl App {
    /// The action a click (a drag with `drag`) at screen (col, row) asks for, if any.
    pub(super) fn pointed(&self, col: u16, row: u16, drag: bool) -> Option<Action> {
        let areas = self.areas(self.size)?;
        if self.overlay.is_some() {
            return None;
        }
        let order = self.dial_order();
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
        let windows = self.scenario().windows_of(self.selection.key).len();
        let selected = self.selection.window;
        if let Some(w) = geometry::windows::hit(areas.windows, windows, selected, col, row) {
            return Some(Action::SelectWindow(w));
        }
        if let Some(op) = areas
            .topology
            .zip(self.trace().pipeline_config())
            .and_then(|(a, cfg)| {
                geometry::topology::hit(a, cfg.partitions, cfg.parallelism, col, row)
            })
        {
            return Some(Action::PickOperatorAt(op));
        }
        // An event the run can explain, under the mouse on the plot; side by side, on B's
        // plot too (the same stream: the event is inspected in both, each explaining it
        // under its own dials).
        let f = self.plot_frame(areas.plot)?;
        if let Some(at) = f.to_data(col, row) {
            return self
                .trace()
                .nearest(at, f.cell_size())
                .map(Action::InspectEvent);
        }
        let b = self.run_b()?;
        let f = b.plot_frame(areas.side?.b_plot)?;
        let at = f.to_data(col, row)?;
        b.trace()
            .nearest(at, f.cell_size())
            .map(Action::InspectEvent)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::app::Dial;
    use crate::app::{update, Msg};
    use crate::geometry::Areas;
    use crate::scenario::Scenario;
    use crate::theme::Theme;
    use crate::{app_for, Options};
    use twoclocks_engine::EngineConfig;

    fn app() -> App {
        let mut a = app_for(Options {
            scenario: Scenario::classroom(),
            config: EngineConfig::fixed(20_000.0, 0.0),
            speed: 10.0,
            theme: Theme::mono(),
            play: false,
        });
        // Every event arrived, so that the plot has some to inspect.
        update(&mut a, Msg::Action(Action::JumpToEnd), Duration::ZERO);
        a.settle();
        a
    }

    /// The state after a click at (col, row), and after the action it resolves to, given as a
    /// key would give it: the same.
    fn same_as_its_action(col: u16, row: u16) -> Action {
        let mut clicked = app();
        let action = clicked
            .pointed(col, row, false)
            .expect("something is there");
        assert!(update(&mut clicked, Msg::Click(col, row), Duration::ZERO));
        let mut acted = app();
        assert!(update(&mut acted, Msg::Action(action), Duration::ZERO));
        assert_eq!(clicked.dials(), acted.dials());
        assert_eq!(clicked.selection, acted.selection);
        assert_eq!(clicked.playhead(), acted.playhead());
        action
    }

    #[test]
    fn a_click_is_the_action_under_it() {
        let areas = Areas::compute_for((120, 40), false).unwrap();
        let grace = geometry::dials::track(areas.dials, Dial::Grace).unwrap();
        let a = same_as_its_action(grace.x + grace.width / 2, grace.y);
        assert!(matches!(a, Action::SetDial(Dial::Grace, r) if r > 0.4 && r < 0.6));
        let w = areas.windows;
        let a = same_as_its_action(w.x + 2, w.y + 3);
        assert!(matches!(a, Action::SelectWindow(_)), "{a:?}");
        let plot = app().plot_frame(areas.plot).unwrap().inner;
        // The classroom stream's events run along the diagonal: the plot's centre has some.
        let a = same_as_its_action(plot.x + plot.width / 2, plot.y + plot.height / 2);
        assert!(matches!(a, Action::InspectEvent(_)), "{a:?}");
    }

    #[test]
    fn the_help_covers_every_panel() {
        let mut a = app();
        update(&mut a, Msg::Action(Action::Help), Duration::ZERO);
        let areas = Areas::compute_for((120, 40), false).unwrap();
        let grace = geometry::dials::track(areas.dials, Dial::Grace).unwrap();
        assert_eq!(a.pointed(grace.x, grace.y, false), None);
        assert!(!update(
            &mut a,
            Msg::Click(grace.x, grace.y),
            Duration::ZERO
        ));
    }
}
