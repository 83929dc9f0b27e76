//! The UI's state and its one update function. State = (scenario, dials, whether the run is the
//! parallel job, playhead, selection, overlay, the job's presses) plus what the engine answered
//! for them (the [`Trace`] of the run to the playhead, whichever kind it is, and the frontier).
//! `update` is pure: it takes the elapsed time as an argument, never reads a clock, and does
//! engine work either inline or, for big inputs, as [`Work`] the event loop runs off the UI
//! task: a dial
//! change re-runs the engine (single processor or job) there while the last result stays
//! drawn, marked re-running; a newer change cancels the older run, whose result is dropped.
//!
//! A key and a click are the same [`Action`]: the keymap names one, `pointer` resolves a
//! click through the screen's geometry to one, and `act` applies both. The rest is in its own
//! room: `work` (re-runs and what they answer), `job` (job mode and its presses), `inspector`
//! (stepping through events, jumping to the late and dropped ones), `tour` (a tour's step
//! applied, and moving between steps), `live` (a live input's batches growing the stream).
//! None of them reads the view: the view reads this.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use twoclocks_engine::frontier::Frontier;
use twoclocks_engine::frontier::FrontierPoint;
use twoclocks_engine::job_timeline::Press;
use twoclocks_engine::pipeline::{Outage, PipelineConfig};
use twoclocks_engine::predict::Prediction;
use twoclocks_engine::rerun::{Kind as RerunKind, Rerun};
use twoclocks_engine::trace::{Clock, Trace};
use twoclocks_engine::{KeyId, WindowFn, WindowId};

pub use super::action::Action;
pub use super::dials::{
    Dial, Dials, Family, CHECKPOINT_MAX, CHECKPOINT_STEP, EARLY_MAX, EARLY_STEP, GRACE_MAX,
    GRACE_STEP, LAG_MAX, LAG_STEP, SPEEDS,
};
pub use job::{JobPreset, JOB_OPERATORS, JOB_PARTITIONS, JOB_SEED};
pub use live::Live;
pub use replay::{ReplayProgress, REPLAY_HAS_THE_KEYS};
pub use side::Side;
pub use twoclocks_engine::rerun::{run_job, run_timeline};
pub use work::{Done, Work};

use ratatui::layout::Rect;

use super::geometry::plot::PlotFrame;
use super::geometry::{Areas, FULL_SIZE};
use super::scenario::Scenario;
use super::theme::Theme;
use super::tour::Tour;

mod act;
mod inspector;
mod job;
mod live;
mod pointer;
mod predict;
mod replay;
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

/// Where the simulation is in processing time.
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

/// Streams up to this many events are re-run inline (well under a frame); bigger ones off the
/// UI task.
pub const INLINE_EVENTS: usize = 250_000;

/// The whole UI state. Cloning it is cheap apart from the trace (the stream is shared).
#[derive(Debug, Clone)]
pub struct App {
    /// The stream being played, with its oracle, its windows and both clocks' extent.
    pub scenario: Arc<Scenario>,
    /// The dials' values: what the engine runs with, and the playback speed.
    pub dials: Dials,
    /// Where the simulation is in processing time.
    pub playhead: Playhead,
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
    /// The engine's answer for the dials up to the playhead: the run, whichever kind it is.
    /// The panels and the keys read it, never which kind of run was asked for.
    pub trace: Trace,
    /// The whole run's score for the dials (None until known).
    pub score: Option<FrontierPoint>,
    /// The frontier sweeps asked for so far, one per (window, watermark family), kept for the
    /// session.
    pub frontiers: Vec<FrontierEntry>,
    /// The run asked for is the parallel job (`j` toggles it; a crash or a checkpoint asks for
    /// it): a choice of configuration, which the re-runs follow.
    pub parallel: bool,
    /// The job's shape given on the command line (partitions, operators, barriers, seed,
    /// transit); None: [`JOB_PARTITIONS`], [`JOB_OPERATORS`], [`JOB_SEED`].
    pub job_preset: Option<PipelineConfig>,
    /// The job's outages given on the command line (`--outage`, a scenario's): applied before
    /// the presses at every re-run, and kept by a fresh start.
    pub job_outages: Vec<Outage>,
    /// What the user pressed in the job (crashes, checkpoints), in order: with the dials and
    /// the playhead, what the job shows is a function of these.
    pub presses: Vec<Press>,
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
    /// A re-run is being computed off the UI task.
    pub rerunning: bool,
    /// Re-runs of inputs bigger than this go off the UI task.
    pub inline_events: usize,
    /// Why the last key did nothing, shown in the footer until [`Msg::StatusExpired`].
    pub status: Option<Status>,
    status_seq: u64,
    /// Numbers re-runs: only the newest one's result is taken.
    generation: u64,
    /// Stops the re-run in flight, when a newer one replaces it.
    cancel: Option<Arc<AtomicBool>>,
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
        let trace = Trace::single_start(
            dials.config(),
            scenario.stream.clone(),
            scenario.oracle.proc_time,
        );
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
        let magnify = scenario.magnify;
        let scenario_live = scenario.open.then(Live::default);
        let mut app = App {
            scenario,
            dials,
            playhead: Playhead {
                now: start,
                arrived: 0,
                playing: false,
                finished: false,
            },
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
            trace,
            score: None,
            frontiers: Vec::new(),
            parallel: false,
            job_preset: None,
            job_outages: Vec::new(),
            presses: Vec::new(),
            crash_pick: None,
            partition_pick: None,
            crash_closed: 0,
            size: FULL_SIZE,
            rerunning: false,
            inline_events: INLINE_EVENTS,
            status: None,
            status_seq: 0,
            generation: 0,
            cancel: None,
            work: Vec::new(),
            quit: false,
            zoomed: false,
            magnify,
            big_numbers: None,
            save_requested: false,
            side: None,
            tour: None,
            live: scenario_live,
            replay: None,
            prediction: None,
        };
        app.rerun();
        // A gap as long as the stream's quiet spells merges each key's events into one
        // session: said, so that one span per key is not taken for a fault.
        let keys = app.scenario.keys();
        if app.scenario.oracle.merging
            && keys > 0
            && (0..keys).all(|k| app.scenario.windows_of(Some(k as KeyId)).len() <= 1)
        {
            app.say("this gap merges each key's whole stream into one session: try a shorter one");
        }
        app
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
        self.playhead.playing && self.overlay.is_none() && !self.rerunning && !self.at_live_edge()
    }

    /// The frontier for the current window and family, if computed (Some(None): nothing to
    /// sweep for this family).
    pub fn frontier(&self) -> Option<Option<&Frontier>> {
        let family = self.dials.watermark().family();
        self.frontiers
            .iter()
            .find(|f| f.window == self.dials.window && f.family == family)
            .and_then(|f| f.frontier.as_ref())
            .map(|f| f.as_deref())
    }

    /// The advised point of the current frontier, once computed.
    pub fn advised(&self) -> Option<&FrontierPoint> {
        let family = self.dials.watermark().family();
        self.frontiers
            .iter()
            .find(|f| f.window == self.dials.window && f.family == family)
            .and_then(|f| f.advised.as_ref())
    }

    fn request_frontier(&mut self) {
        if self.scenario.open {
            // The frontier is the whole input's: swept once it has ended.
            return;
        }
        let cfg = self.dials.config();
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
            scenario: self.scenario.clone(),
            cfg,
        });
    }

    /// The plot's frame in `area`: the whole stream, or the window that follows the playhead
    /// when magnified (`m`). The view draws by it and a click is resolved against it.
    pub fn plot_frame(&self, area: Rect) -> Option<PlotFrame> {
        let f = PlotFrame::of(self, area)?;
        Some(match self.plot_scale(&f) {
            Some(per_column) => f.following(per_column, self.playhead.now),
            None => f,
        })
    }

    /// The plot's scale when it follows the playhead, ms of event time a column: the one
    /// asked for (`m`, a tour step's `magnify`), widened to a round one when a tour step's
    /// selected window would not be in view; None for the whole stream.
    fn plot_scale(&self, f: &PlotFrame) -> Option<f64> {
        let per_column = self.magnify?;
        Some(match self.tour_window_start() {
            Some(start) => f.scale_keeping(per_column, self.playhead.now, start),
            None => per_column,
        })
    }

    /// The plot's scale in the plot panel at `area` (see [`App::plot_frame`]), for its title.
    pub fn plot_scale_in(&self, area: Rect) -> Option<f64> {
        self.plot_scale(&PlotFrame::of(self, area)?)
    }

    /// The screen's panels at `size` for what the trace holds (with a pipeline: its topology
    /// and sinks). The view draws into these and a click is resolved against them.
    pub fn areas(&self, size: (u16, u16)) -> Option<Areas> {
        let a = Areas::compute_view(size, self.trace.pipeline_config().is_some(), self.zoomed)?;
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
        Dial::order(self.trace.pipeline_config().is_some())
    }

    /// Re-runs the engine from the start to the playhead with the dials as they are now: the
    /// parallel job when that is the run asked for, else the single processor. Off the UI task
    /// the run drawn until then is the last one, or an empty one of the kind asked for.
    fn rerun(&mut self) {
        if self.parallel {
            self.rerun_job(false);
            return;
        }
        self.request_frontier();
        let cfg = self.dials.config();
        let open = self.scenario.open;
        let rerun = Rerun {
            stream: self.scenario.stream.clone(),
            truth: self.scenario.oracle.truth.clone(),
            kind: RerunKind::Single {
                cfg,
                open,
                span: self.scenario.oracle.proc_time,
            },
            arrived: self.playhead.arrived,
            now: self.playhead.now,
            finish: self.playhead.finished,
        };
        // Off the UI task, the job drawn until the answer gives way to an empty single run.
        if self.scenario.len() > self.inline_events && self.trace.pipeline_config().is_some() {
            self.trace = Trace::single_start(
                cfg,
                self.scenario.stream.clone(),
                self.scenario.oracle.proc_time,
            )
            .with_open_input(open);
        }
        self.launch(rerun, false);
    }

    /// The playhead as the trace's moves take it.
    fn clock(&self) -> Clock {
        Clock {
            now: self.playhead.now,
            arrived: self.playhead.arrived,
            finished: self.playhead.finished,
        }
    }

    /// The playhead to where a move of the run left it (it stops at the end).
    fn go(&mut self, c: Clock) {
        self.place(c.now, c.arrived, c.finished, true);
    }

    /// Keeps the trace and the playhead together: a run that follows the playhead catches up
    /// with it (forward only), one that keeps its own clock takes the playhead with it.
    fn follow(&mut self) {
        if let Some(c) = self.trace.catch_up(self.clock()) {
            self.go(c);
        }
    }

    /// The number of events that have arrived by processing time `t`.
    fn arrived_by(&self, t: f64) -> usize {
        self.scenario
            .stream
            .events
            .partition_point(|e| e.proc_time <= t)
    }

    /// The one place the playhead moves: to processing time `now`, with `arrived` events in,
    /// `finished` once the end of input has been processed, which stops playing (unless
    /// `stop` is false: leaving job mode keeps the clock as it was).
    fn place(&mut self, now: f64, arrived: usize, finished: bool, stop: bool) {
        self.playhead.now = now;
        self.playhead.arrived = arrived;
        self.playhead.finished = finished;
        if finished && stop {
            self.playhead.playing = false;
        }
    }

    fn restart(&mut self) {
        // A fresh start is a clean job: the presses go too.
        self.presses.clear();
        self.crash_pick = None;
        self.crash_closed = 0;
        let start = self.scenario.oracle.proc_time.0;
        self.place(start, self.arrived_by(start), false, false);
        self.selection.inspected = None;
        self.rerun();
    }

    /// The playhead to the end of the stream, paused. A run that keeps its own clock ends where
    /// running it ends: a big one is run there off the UI task, as a re-run would.
    fn jump_to_end(&mut self) {
        if self.trace.keeps_own_clock() && self.scenario.len() > self.inline_events {
            self.place(self.playhead.now, self.playhead.arrived, true, true);
            self.rerun();
            return;
        }
        let c = self.trace.run_to_end(self.clock());
        self.go(c);
    }

    /// Turns a dial one step, or says why it does not move.
    fn turn(&mut self, d: Dial, up: bool) -> bool {
        if d == Dial::Lag && !self.dials.has_lag() {
            return self.say(format!(
                "the {} watermark has no lag: w picks another",
                self.dials.watermark().family()
            ));
        }
        let before = self.dials;
        if self.dials.turn(d, up) {
            self.rerun();
            return true;
        }
        if self.dials != before {
            return true;
        }
        let end = if up { "highest" } else { "lowest" };
        self.say(format!("{} is already at its {end}", d.label()))
    }
}

impl AsRef<Scenario> for App {
    fn as_ref(&self) -> &Scenario {
        &self.scenario
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
            let dt = elapsed.as_secs_f64() * app.dials.speed * 1_000.0;
            let now = app.playhead.now + dt;
            let c = app.trace.play_to(app.clock(), now);
            app.go(c);
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
