//! The UI's state and its one update function. The run the user steers is the engine's
//! [`SteeredRun`] (the scenario, the dials' settings, the kind of run and its presses, the
//! playhead, the [`Trace`] of the run to it, the score, the re-run pending); the dials shown
//! are its settings with what the dials remember beside them ([`App::dials`]: the speed, the
//! lag while the watermark has none, each family's generator). The rest is the UI's own:
//! whether the clock plays, the focus and selection, overlays, the tour, the frontier sweeps
//! asked for, side by side. `update` is
//! pure: it takes the elapsed time as an argument, never reads a clock; engine work for a big
//! input is [`Work`] the event loop runs off the UI task: a dial change re-runs the engine
//! there while the last result stays drawn, marked re-running; a newer change cancels the
//! older run, whose result the steered run drops.
//!
//! A key and a click are the same [`Action`]: the keymap names one, `pointer` resolves a
//! click through the screen's geometry to one, and `act` applies both. The rest is in its own
//! room: `work` (re-runs and what they answer), `job` (job mode and its presses), `inspector`
//! (stepping through events, jumping to the late and dropped ones), `tour` (a tour's step
//! applied, and moving between steps), `live` (a live input's batches growing the stream).
//! None of them reads the view: the view reads this.

use std::sync::Arc;
use std::time::Duration;

use crate::lesson::predict::Prediction;
use twoclocks_engine::clock::Clock;
use twoclocks_engine::frontier::Frontier;
use twoclocks_engine::frontier::FrontierPoint;
use twoclocks_engine::scale::Scale;
use twoclocks_engine::steered::SteeredRun;
use twoclocks_engine::trace::Trace;
use twoclocks_engine::{CellId, EngineConfig, KeyId, WindowFn, WindowId};

pub use crate::action::Action;
pub use crate::dials::{
    Dial, Dials, Family, CHECKPOINT_MAX, CHECKPOINT_STEP, EARLY_MAX, EARLY_STEP, GRACE_MAX,
    GRACE_STEP, LAG_MAX, LAG_STEP, SPEEDS,
};
pub use live::Live;
pub use predict::DIALS_HELD;
pub use replay::{ReplayProgress, REPLAY_HAS_THE_KEYS};
pub use run::Run;
pub use side::Side;
pub use tour::StepView;
pub use twoclocks_engine::steered::JobPreset;
pub use work::{Done, Work};

use ratatui::layout::Rect;

use crate::dials::DialMemory;
use crate::geometry::plot::PlotFrame;
use crate::geometry::{Areas, FULL_SIZE};
use crate::opening::{Opening, INLINE_EVENTS};
use crate::scenario::Scenario;
use crate::theme::Theme;
use crate::tour::Tour;

mod act;
mod inspector;
mod job;
mod live;
mod pointer;
mod predict;
mod replay;
mod run;
mod side;
mod tour;
mod work;

/// Everything `update` reacts to.
#[derive(Debug)]
pub enum Msg {
    /// A key's action, as the keymap names it.
    Action(Action),
    /// The simulation clock moved on by the `elapsed` given to `update`.
    Tick,
    /// The terminal now has this size (columns, rows).
    Resize(u16, u16),
    /// A mouse press at (column, row).
    Click(u16, u16),
    /// A mouse drag at (column, row).
    Drag(u16, u16),
    /// Engine work finished off the UI task.
    Done(Box<Done>),
    /// The status message with this number has been shown for [`STATUS_FOR`].
    StatusExpired(u64),
    /// What a live input sent since the last message, in order.
    Live(Vec<twoclocks_io::live::Feed>),
}

/// How long a status message stays in the footer.
pub const STATUS_FOR: Duration = Duration::from_secs(3);

/// A short message in the footer, for a moment: why a key did nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// Numbers messages, so that only the newest one's expiry clears it.
    pub seq: u64,
    /// The message, one line.
    pub text: String,
}

/// Where the simulation is in processing time: the steered run's clock, and whether the UI plays
/// it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Playhead {
    /// Processing time now, ms.
    pub now: f64,
    /// Events that have arrived by `now`.
    pub arrived: usize,
    /// The simulation clock runs (Space toggles it; reaching the end of input stops it).
    pub playing: bool,
    /// The end of input has been processed.
    pub finished: bool,
}

/// What the user has picked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Selection {
    /// The dial the arrow keys turn, marked ▶ in the dials panel.
    pub focus: Dial,
    /// Index into the scenario's windows.
    pub window: usize,
    /// One key, or all keys together.
    pub key: Option<KeyId>,
    /// The inspected event (offset in processing order).
    pub inspected: Option<usize>,
}

/// What covers the panels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlay {
    /// The key help (`?`): every binding, grouped, then what the panels draw.
    Help,
}

/// The frontier of one (window, watermark family), once computed.
#[derive(Debug, Clone)]
pub struct FrontierEntry {
    /// The window function the sweep is for.
    pub window: WindowFn,
    /// The watermark family the sweep is for, by its short name (`fixed`, `bounded`, …).
    pub family: &'static str,
    /// None while it is being computed; Some(None) when the family has no lag to sweep.
    pub frontier: Option<Option<Arc<Frontier>>>,
    /// The sweep's point the advisor gives for its default target (the cheapest reaching
    /// it, or the most accurate when none does), once computed.
    pub advised: Option<FrontierPoint>,
}

/// A wall-clock log framed at its own extent, where a stream counted in seconds is framed
/// from 0 (its start): event time from its first to its last event time, widened to whole
/// twelfths of its span in nice units up to a day, in its zone (6 hours for the three days
/// of New York departures, a day for their year),
/// and processing time from its first arrival to its last. The playhead starts at the log's
/// first arrival and the plot spans its events, not the decades since 1970. Other scenarios
/// are returned as they are.
fn framed(scenario: Arc<Scenario>) -> Arc<Scenario> {
    if !scenario.stream.clock.is_wall() || scenario.is_empty() || scenario.open {
        return scenario;
    }
    let scale = Scale::of(&*scenario.stream);
    let (lo, hi) = scenario.oracle.event_times_seen;
    // Whole twelfths of the span in nice units, at most a day: a year's log is framed on
    // its first and last midnights, not on whole years since 1970.
    let tick = Scale::nice_at_least((hi - lo).max(scale.span) / 12.0).clamp(1.0, 86_400_000.0);
    let offset = scenario.stream.clock.zone().map_or(0, |z| z.offset_ms(lo)) as f64;
    let down = |ms: f64| ((ms + offset) / tick).floor() * tick - offset;
    let up = |ms: f64| (((ms + offset) / tick).ceil() * tick - offset).max(down(ms) + tick);
    let mut s = (*scenario).clone();
    s.oracle.event_time = (down(lo), up(hi));
    s.oracle.proc_time = (scale.start, scale.start + scale.span.max(1.0));
    Arc::new(s)
}

/// The whole UI state. Cloning it is cheap apart from the trace (the stream is shared).
#[derive(Debug, Clone)]
pub struct App {
    /// The run the user steers: the scenario, the settings the dials ask for, the kind of run
    /// and its presses, the playhead and the trace of the run to it, the whole run's score, and
    /// the re-run pending.
    pub steered: SteeredRun,
    /// What the dials remember beside the settings the steered run holds ([`App::dials`]).
    dial_memory: DialMemory,
    /// The simulation clock runs (Space toggles it; reaching the end of input stops it).
    pub playing: bool,
    /// The focused dial, the selected window and key, the inspected event.
    pub selection: Selection,
    /// What covers the panels, if anything.
    pub overlay: Option<Overlay>,
    /// How far the help overlay is scrolled, when it does not fit.
    pub help_scroll: usize,
    /// The plot draws only late and dropped events.
    pub plot_exceptions_only: bool,
    /// The colours the view draws with.
    pub theme: Theme,
    /// The frontier sweeps asked for so far, one per (window, watermark family), kept while
    /// the UI is open.
    pub frontiers: Vec<FrontierEntry>,
    /// The operator instance picked to crash (`C`), waiting for `c`.
    pub crash_pick: Option<usize>,
    /// The source partition `p` cuts off or heals (`P` picks the next; `p` keeps the one it
    /// acted on picked); None: the first, s0, unmarked.
    pub partition_pick: Option<usize>,
    /// The crash report is closed for the first this many crashes (Esc); a new crash opens it.
    pub crash_closed: usize,
    /// The terminal's size, for resolving clicks against the same layout the view draws (the
    /// full layout until the terminal says).
    pub size: (u16, u16),
    /// Why the last key did nothing, shown in the footer until [`Msg::StatusExpired`].
    pub status: Option<Status>,
    status_seq: u64,
    /// Frontier sweeps queued for the event loop.
    work: Vec<Work>,
    /// The user asked to leave: the event loop ends.
    pub quit: bool,
    /// The plot alone on the whole screen above the footer (`z`).
    pub zoomed: bool,
    /// The plot follows the playhead at this many ms of event time per column (`m`); None:
    /// the whole stream.
    pub magnify: Option<f64>,
    /// The big numbers over the screen (`b`): the names of the figures shown (`on_time`,
    /// `late`, … as `view::big::Figure` parses them; none: the default set), or None when off.
    pub big_numbers: Option<Vec<String>>,
    /// The user asked for the screen to be saved (`s`): the event loop writes the last frame
    /// drawn and says where ([`App::saved`]); the state itself does no I/O.
    pub save_requested: bool,
    /// Two policies side by side (`v`): B, the dials pinned when `v` was pressed, run on the
    /// same stream to the same playhead with the same presses; None: one run on screen.
    pub side: Option<Side>,
    /// How many times B has been pinned: each pin's re-runs are told apart by it.
    pub pins: u64,
    /// The tour being given (`twoclocks tour`), its current step applied; None outside one.
    pub tour: Option<Tour>,
    /// A live input's state (`--input -` from a producer); None for a stream read whole.
    pub live: Option<Live>,
    /// A recording being played back (`--replay`), set and moved on by the shell; None when
    /// the keys are the user's.
    pub replay: Option<ReplayProgress>,
    /// A tour's predict step: the question put to the room and its vote, once cast.
    pub prediction: Option<Prediction>,
}

impl App {
    /// The UI on `scenario` with these dials and theme: paused at the start of processing time,
    /// the lag dial focused, window 3 (the first when there are three or fewer) and the first key
    /// selected. The first run is made at once (inline, or queued as [`Work`] for a big input);
    /// the frontier sweep is queued.
    pub fn new(scenario: Scenario, dials: Dials, theme: Theme) -> App {
        App::new_shared(Arc::new(scenario), dials, theme)
    }

    /// [`App::new`] on a scenario already shared (a tour's steps share their streams).
    pub fn new_shared(scenario: Arc<Scenario>, dials: Dials, theme: Theme) -> App {
        let scenario = framed(scenario);
        let dials = dials.scaled_to(&scenario.stream);
        let start = scenario.oracle.proc_time.0;
        // Sessions open on the session nearest the playhead, of whichever key holds it (the
        // first key's first session may lie minutes past it); other windows on the fourth of
        // the first key, a few before it.
        let (key, window) = match nearest_session(&scenario, &dials.window, start) {
            Some((key, window)) => (Some(key), window),
            None if scenario.oracle.merging || scenario.oracle.windows.len() <= 3 => {
                ((scenario.keys() > 0).then_some(0), 0)
            }
            None => ((scenario.keys() > 0).then_some(0), 3),
        };
        let magnify = Opening::magnify_of(&scenario);
        let scenario_live = scenario.open.then(Live::default);
        let steered = SteeredRun::new(scenario, dials.settings(), INLINE_EVENTS);
        let mut app = App {
            steered,
            dial_memory: dials.memory(),
            playing: false,
            selection: Selection {
                focus: Dial::Lag,
                window,
                key,
                inspected: None,
            },
            overlay: None,
            help_scroll: 0,
            plot_exceptions_only: false,
            theme,
            frontiers: Vec::new(),
            crash_pick: None,
            partition_pick: None,
            crash_closed: 0,
            size: FULL_SIZE,
            status: None,
            status_seq: 0,
            work: Vec::new(),
            quit: false,
            zoomed: false,
            magnify,
            big_numbers: None,
            save_requested: false,
            side: None,
            pins: 0,
            tour: None,
            live: scenario_live,
            replay: None,
            prediction: None,
        };
        app.request_frontier();
        // A gap as long as the stream's quiet spells merges each key's events into one
        // session: said, so that one span per key is not taken for a fault.
        let keys = app.scenario().keys();
        if app.scenario().oracle.merging
            && keys > 0
            && (0..keys).all(|k| app.scenario().windows_of(Some(k as KeyId)).len() <= 1)
        {
            app.say("this gap merges each key's whole stream into one session: try a shorter one");
        }
        app
    }

    /// The clock the stream's times are read on: every time and duration the screen writes
    /// goes through it.
    pub fn clock(&self) -> &Clock {
        &self.scenario().stream.clock
    }

    /// The stream being played, with its oracle, its windows and both clocks' extent.
    pub fn scenario(&self) -> &Arc<Scenario> {
        self.steered.scenario()
    }

    /// The selected window: for sessions, one of the selected key's oracle sessions (the
    /// index held to the last of them).
    pub fn selected_window(&self) -> Option<WindowId> {
        let ws = self.scenario().windows_of(self.selection.key);
        ws.get(self.selection.window.min(ws.len().checked_sub(1)?))
            .copied()
    }

    /// The selected cell: the selected window of the selected key (None when all keys are).
    pub fn selected_cell(&self) -> Option<CellId> {
        Some(CellId {
            window: self.selected_window()?,
            key: self.selection.key?,
        })
    }

    /// The engine's answer for the dials up to the playhead: the run, whichever kind it is.
    /// The panels and the keys read it, never which kind of run was asked for.
    pub fn trace(&self) -> &Trace {
        self.steered.trace()
    }

    /// Where the simulation is in processing time.
    pub fn playhead(&self) -> Playhead {
        let c = self.steered.progress();
        Playhead {
            now: c.now,
            arrived: c.arrived,
            playing: self.playing,
            finished: c.finished,
        }
    }

    /// The whole run's score for the dials (None until known).
    pub fn score(&self) -> Option<FrontierPoint> {
        self.steered.score()
    }

    /// Shows `text` in the footer for a moment. Returns true: the screen changed.
    pub fn say(&mut self, text: impl Into<String>) -> bool {
        self.status_seq += 1;
        self.status = Some(Status {
            seq: self.status_seq,
            text: text.into(),
        });
        true
    }

    /// Takes the request to save the screen (`s`), if there is one.
    pub fn take_save(&mut self) -> bool {
        std::mem::take(&mut self.save_requested)
    }

    /// Says in the footer where the screen was saved, or why it could not be. Returns true.
    pub fn saved(&mut self, outcome: Result<String, String>) -> bool {
        match outcome {
            Ok(paths) => self.say(format!("saved {paths}")),
            Err(why) => self.say(format!("screen not saved: {why}")),
        }
    }

    /// Whether the simulation clock runs: playing, with nothing over the panels and no
    /// re-run pending (the playhead waits for the dials' answer).
    pub fn clock_runs(&self) -> bool {
        self.playing
            && self.overlay.is_none()
            && !self.steered.rerunning()
            && !self.steered.at_live_edge()
    }

    /// The frontier for the current window and family, if computed (Some(None): nothing to
    /// sweep for this family).
    pub fn frontier(&self) -> Option<Option<&Frontier>> {
        let family = self.dials().watermark().family();
        self.frontiers
            .iter()
            .find(|f| f.window == self.dials().window && f.family == family)
            .and_then(|f| f.frontier.as_ref())
            .map(|f| f.as_deref())
    }

    /// The advised point of the current frontier, once computed.
    pub fn advised(&self) -> Option<&FrontierPoint> {
        let family = self.dials().watermark().family();
        self.frontiers
            .iter()
            .find(|f| f.window == self.dials().window && f.family == family)
            .and_then(|f| f.advised.as_ref())
    }

    fn request_frontier(&mut self) {
        self.request_frontier_for(self.dials().config());
    }

    /// [`App::request_frontier`] for the dials asking for `cfg` (set, and not yet run).
    fn request_frontier_for(&mut self, cfg: EngineConfig) {
        if self.scenario().open {
            // The frontier is the whole input's: swept once it has ended.
            return;
        }
        let family = cfg.watermark.family();
        if self
            .frontiers
            .iter()
            .any(|f| f.window == cfg.window && f.family == family)
        {
            return;
        }
        self.frontiers.push(FrontierEntry {
            window: cfg.window,
            family,
            frontier: None,
            advised: None,
        });
        self.work.push(Work::Frontier {
            scenario: self.scenario().clone(),
            cfg,
        });
    }

    /// The plot's frame in `area`: the whole stream, or the window that follows the playhead
    /// when magnified (`m`). The view draws by it and a click is resolved against it.
    pub fn plot_frame(&self, area: Rect) -> Option<PlotFrame> {
        self.plot_frame_at(area, self.playhead().now)
    }

    /// [`App::plot_frame`] for a run whose playhead is at processing time `now` (B's, side by
    /// side, when it keeps its own clock).
    pub(crate) fn plot_frame_at(&self, area: Rect, now: f64) -> Option<PlotFrame> {
        let f = PlotFrame::of(self, area)?;
        let Some(per_column) = self.plot_scale(&f, now) else {
            return Some(f);
        };
        let view = self.tour_view();
        let f = f.following(per_column, now, view.map(|v| v.from));
        // The selected window on the plot at the step's scale: the view follows it.
        Some(match self.tour_selected_span() {
            Some((start, end)) => f.showing(start, end),
            None => f,
        })
    }

    /// The plot's scale when it follows the playhead, ms of event time a column: the one
    /// asked for (`m`, a tour step's `magnify`), widened to a round one when a tour step's
    /// subject would not be across the plot; None for the whole stream.
    fn plot_scale(&self, f: &PlotFrame, now: f64) -> Option<f64> {
        let per_column = self.magnify?;
        Some(match self.tour_view() {
            Some(v) => f.scale_keeping(per_column, now, v.from, v.to),
            None => per_column,
        })
    }

    /// The plot's scale in the plot panel at `area` (see [`App::plot_frame`]), for its title,
    /// for a run whose playhead is at `now`.
    pub(crate) fn plot_scale_at(&self, area: Rect, now: f64) -> Option<f64> {
        self.plot_scale(&PlotFrame::of(self, area)?, now)
    }

    /// The screen's panels at `size` for what the trace holds (with a pipeline: its topology
    /// and sinks). The view draws into these and a click is resolved against them.
    pub fn areas(&self, size: (u16, u16)) -> Option<Areas> {
        let a = Areas::compute_view(size, self.trace().pipeline_config().is_some(), self.zoomed)?;
        Some({
            let a = if self.tour.is_some() {
                a.with_caption().room_for(&self.tour_needs())
            } else {
                a
            };
            if self.side.is_some() {
                a.split_side()
            } else {
                a
            }
        })
    }

    /// The dials in focus order: with the checkpoint interval when the run takes checkpoints.
    pub fn dial_order(&self) -> &'static [Dial] {
        Dial::order(self.trace().pipeline_config().is_some())
    }

    /// Re-runs the engine from the start to the playhead with the dials as they are now (the
    /// one path every dial change takes): the parallel job when that is the run asked for, else
    /// the single processor, whose frontier sweep is asked for too.
    fn rerun(&mut self) {
        self.request_frontier_if_single();
        self.steered.set_dials(*self.steered.settings());
    }

    /// The dials as shown: the settings the steered run runs with, and what the dials remember
    /// beside them (the speed, the lag while the watermark has none, each family's generator).
    pub fn dials(&self) -> Dials {
        Dials::of(self.steered.settings(), &self.dial_memory)
    }

    /// The dials set to `dials`: what they remember kept, and the engine re-run (by the one
    /// path every dial change takes) when the settings they ask for are not the steered run's.
    /// Returns whether it re-ran.
    pub fn set_dials(&mut self, dials: Dials) -> bool {
        self.dial_memory = dials.memory();
        if dials.settings() == *self.steered.settings() {
            return false;
        }
        if !self.steered.parallel() {
            self.request_frontier_for(dials.config());
        }
        self.steered.set_dials(dials.settings());
        true
    }

    /// Stops playing once the run has reached the end of input.
    fn stop_at_end(&mut self) {
        if self.steered.progress().finished {
            self.playing = false;
        }
    }

    /// Plays the run on to processing time `to`, stopping at the end.
    fn play_to(&mut self, to: f64) {
        self.steered.play_to(to);
        self.stop_at_end();
    }

    /// Back to the start with a clean job: the presses, the crash picked and the crash reports
    /// go, and the inspector closes.
    fn restart(&mut self) {
        self.crash_pick = None;
        self.crash_closed = 0;
        self.selection.inspected = None;
        self.steered.restart();
        self.request_frontier_if_single();
    }

    /// The single run's frontier sweep, asked for if it is the run asked for.
    fn request_frontier_if_single(&mut self) {
        if !self.steered.parallel() {
            self.request_frontier();
        }
    }

    /// The playhead to the end of the stream, paused. A run that keeps its own clock ends where
    /// running it ends: a big one is run there off the UI task, as a re-run would.
    fn jump_to_end(&mut self) {
        self.steered.run_to_end();
        self.stop_at_end();
    }

    /// Turns a dial one step, or says why it does not move.
    fn turn(&mut self, d: Dial, up: bool) -> bool {
        let before = self.dials();
        if d == Dial::Lag && !before.has_lag() {
            return self.say(format!(
                "the {} watermark has no lag: w picks another",
                before.watermark().family()
            ));
        }
        let mut dials = before;
        dials.turn(d, up);
        self.set_dials(dials);
        if dials != before {
            return true;
        }
        let end = if up { "highest" } else { "lowest" };
        self.say(format!("{} is already at its {end}", d.label()))
    }
}

impl AsRef<Scenario> for App {
    fn as_ref(&self) -> &Scenario {
        self.steered.scenario()
    }
}

/// Applies one message to the state; `elapsed` is the real time a `Tick` covers. Returns
/// whether anything on screen changed.
pub fn update(app: &mut App, msg: Msg, elapsed: Duration) -> bool {
    let changed = apply(app, msg, elapsed);
    // B, when two policies are side by side, follows whatever moved A.
    app.follow_side();
    changed
}

fn apply(app: &mut App, msg: Msg, elapsed: Duration) -> bool {
    match msg {
        Msg::Tick => {
            if !app.clock_runs() {
                return false;
            }
            let dt = elapsed.as_secs_f64() * app.dials().speed * 1_000.0;
            let now = app.playhead().now + dt;
            app.play_to(now);
            true
        }
        Msg::Resize(w, h) => {
            app.size = (w, h);
            true
        }
        // A click or a drag is the action of what is under it, if anything.
        Msg::Click(c, r) => app.pointed(c, r, false).is_some_and(|a| act::act(app, a)),
        Msg::Drag(c, r) => app.pointed(c, r, true).is_some_and(|a| act::act(app, a)),
        Msg::Done(done) => app.finish(*done),
        Msg::Live(feeds) => app.take_feed(feeds),
        Msg::StatusExpired(seq) => {
            if app.status.as_ref().is_some_and(|s| s.seq == seq) {
                app.status = None;
                return true;
            }
            false
        }
        Msg::Action(a) => {
            // A new key replaces the last one's message.
            let had = app.status.take().is_some();
            act::act(app, a) | had
        }
    }
}

/// With sessions, the key and the index among its sessions of the session nearest processing
/// time `now` in event time: one that spans it, else the nearest by its start or end, counted
/// in whole gaps (so that a key whose session is as near within a gap keeps the first key's
/// place: the first key on a tie). `None` for windows that do not merge, or no session at all.
fn nearest_session(scenario: &Scenario, window: &WindowFn, now: f64) -> Option<(KeyId, usize)> {
    let WindowFn::Session { gap } = *window else {
        return None;
    };
    let gap = gap.max(1) as f64;
    let away = |w: &WindowId| {
        if (w.start()..w.end()).contains(&now) {
            0.0
        } else {
            ((w.start() - now).abs().min((w.end() - now).abs()) / gap).floor()
        }
    };
    (0..scenario.keys() as KeyId)
        .flat_map(|k| {
            scenario
                .windows_of(Some(k))
                .iter()
                .enumerate()
                .map(move |(i, w)| (away(w), k, i))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)))
        .map(|(_, k, i)| (k, i))
}
