//! One run as the plot draws it: a steered run (A's, or B's side by side) with the dials it runs
//! on, seen through the UI's own state (the selection, the theme, the tour, the plot's scale).
//! What belongs to the run — its trace, scenario, playhead, score, dials, the plot's frame at
//! its playhead — is the run's; the rest is read through to the [`App`], so the same drawing
//! code draws A and B.

use std::ops::Deref;
use std::sync::Arc;

use ratatui::layout::Rect;
use twoclocks_engine::frontier::FrontierPoint;
use twoclocks_engine::steered::SteeredRun;
use twoclocks_engine::trace::Trace;

use super::{App, Dials, Playhead};
use crate::figures::Figures;
use crate::geometry::plot::PlotFrame;
use crate::scenario::Scenario;

/// A run as drawn: its steered run and dials, over the UI state of the [`App`] showing it.
#[derive(Debug, Clone, Copy)]
pub struct Run<'a> {
    app: &'a App,
    /// Its clock plays (A's when the app plays; B only follows A).
    playing: bool,
    /// The run.
    pub steered: &'a SteeredRun,
    /// The dials it runs on (B's are pinned).
    pub dials: Dials,
}

impl<'a> Run<'a> {
    /// `steered` on `dials`, drawn as `app` draws, its clock playing or not.
    pub fn new(app: &'a App, steered: &'a SteeredRun, dials: Dials, playing: bool) -> Run<'a> {
        Run {
            app,
            playing,
            steered,
            dials,
        }
    }

    /// The app showing it.
    pub fn app(&self) -> &'a App {
        self.app
    }

    /// The run to its playhead.
    pub fn trace(&self) -> &'a Trace {
        self.steered.trace()
    }

    /// The stream and its oracle.
    pub fn scenario(&self) -> &'a Arc<Scenario> {
        self.steered.scenario()
    }

    /// Its playhead.
    pub fn playhead(&self) -> Playhead {
        let c = self.steered.progress();
        Playhead {
            now: c.now,
            arrived: c.arrived,
            playing: self.playing,
            finished: c.finished,
        }
    }

    /// Its whole run's score, once known.
    pub fn score(&self) -> Option<FrontierPoint> {
        self.steered.score()
    }

    /// The read model's figures at its playhead.
    pub fn figures(&self) -> Figures {
        Figures::of(
            self.trace(),
            self.playhead().now,
            &self.scenario().oracle.truth,
        )
    }

    /// The plot's frame in `area` at its playhead ([`App::plot_frame`]).
    pub fn plot_frame(&self, area: Rect) -> Option<PlotFrame> {
        self.app.plot_frame_at(area, self.steered.progress().now)
    }

    /// The plot's scale in `area` at its playhead, when it follows the playhead.
    pub fn plot_scale_in(&self, area: Rect) -> Option<f64> {
        self.app.plot_scale_at(area, self.steered.progress().now)
    }
}

impl Deref for Run<'_> {
    type Target = App;

    fn deref(&self) -> &App {
        self.app
    }
}

impl App {
    /// A's run: the app's own steered run and dials.
    pub fn run(&self) -> Run<'_> {
        Run::new(self, &self.steered, self.dials(), self.playing)
    }

    /// B's run, side by side (None: one run on screen).
    pub fn run_b(&self) -> Option<Run<'_>> {
        let side = self.side.as_ref()?;
        Some(Run::new(self, &side.b, side.dials(), false))
    }
}
