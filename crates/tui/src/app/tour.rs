//! A tour's step applied to the UI's state: the step's stream, its dials over the scenario's
//! presets, job mode with its crashes pressed at their times, the playhead, what shows and the
//! selected window. Applying a step starts the state afresh (keeping the terminal's size, the
//! theme and a recording playing back), so `r` puts the step back however the class has
//! turned the dials since.

use crate::dials::CHECKPOINT_DEFAULT;
use crate::figures::Figures;
use crate::opening::Opening;
use crate::panel::Panel;
use crate::theme::Theme;
use crate::tour::placeholders::Quoted;
use crate::tour::{At, Highlight, Show, Tour};
use twoclocks_engine::job_timeline::Intervention;
use twoclocks_engine::pipeline::CrashTarget;

use super::{App, Dials, JobPreset};

/// What a tour step's magnified plot puts across it: from processing and event time `from`
/// (the rows reach down to it, the columns back to it) to event time `to`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepView {
    /// Where the subject starts, ms: a window's start, the stream's.
    pub from: f64,
    /// The event time it reaches, ms: the window's end (`from` when it has none).
    pub to: f64,
}

impl App {
    /// The UI giving `tour`, on its first step.
    pub fn open_tour(tour: Tour, theme: Theme) -> Option<App> {
        let step = tour.step();
        let scenario = tour.scenario(step)?;
        let mut config = step.scenario.preset().config;
        config.window = step.window_fn();
        let mut app = App::new_shared(scenario, Dials::from_config(&config, 1.0), theme);
        app.tour = Some(tour);
        app.apply_step();
        Some(app)
    }

    /// The figures big numbers (`b`) show for the tour's current step (None outside a tour).
    pub fn tour_big_figures(&self) -> Option<&[String]> {
        self.tour.as_ref().map(|t| t.step().big.as_slice())
    }

    /// Whether the tour's current step shows the panel (always outside a tour).
    pub fn tour_shows(&self, panel: Panel) -> bool {
        self.tour
            .as_ref()
            .is_none_or(|t| t.step().show.shows(panel))
    }

    /// The panels the tour's current step is about: the one it
    /// highlights (the selected window: the windows table and the pane history), and the plot
    /// when the step crashes the job (the crash and its replay are drawn there). Not the
    /// panels it shows: a step may show every panel and still be about a few. At 80×24 they
    /// are given room ([`Areas::room_for`]); at 120×40 every panel has its own.
    ///
    /// [`Areas::room_for`]: crate::geometry::Areas::room_for
    pub fn tour_needs(&self) -> Vec<Panel> {
        let Some(tour) = self.tour.as_ref() else {
            return Vec::new();
        };
        let step = tour.step();
        let mut v = Vec::new();
        if !step.crash_at.is_empty() {
            v.push(Panel::Plot);
        }
        match step.highlight {
            Some(Highlight::Panel(p)) => v.push(p),
            Some(Highlight::Window) => v.extend([Panel::Windows, Panel::Panes]),
            None => {}
        }
        v
    }

    /// What the tour's current step's plot puts across it when magnified (None outside a tour
    /// or when the step's subject is the playhead's neighbourhood alone): the window the step
    /// selects (its own, whichever is selected now, so `[` `]` keep the step's scale); the
    /// whole run so far for a step that crashes the job (its checkpoints, the crash, the
    /// replay) or whose caption counts the events arrived.
    pub fn tour_view(&self) -> Option<StepView> {
        let tour = self.tour.as_ref()?;
        let step = tour.step();
        if let Some((w, _)) = step.window {
            let key = tour.key_of(step).or(self.selection.key);
            let ws = self.scenario().windows_of(key);
            let window = *ws.get(w.min(ws.len().checked_sub(1)?))?;
            let (from, to) = (
                self.dials().window.start(window),
                self.dials().window.end(window),
            );
            return (from.is_finite() && to.is_finite()).then_some(StepView { from, to });
        }
        if !step.crash_at.is_empty() || step.caption.contains("{arrived}") {
            let from = self.scenario().oracle.proc_time.0;
            return Some(StepView { from, to: from });
        }
        None
    }

    /// The event times of the window selected now, when the tour's current step selects one:
    /// the magnified plot moves across event time to keep it on.
    pub fn tour_selected_span(&self) -> Option<(f64, f64)> {
        self.tour.as_ref()?.step().window?;
        let window = self.selected_window()?;
        let (from, to) = (
            self.dials().window.start(window),
            self.dials().window.end(window),
        );
        (from.is_finite() && to.is_finite()).then_some((from, to))
    }

    /// The scale the tour's current step magnifies the plot at, ms a column (`m` comes back
    /// to it from the whole stream): the step's, else the scenario's; None outside a tour or
    /// when neither magnifies.
    pub fn tour_magnify(&self) -> Option<f64> {
        let step = self.tour.as_ref()?.step();
        step.magnify.unwrap_or(Opening::magnify_of(self.scenario()))
    }

    /// Whether the tour's current step keeps `what` back (one of
    /// [`HIDEABLE`](crate::tour::HIDEABLE)): it has not been taught yet. Outside a tour
    /// nothing is kept back.
    pub fn tour_hides(&self, what: &str) -> bool {
        self.tour
            .as_ref()
            .is_some_and(|t| t.step().hide.contains(&what))
    }

    /// Whether a step before the current one showed the panel: one kept back now was taught
    /// already, and is not "later in the tour".
    pub fn tour_shown_before(&self, panel: Panel) -> bool {
        self.tour
            .as_ref()
            .is_some_and(|t| t.steps[..t.at].iter().any(|s| s.show.draws(panel)))
    }

    /// The panel the tour's current step highlights.
    pub fn tour_highlight(&self) -> Option<Panel> {
        match self.tour.as_ref()?.step().highlight? {
            Highlight::Panel(p) => Some(p),
            Highlight::Window => None,
        }
    }

    /// The read model's figures at the playhead (what a caption's placeholders quote).
    pub fn figures(&self) -> Figures {
        Figures::of(
            self.trace(),
            self.playhead().now,
            &self.scenario().oracle.truth,
        )
    }

    /// What a caption quotes: the figures at the playhead, the dials, the whole run's events
    /// lost at the end (the score the dials panel shows) and, side by side, B's figures.
    pub fn quoted(&self) -> Quoted<'_> {
        Quoted {
            figures: self.figures(),
            dials: self.dials(),
            lost: self.score().as_ref().map(|p| p.score.events_lost),
            b: self.run_b().map(|b| b.figures()),
            asked: self
                .prediction
                .as_ref()
                .map(|p| (&p.question, &*self.scenario().stream)),
        }
    }

    /// Moves the tour `by` steps (±1) and applies the step; says why not at either end or
    /// outside a tour. Returns true: the screen changed.
    pub(super) fn tour_move(&mut self, forward: bool) -> bool {
        let Some(tour) = self.tour.as_mut() else {
            return self.say("no tour: `twoclocks tour` gives one (n, N and r move through it)");
        };
        let n = tour.steps.len();
        if forward && tour.at + 1 >= n {
            return self.say(format!("this is the last step, {n}/{n}: N goes back"));
        }
        if !forward && tour.at == 0 {
            return self.say("this is the first step: n goes on");
        }
        tour.at = if forward { tour.at + 1 } else { tour.at - 1 };
        self.apply_step();
        true
    }

    /// `r`: the step's setting back (dials, playhead, job, what shows).
    pub(super) fn tour_reset(&mut self) -> bool {
        if self.tour.is_none() {
            return self.say("no tour: `twoclocks tour` gives one (r puts a step back)");
        }
        self.apply_step();
        self.say("the step's setting is back")
    }

    /// Applies the tour's current step: a fresh state on its stream (cut by its window
    /// function) and dials (at the scenario's speed, else 10×), then job mode (the
    /// scenario's own job, with its outages, if it has one), its crashes, the playhead, what
    /// shows, the selected window and, with `side`, B pinned beside it on B's dials.
    fn apply_step(&mut self) {
        let Some(tour) = self.tour.take() else {
            return;
        };
        let step = tour.step().clone();
        let Some(scenario) = tour.scenario(&step) else {
            self.tour = Some(tour);
            return;
        };
        let preset = step.scenario.preset();
        let dials = step.run_dials();
        let mut fresh = App::new_shared(scenario, dials, self.theme);
        // Answers to the old state's re-runs are never taken by the new one.
        fresh.steered.succeed(&mut self.steered);
        // Nor an old B's by the new B: the pins go on counting, and the old B's re-run stops.
        fresh.pins = self.pins;
        self.unpin_side();
        fresh.size = self.size;
        // A recording playing on plays on: the footer keeps saying so, whatever step it moves to.
        fresh.replay = self.replay.take();
        fresh
            .steered
            .set_inline_events(self.steered.inline_events());
        fresh.zoomed = step.show == Show::Plot;
        if let Some(m) = step.magnify {
            fresh.magnify = m;
        }
        if step.job {
            match &preset.job {
                // The scenario's own job, its outages with it.
                Some(shape) => fresh.open_job(JobPreset::of_scenario(
                    shape,
                    &dials.settings(),
                    CHECKPOINT_DEFAULT,
                )),
                None => fresh.set_job_mode(true, true),
            }
            for &t in &step.crash_at {
                fresh.play_to(t);
                fresh.press(Intervention::Crash(CrashTarget::Job));
            }
        }
        match step.playhead {
            At::Start => {}
            At::Time(t) => {
                fresh.play_to(t);
            }
            At::End => fresh.jump_to_end(),
        }
        if let Some(k) = tour.key_of(&step) {
            fresh.selection.key = Some(k);
        }
        if let Some((w, _)) = step.window {
            fresh.selection.window = w;
        }
        // A step about idleness hands the class the idle dial (← → turn A's).
        if step.dials.idle.is_some() {
            fresh.selection.focus = super::Dial::Idle;
        }
        if let Some(b) = step.side {
            fresh.pin_side(b.over(dials));
        }
        if let Some((ask, _)) = step.predict {
            fresh.pose(ask);
        }
        fresh.playing = false;
        fresh.tour = Some(tour);
        // The old state's queued work (its stream's frontier) goes with it.
        *self = fresh;
    }
}
