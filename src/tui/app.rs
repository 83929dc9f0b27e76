//! The UI's state and its one update function. State = (scenario, dials, playhead, selection,
//! overlay, the job's presses) plus what the engine answered for them (the timeline, the
//! frontier, and in job mode the parallel job's [`JobTimeline`]). `update` is
//! pure: it takes the elapsed time as an argument, never reads a clock, and does engine work
//! either inline or, for big inputs, as [`Work`] the event loop runs off the UI task: a dial
//! change re-runs the engine (single processor or job) there while the last result stays
//! drawn, marked re-running; a newer change cancels the older run, whose result is dropped.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::engine::frontier::{FrontierPoint, POLICIES};
use crate::engine::job_timeline::{Intervention, JobTimeline, Press};
use crate::engine::pipeline::{CrashTarget, PipelineConfig, PipelineError};
use crate::engine::stream::Stream;
use crate::engine::timeline::{score_point, Frontier, Timeline};
use crate::engine::{EngineConfig, KeyId, WatermarkKind, WindowFn};

pub use super::dials::{
    Dial, Dials, CHECKPOINT_MAX, CHECKPOINT_STEP, EARLY_MAX, EARLY_STEP, FAMILIES, GRACE_MAX,
    GRACE_STEP, LAG_MAX, LAG_STEP, SPEEDS,
};

use super::scenario::Scenario;
use super::theme::Theme;
use super::view::layout::Areas;
use super::view::{dials as dials_view, frontier as frontier_view, plot, windows as windows_view};

/// A user intent, as the keymap names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    TogglePlay,
    Step,
    Faster,
    Slower,
    Restart,
    JumpToEnd,
    FocusNext,
    FocusPrev,
    DialDown,
    DialUp,
    LagDown,
    LagUp,
    GraceDown,
    GraceUp,
    EarlyDown,
    EarlyUp,
    CycleWatermark,
    CycleAccumulation,
    /// Index into the engine's `POLICIES`.
    Policy(u8),
    WindowPrev,
    WindowNext,
    CycleKey,
    Inspect,
    /// The plot shows only late and dropped events, or every event.
    PlotFilter,
    /// The playhead to the next late or dropped event, the inspector open on it.
    NextException,
    /// The playhead back to the previous late or dropped event, the inspector open on it.
    PrevException,
    /// Job mode on or off: the parallel pipeline with checkpoints instead of one processor.
    ToggleJob,
    /// Crash the job now (or, while one is picked, that operator instance).
    Crash,
    /// Pick the next operator instance to crash (confirmed with `Crash`).
    PickOperator,
    /// Take a checkpoint now.
    CheckpointNow,
    Help,
    Close,
    Quit,
}

/// Everything `update` reacts to.
#[derive(Debug)]
pub enum Msg {
    Action(Action),
    /// The simulation clock moved on by the `elapsed` given to `update`.
    Tick,
    Resize(u16, u16),
    /// A mouse press at (column, row).
    Click(u16, u16),
    /// A mouse drag at (column, row).
    Drag(u16, u16),
    /// Engine work finished off the UI task.
    Done(Box<Done>),
    /// The status message with this number has been shown for [`STATUS_FOR`].
    StatusExpired(u64),
}

/// How long a status message stays in the footer.
pub const STATUS_FOR: Duration = Duration::from_secs(3);

/// A short message in the footer, for a moment: why a key did nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// Numbers messages, so that only the newest one's expiry clears it.
    pub seq: u64,
    pub text: String,
}

/// Where the simulation is in processing time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Playhead {
    /// Processing time now, ms.
    pub now: f64,
    /// Events that have arrived by `now`.
    pub arrived: usize,
    pub playing: bool,
    /// The end of input has been processed.
    pub finished: bool,
}

/// What the user has picked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Selection {
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
    Help,
}

/// The frontier of one (window, watermark family), once computed.
#[derive(Debug, Clone)]
pub struct FrontierEntry {
    pub window: WindowFn,
    pub family: &'static str,
    /// None while it is being computed; Some(None) when the family has no lag to sweep.
    pub frontier: Option<Option<Arc<Frontier>>>,
}

/// Engine work for the event loop to run off the UI task.
#[derive(Debug, Clone)]
pub enum Work {
    /// Re-run the timeline to the playhead and score the whole run, for these dials.
    Rerun {
        generation: u64,
        scenario: Arc<Scenario>,
        cfg: EngineConfig,
        arrived: usize,
        finish: bool,
        /// Set when a newer dial change makes this run useless: it stops.
        cancel: Arc<AtomicBool>,
    },
    /// Re-run the job from the start with the presses, to processing time `now` (to its end
    /// with `to_end`).
    RerunJob {
        generation: u64,
        stream: Arc<Stream>,
        cfg: PipelineConfig,
        presses: Vec<Press>,
        now: f64,
        to_end: bool,
        cancel: Arc<AtomicBool>,
    },
    /// Sweep the frontier for this configuration's window and family.
    Frontier {
        scenario: Arc<Scenario>,
        cfg: EngineConfig,
    },
}

/// What finished engine work answered.
#[derive(Debug)]
pub enum Done {
    Rerun {
        generation: u64,
        timeline: Box<Timeline>,
        score: FrontierPoint,
    },
    RerunJob {
        generation: u64,
        job: Result<Box<JobTimeline>, PipelineError>,
    },
    /// A re-run stopped because a newer one replaced it.
    Cancelled { generation: u64 },
    Frontier {
        window: WindowFn,
        family: &'static str,
        frontier: Option<Frontier>,
    },
}

impl Work {
    /// Does the work (pure; may take a while).
    pub fn perform(self) -> Done {
        match self {
            Work::Rerun {
                generation,
                scenario,
                cfg,
                arrived,
                finish,
                cancel,
            } => {
                let Some(timeline) = run_timeline(cfg, &scenario.stream, arrived, finish, &cancel)
                else {
                    return Done::Cancelled { generation };
                };
                // Scoring mid-stream is one more run: not when the result is already stale.
                if cancel.load(Ordering::Relaxed) {
                    return Done::Cancelled { generation };
                }
                let score = timeline
                    .final_score(&scenario.truth)
                    .unwrap_or_else(|| score_point(&scenario.stream, &scenario.truth, cfg));
                Done::Rerun {
                    generation,
                    timeline: Box::new(timeline),
                    score,
                }
            }
            Work::RerunJob {
                generation,
                stream,
                cfg,
                presses,
                now,
                to_end,
                cancel,
            } => match run_job(stream, cfg, &presses, now, to_end, &cancel) {
                Some(job) => Done::RerunJob {
                    generation,
                    job: job.map(Box::new),
                },
                None => Done::Cancelled { generation },
            },
            Work::Frontier { scenario, cfg } => Done::Frontier {
                window: cfg.window,
                family: cfg.watermark.family(),
                frontier: Frontier::compute(&scenario.stream, cfg),
            },
        }
    }
}

/// A re-run checks whether it was cancelled every this many events.
const CANCEL_EVERY_EVENTS: usize = 16_384;
/// A job re-run checks whether it was cancelled this many times over the stream's span.
const CANCEL_CHECKS_PER_SPAN: f64 = 512.0;

/// [`Timeline::run_to`], in slices, stopping (None) once `cancel` is set.
pub fn run_timeline(
    cfg: EngineConfig,
    stream: &Stream,
    arrived: usize,
    finish: bool,
    cancel: &AtomicBool,
) -> Option<Timeline> {
    let mut t = Timeline::new(cfg, stream);
    let target = arrived.min(stream.len());
    while t.arrived() < target {
        if cancel.load(Ordering::Relaxed) {
            return None;
        }
        let next = (t.arrived() + CANCEL_EVERY_EVENTS).min(target);
        t.advance_to(stream, next, false);
        if t.is_finished() {
            break;
        }
    }
    t.advance_to(stream, arrived, finish);
    Some(t)
}

/// [`JobTimeline::run_to`] (then to the job's end with `to_end`), in slices of processing
/// time, stopping (None) once `cancel` is set. Advancing to t₁ and then to t₂ steps exactly as
/// advancing to t₂ does, so the slices change nothing.
pub fn run_job(
    stream: Arc<Stream>,
    cfg: PipelineConfig,
    presses: &[Press],
    now: f64,
    to_end: bool,
    cancel: &AtomicBool,
) -> Option<Result<JobTimeline, PipelineError>> {
    let span = stream
        .events
        .first()
        .zip(stream.events.last())
        .map_or(0.0, |(a, b)| b.proc_time - a.proc_time);
    let slice = (span / CANCEL_CHECKS_PER_SPAN).max(1.0);
    let end = stream.events.last().map_or(0.0, |e| e.proc_time);
    let mut j = match JobTimeline::new(stream, cfg) {
        Ok(j) => j,
        Err(e) => return Some(Err(e)),
    };
    let advance = |j: &mut JobTimeline, t: f64| -> bool {
        while j.now() < t {
            if cancel.load(Ordering::Relaxed) {
                return false;
            }
            let next = (j.now() + slice).min(t);
            j.advance_to(next);
        }
        // As the one call would: whatever is due by `t` (after a crash too).
        j.advance_to(t);
        true
    };
    for p in presses {
        if !advance(&mut j, p.time) {
            return None;
        }
        j.press(p.what);
    }
    if !advance(&mut j, now) {
        return None;
    }
    if to_end {
        // What is still in flight after the last arrival drains in slices too; past the
        // stream's end plus a span, the rest is run at once.
        let stop = end + span.max(slice);
        while !j.is_finished() && j.now() < stop {
            let t = j.now() + slice;
            if !advance(&mut j, t) {
                return None;
            }
        }
        j.run_to_end();
    }
    Some(Ok(j))
}

/// The job's source partitions, P.
pub const JOB_PARTITIONS: usize = 2;
/// The job's keyed window operator instances, N.
pub const JOB_OPERATORS: usize = 4;
/// The seed of the job's channel transit times.
pub const JOB_SEED: u64 = 1;

/// Streams up to this many events are re-run inline (well under a frame); bigger ones off the
/// UI task.
pub const INLINE_EVENTS: usize = 250_000;

/// The whole UI state. Cloning it is cheap apart from the timeline (the stream is shared).
#[derive(Debug, Clone)]
pub struct App {
    pub scenario: Arc<Scenario>,
    pub dials: Dials,
    pub playhead: Playhead,
    pub selection: Selection,
    pub overlay: Option<Overlay>,
    /// How far the help overlay is scrolled, when it does not fit.
    pub help_scroll: usize,
    /// The plot draws only late and dropped events.
    pub plot_exceptions_only: bool,
    pub theme: Theme,
    /// The engine's answer for the dials up to the playhead.
    pub timeline: Timeline,
    /// The whole run's score for the dials (None until known).
    pub score: Option<FrontierPoint>,
    pub frontiers: Vec<FrontierEntry>,
    /// Job mode: the parallel job run to the playhead (None: the single processor's view).
    pub job: Option<Box<JobTimeline>>,
    /// The job's shape given on the command line (partitions, operators, barriers, seed,
    /// transit); None: [`JOB_PARTITIONS`], [`JOB_OPERATORS`], [`JOB_SEED`].
    pub job_preset: Option<PipelineConfig>,
    /// What the user pressed in the job (crashes, checkpoints), in order: with the dials and
    /// the playhead, what the job shows is a function of these.
    pub presses: Vec<Press>,
    /// The operator instance picked to crash (`C`), waiting for `c`.
    pub crash_pick: Option<usize>,
    /// The crash report is closed for the first this many crashes (Esc); a new crash opens it.
    pub crash_closed: usize,
    /// The terminal's size, for mouse hit-testing against the same layout the view draws.
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
    pub quit: bool,
}

impl App {
    pub fn new(scenario: Scenario, dials: Dials, theme: Theme) -> App {
        let scenario = Arc::new(scenario);
        let timeline = Timeline::new(dials.config(), &scenario.stream);
        let window = if scenario.windows.len() > 3 { 3 } else { 0 };
        let key = if scenario.keys() > 0 { Some(0) } else { None };
        let mut app = App {
            scenario,
            dials,
            playhead: Playhead {
                now: 0.0,
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
            timeline,
            score: None,
            frontiers: Vec::new(),
            job: None,
            job_preset: None,
            presses: Vec::new(),
            crash_pick: None,
            crash_closed: 0,
            size: (120, 40),
            rerunning: false,
            inline_events: INLINE_EVENTS,
            status: None,
            status_seq: 0,
            generation: 0,
            cancel: None,
            work: Vec::new(),
            quit: false,
        };
        app.playhead.now = app.scenario.proc_time.0;
        app.rerun();
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

    /// Whether the simulation clock runs: playing, with nothing over the panels and no
    /// re-run pending (the playhead waits for the dials' answer).
    pub fn clock_runs(&self) -> bool {
        self.playhead.playing && self.overlay.is_none() && !self.rerunning
    }

    /// Engine work queued by updates, for the event loop to run.
    pub fn take_work(&mut self) -> Vec<Work> {
        std::mem::take(&mut self.work)
    }

    /// A new re-run replaces any older one: the older stops and its result will be dropped.
    /// Returns its number and cancel flag.
    fn next_rerun(&mut self) -> (u64, Arc<AtomicBool>) {
        if let Some(c) = self.cancel.take() {
            c.store(true, Ordering::Relaxed);
        }
        self.work
            .retain(|w| !matches!(w, Work::Rerun { .. } | Work::RerunJob { .. }));
        self.generation += 1;
        let cancel = Arc::new(AtomicBool::new(false));
        self.cancel = Some(cancel.clone());
        (self.generation, cancel)
    }

    /// Runs all queued work inline, to completion (tests and small inputs).
    pub fn settle(&mut self) {
        loop {
            let work = self.take_work();
            if work.is_empty() {
                break;
            }
            for w in work {
                let done = w.perform();
                update(self, Msg::Done(Box::new(done)), Duration::ZERO);
            }
        }
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

    fn request_frontier(&mut self) {
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
        });
        self.work.push(Work::Frontier {
            scenario: self.scenario.clone(),
            cfg,
        });
    }

    /// The parallel job's configuration for the dials.
    pub fn job_config(&self) -> PipelineConfig {
        let shape = self.job_preset.unwrap_or(PipelineConfig {
            partitions: JOB_PARTITIONS,
            parallelism: JOB_OPERATORS,
            seed: JOB_SEED,
            ..PipelineConfig::new(self.dials.config())
        });
        PipelineConfig {
            engine: self.dials.config(),
            checkpoint_every: self.dials.checkpoint_every,
            ..shape
        }
    }

    /// Opens job mode on a job of this shape; its checkpoint interval presets the dial.
    pub fn open_job(&mut self, preset: PipelineConfig) {
        self.job_preset = Some(preset);
        self.dials.checkpoint_every = preset.checkpoint_every;
        if self.job.is_some() {
            self.rerun_job(false);
        } else {
            self.set_job_mode(true, false);
        }
    }

    /// Re-runs the job from the start to the playhead (to its end once the playhead has
    /// finished), applying the presses at their points. A big input is re-run off the UI
    /// task unless `inline`: the job drawn until then is the last one (an empty one when job
    /// mode is just being entered).
    fn rerun_job(&mut self, inline: bool) {
        let start = self.scenario.proc_time.0;
        let (generation, cancel) = self.next_rerun();
        let now = self.playhead.now.max(start);
        let to_end = self.playhead.finished;
        let cfg = self.job_config();
        if inline || self.scenario.len() <= self.inline_events {
            self.rerunning = false;
            self.cancel = None;
            let never = AtomicBool::new(false);
            // Never cancelled, so always Some.
            if let Some(job) = run_job(
                self.scenario.stream.clone(),
                cfg,
                &self.presses,
                now,
                to_end,
                &never,
            ) {
                self.take_job(job);
            }
            return;
        }
        if self.job.is_none() {
            match JobTimeline::new(self.scenario.stream.clone(), cfg) {
                Ok(j) => self.job = Some(Box::new(j)),
                Err(_) => return,
            }
        }
        self.rerunning = true;
        self.work.push(Work::RerunJob {
            generation,
            stream: self.scenario.stream.clone(),
            cfg,
            presses: self.presses.clone(),
            now,
            to_end,
            cancel,
        });
    }

    /// A re-run job replaces the one drawn; the playhead follows it.
    fn take_job(&mut self, job: Result<JobTimeline, PipelineError>) {
        match job {
            Ok(j) => {
                self.sync_job_playhead(&j);
                self.job = Some(Box::new(j));
            }
            Err(_) => self.job = None,
        }
    }

    /// The playhead follows the job's clock (back with a crash, on with the replay).
    fn sync_job_playhead(&mut self, j: &JobTimeline) {
        self.playhead.now = j.now();
        self.playhead.arrived = self.arrived_by(j.now());
        self.playhead.finished = j.is_finished();
        if j.is_finished() {
            self.playhead.playing = false;
        }
    }

    fn with_job(&mut self, f: impl FnOnce(&mut JobTimeline)) {
        if let Some(mut j) = self.job.take() {
            f(&mut j);
            self.sync_job_playhead(&j);
            self.job = Some(j);
        }
    }

    /// Into job mode (the job re-run to the playhead, or to its end once the playhead has
    /// finished; off the UI task for a big input unless `inline`), or out of it (the single
    /// processor re-run to the same processing time).
    fn set_job_mode(&mut self, on: bool, inline: bool) {
        if on == self.job.is_some() {
            return;
        }
        self.crash_pick = None;
        self.crash_closed = 0;
        self.selection.inspected = None;
        if on {
            self.rerun_job(inline);
        } else {
            self.job = None;
            if !Dial::ALL.contains(&self.selection.focus) {
                self.selection.focus = Dial::Lag;
            }
            let now = self.playhead.now;
            self.playhead.arrived = self.arrived_by(now);
            self.playhead.finished =
                self.playhead.arrived >= self.scenario.len() && now >= self.scenario.proc_time.1;
            self.rerun();
        }
    }

    /// Applies a press to the job at the playhead and keeps it (job mode is entered first).
    fn press(&mut self, what: Intervention) -> bool {
        self.set_job_mode(true, true);
        let mut done = false;
        self.with_job(|j| done = j.press(what));
        if done {
            self.presses = self
                .job
                .as_ref()
                .map_or(Vec::new(), |j| j.presses().to_vec());
        }
        done
    }

    /// Re-runs the engine from the start to the playhead with the dials as they are now.
    fn rerun(&mut self) {
        if self.job.is_some() {
            self.rerun_job(false);
            return;
        }
        self.request_frontier();
        let cfg = self.dials.config();
        let (generation, cancel) = self.next_rerun();
        if self.scenario.len() <= self.inline_events {
            self.cancel = None;
            self.timeline = Timeline::run_to(
                cfg,
                &self.scenario.stream,
                self.playhead.arrived,
                self.playhead.finished,
            );
            self.score = Some(
                self.timeline
                    .final_score(&self.scenario.truth)
                    .unwrap_or_else(|| {
                        score_point(&self.scenario.stream, &self.scenario.truth, cfg)
                    }),
            );
            self.rerunning = false;
        } else {
            self.rerunning = true;
            self.work.push(Work::Rerun {
                generation,
                scenario: self.scenario.clone(),
                cfg,
                arrived: self.playhead.arrived,
                finish: self.playhead.finished,
                cancel,
            });
        }
    }

    /// Brings the timeline up to the playhead (forward only).
    fn catch_up(&mut self) {
        self.timeline.advance_to(
            &self.scenario.stream,
            self.playhead.arrived,
            self.playhead.finished,
        );
    }

    fn arrived_by(&self, t: f64) -> usize {
        self.scenario
            .stream
            .events
            .partition_point(|e| e.proc_time <= t)
    }

    fn move_to(&mut self, now: f64) {
        let len = self.scenario.len();
        let last = self.scenario.proc_time.1;
        self.playhead.now = now.min(last).max(self.scenario.proc_time.0);
        self.playhead.arrived = self.arrived_by(self.playhead.now);
        if self.playhead.arrived >= len && now >= last {
            self.playhead.arrived = len;
            self.playhead.finished = true;
            self.playhead.playing = false;
        }
        self.catch_up();
    }

    fn restart(&mut self) {
        // A fresh start is a clean job: the presses go too.
        self.presses.clear();
        self.crash_pick = None;
        self.crash_closed = 0;
        self.playhead = Playhead {
            now: self.scenario.proc_time.0,
            arrived: 0,
            playing: self.playhead.playing,
            finished: false,
        };
        self.selection.inspected = None;
        self.playhead.arrived = self.arrived_by(self.playhead.now);
        self.rerun();
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

    /// The newest arrived event, if any.
    fn newest(&self) -> Option<usize> {
        self.timeline.arrived().checked_sub(1)
    }

    /// The inspector to the event before or after the inspected one (among those arrived).
    fn inspect_step(&mut self, i: usize, forward: bool) -> bool {
        let n = self.timeline.arrived();
        let next = if forward {
            (i + 1 < n).then_some(i + 1)
        } else {
            i.checked_sub(1)
        };
        match next {
            Some(j) => {
                self.selection.inspected = Some(j);
                true
            }
            None if forward => self.say("the newest event: > finds the next late or dropped"),
            None => self.say("the first event of the stream"),
        }
    }

    /// The playhead paused on event `offset` (it has just arrived), the inspector open on it.
    fn seek(&mut self, offset: usize) {
        let e = self.scenario.stream.events[offset];
        self.playhead.playing = false;
        self.playhead.finished = false;
        self.playhead.now = e.proc_time;
        self.playhead.arrived = offset + 1;
        self.selection.inspected = Some(offset);
        if self.timeline.arrived() <= offset + 1 && !self.timeline.is_finished() {
            self.catch_up();
        } else {
            self.rerun();
        }
    }

    /// `>` and `<`: the next or previous late or dropped event after or before the inspected
    /// one (the newest arrived when none is). Forward, the engine runs on until one arrives;
    /// with none left the playhead stops at the end.
    fn jump_exception(&mut self, forward: bool) -> bool {
        if self.job.is_some() {
            return self.say("< and > need the single processor: j leaves job mode");
        }
        if self.rerunning {
            return self.say("re-running for the new dials: a moment");
        }
        let cur = self.selection.inspected.or_else(|| self.newest());
        let ex = self.timeline.exceptions();
        if !forward {
            let before = cur.map_or(0, |c| ex.partition_point(|e| e.offset < c));
            return match before.checked_sub(1).map(|k| ex[k].offset) {
                Some(offset) => {
                    self.seek(offset);
                    true
                }
                None => self.say("no late or dropped event before this one"),
            };
        }
        let after = ex.partition_point(|e| cur.is_some_and(|c| e.offset <= c));
        if let Some(offset) = ex.get(after).map(|e| e.offset) {
            self.seek(offset);
            return true;
        }
        // None has arrived yet: run on, one event at a time, until one does.
        let stream = self.scenario.stream.clone();
        let seen = ex.len();
        while self.timeline.arrived() < stream.len() && self.timeline.exceptions().len() == seen {
            let next = self.timeline.arrived() + 1;
            self.timeline.advance_to(&stream, next, false);
        }
        if let Some(offset) = self.timeline.exceptions().get(seen).map(|e| e.offset) {
            self.seek(offset);
            return true;
        }
        self.selection.inspected = None;
        self.jump_to_end();
        self.say("no late or dropped event left: at the end")
    }

    fn jump_to_end(&mut self) {
        let end = self.scenario.proc_time.1;
        self.move_to(end);
        self.playhead.arrived = self.scenario.len();
        self.playhead.finished = true;
        self.playhead.playing = false;
        self.catch_up();
    }

    fn click(&mut self, col: u16, row: u16, drag: bool) -> bool {
        let areas = Areas::compute_for(self.size, self.job.is_some());
        let Some(areas) = areas else {
            return false;
        };
        if self.overlay.is_some() {
            return false;
        }
        let order = Dial::order(self.job.is_some());
        if let Some((dial, r)) = dials_view::hit(areas.dials, order, col, row) {
            self.selection.focus = dial;
            if self.dials.set_ratio(dial, r) {
                self.rerun();
            }
            return true;
        }
        if drag {
            return false;
        }
        if let Some((lag, grace)) = areas
            .frontier
            .and_then(|a| frontier_view::hit(self, a, col, row))
        {
            let before = self.dials;
            self.dials.lag = lag;
            self.dials.grace = grace;
            if self.dials.engine_changed(&before) {
                self.rerun();
            }
            return true;
        }
        if let Some(w) = windows_view::hit(self, areas.windows, col, row) {
            self.selection.window = w;
            return true;
        }
        if let Some(i) = areas
            .topology
            .and_then(|a| super::view::topology::hit(self, a, col, row))
        {
            self.crash_pick = Some(i);
            return true;
        }
        if self.job.is_some() {
            return false;
        }
        let frame = plot::PlotFrame::of(self, areas.plot);
        if let Some(at) = frame.and_then(|f| f.to_data(col, row).map(|at| (f, at))) {
            let (f, at) = at;
            if let Some(i) = self
                .timeline
                .nearest(&self.scenario.stream, at, f.cell_size())
            {
                self.selection.inspected = Some(i);
                return true;
            }
        }
        false
    }
}

/// Applies one message to the state; `elapsed` is the real time a `Tick` covers. Returns
/// whether anything on screen changed.
pub fn update(app: &mut App, msg: Msg, elapsed: Duration) -> bool {
    match msg {
        Msg::Tick => {
            if !app.clock_runs() {
                return false;
            }
            let dt = elapsed.as_secs_f64() * app.dials.speed * 1_000.0;
            let now = app.playhead.now + dt;
            if app.job.is_some() {
                app.with_job(|j| j.advance_to(now));
                return true;
            }
            app.move_to(now);
            true
        }
        Msg::Resize(w, h) => {
            app.size = (w, h);
            true
        }
        Msg::Click(c, r) => app.click(c, r, false),
        Msg::Drag(c, r) => app.click(c, r, true),
        Msg::Done(done) => match *done {
            Done::Rerun {
                generation,
                timeline,
                score,
            } => {
                if generation != app.generation || app.job.is_some() {
                    return false;
                }
                app.timeline = *timeline;
                app.score = Some(score);
                app.rerunning = false;
                app.cancel = None;
                app.catch_up();
                true
            }
            Done::RerunJob { generation, job } => {
                if generation != app.generation || app.job.is_none() {
                    return false;
                }
                app.rerunning = false;
                app.cancel = None;
                app.take_job(job.map(|j| *j));
                true
            }
            Done::Cancelled { .. } => false,
            Done::Frontier {
                window,
                family,
                frontier,
            } => {
                if let Some(e) = app
                    .frontiers
                    .iter_mut()
                    .find(|e| e.window == window && e.family == family)
                {
                    e.frontier = Some(frontier.map(Arc::new));
                }
                true
            }
        },
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
            act(app, a) | had
        }
    }
}

fn act(app: &mut App, a: Action) -> bool {
    if app.overlay.is_some() {
        return match a {
            Action::Help | Action::Close => {
                app.overlay = None;
                true
            }
            Action::FocusNext => {
                app.help_scroll = (app.help_scroll + 1).min(64);
                true
            }
            Action::FocusPrev => {
                let before = app.help_scroll;
                app.help_scroll = app.help_scroll.saturating_sub(1);
                before != app.help_scroll
            }
            Action::Quit => {
                app.quit = true;
                true
            }
            _ => app.say("the help is open: Esc or ? closes it"),
        };
    }
    match a {
        Action::TogglePlay => {
            if app.playhead.finished && !app.playhead.playing {
                app.restart();
            }
            app.playhead.playing = !app.playhead.playing;
            true
        }
        Action::Step | Action::JumpToEnd | Action::Crash | Action::CheckpointNow
            if app.job.is_some() && app.rerunning =>
        {
            app.say("the job is re-running for the new dials: a moment")
        }
        Action::Step if app.playhead.playing => app.say("pause (Space) to step one at a time"),
        Action::Step if app.playhead.finished => app.say("the end of the stream: Home restarts"),
        Action::JumpToEnd if app.playhead.finished => {
            app.say("already at the end of the stream: Home restarts")
        }
        Action::Step if app.job.is_some() => {
            let mut moved = false;
            app.with_job(|j| moved = j.step_once());
            moved || app.say("the job has finished: Home restarts")
        }
        Action::JumpToEnd if app.job.is_some() => {
            if app.scenario.len() > app.inline_events {
                // A big job runs to its end off the UI task, as a re-run would.
                app.playhead.playing = false;
                app.playhead.finished = true;
                app.rerun_job(false);
                return true;
            }
            app.with_job(|j| j.run_to_end());
            true
        }
        Action::ToggleJob => {
            let on = app.job.is_none();
            app.set_job_mode(on, false);
            true
        }
        Action::Crash => {
            let target = app
                .crash_pick
                .take()
                .map_or(CrashTarget::Job, CrashTarget::Operator);
            if !app.press(Intervention::Crash(target)) {
                app.say("the job has finished: nothing left to crash (Home restarts)");
            }
            true
        }
        Action::PickOperator => {
            app.set_job_mode(true, false);
            let n = app
                .job
                .as_ref()
                .map_or(1, |j| j.config().parallelism.max(1));
            app.crash_pick = Some(app.crash_pick.map_or(0, |i| (i + 1) % n));
            true
        }
        Action::CheckpointNow => {
            if !app.press(Intervention::Checkpoint) {
                app.say("every source has ended: no checkpoint left to take");
            }
            true
        }
        Action::Step => {
            let len = app.scenario.len();
            if app.playhead.arrived < len {
                let t = app.scenario.stream.events[app.playhead.arrived].proc_time;
                app.playhead.now = t.max(app.playhead.now);
                app.playhead.arrived += 1;
            } else {
                app.playhead.finished = true;
            }
            app.catch_up();
            true
        }
        Action::Faster => app.turn(Dial::Speed, true),
        Action::Slower => app.turn(Dial::Speed, false),
        Action::Restart => {
            app.restart();
            true
        }
        Action::JumpToEnd => {
            app.jump_to_end();
            true
        }
        Action::FocusNext => {
            let order = Dial::order(app.job.is_some());
            let i = app.selection.focus.index();
            app.selection.focus = order[(i + 1) % order.len()];
            true
        }
        Action::FocusPrev => {
            let order = Dial::order(app.job.is_some());
            let i = app.selection.focus.index().min(order.len() - 1);
            app.selection.focus = order[(i + order.len() - 1) % order.len()];
            true
        }
        Action::DialDown | Action::DialUp if app.selection.inspected.is_some() => {
            let i = app.selection.inspected.unwrap_or(0);
            app.inspect_step(i, a == Action::DialUp)
        }
        Action::DialDown => app.turn(app.selection.focus, false),
        Action::DialUp => app.turn(app.selection.focus, true),
        Action::LagDown => app.turn(Dial::Lag, false),
        Action::LagUp => app.turn(Dial::Lag, true),
        Action::GraceDown => app.turn(Dial::Grace, false),
        Action::GraceUp => app.turn(Dial::Grace, true),
        Action::EarlyDown => app.turn(Dial::Early, false),
        Action::EarlyUp => app.turn(Dial::Early, true),
        Action::CycleWatermark => app.turn(Dial::Watermark, true),
        Action::CycleAccumulation => app.turn(Dial::Accumulation, true),
        Action::Policy(i) => {
            let Some(p) = POLICIES.get(i as usize) else {
                return false;
            };
            let before = app.dials;
            app.dials.family = 1;
            app.dials.kinds[1] = WatermarkKind::Fixed { lag: p.lag };
            app.dials.lag = p.lag;
            app.dials.grace = p.grace;
            if !app.dials.engine_changed(&before) {
                return app.say(format!("the dials already are the {} policy's", p.name));
            }
            app.rerun();
            true
        }
        Action::WindowPrev => {
            if app.selection.window == 0 {
                return app.say("this is the first window");
            }
            app.selection.window -= 1;
            true
        }
        Action::WindowNext => {
            let n = app.scenario.windows.len();
            if app.selection.window + 1 >= n {
                return app.say("this is the last window");
            }
            app.selection.window += 1;
            true
        }
        Action::CycleKey => {
            let keys = app.scenario.keys() as KeyId;
            app.selection.key = match app.selection.key {
                Some(k) if k + 1 < keys => Some(k + 1),
                Some(_) => None,
                None if keys > 0 => Some(0),
                None => return app.say("this stream has no keys"),
            };
            true
        }
        Action::Inspect if app.job.is_some() => {
            app.say("the inspector needs the single processor: j leaves job mode")
        }
        Action::Inspect => {
            app.selection.inspected = match app.selection.inspected {
                Some(_) => None,
                None => match app.newest() {
                    Some(i) => Some(i),
                    None => return app.say("no event has arrived yet: Space plays, . steps"),
                },
            };
            true
        }
        Action::PlotFilter => {
            app.plot_exceptions_only = !app.plot_exceptions_only;
            true
        }
        Action::NextException => app.jump_exception(true),
        Action::PrevException => app.jump_exception(false),
        Action::Help => {
            app.overlay = Some(Overlay::Help);
            app.help_scroll = 0;
            true
        }
        Action::Close => {
            let crashes = app.job.as_ref().map_or(0, |j| j.crashes().len());
            let had = app.selection.inspected.is_some()
                || app.crash_pick.is_some()
                || crashes > app.crash_closed;
            app.selection.inspected = None;
            app.crash_pick = None;
            app.crash_closed = crashes;
            had || app.say("nothing to close")
        }
        Action::Quit => {
            app.quit = true;
            true
        }
    }
}
