//! A run the user steers: the scenario (stream and oracle), the dials' settings, whether the
//! run asked for is the single processor or the parallel job (with its shape, its outages and
//! the user's presses), the playhead, the [`Trace`] of the run to it, and the whole run's
//! score. Everything a screen shows of a run is a function of this value; the UI holds one (two
//! side by side) and keeps only what is its own (focus, selection, overlays, whether the clock
//! plays).
//!
//! Every change that needs the run made again goes through one path, [`SteeredRun::rerun`]: a
//! small input is re-run at once; a big one becomes the one pending [`PendingRerun`] (a newer one
//! replaces it and cancels the one in flight, as a single-slot async job does), which the shell
//! runs off its UI task and hands back to [`SteeredRun::finish`]; an answer that is not the
//! newest is dropped. Pure: no I/O, no clock, no threads.
//!
//! `job` opens and leaves job mode and takes the presses; `live` grows the stream as a live
//! input's rows arrive.

mod job;
mod live;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::frontier::FrontierPoint;
use crate::job_timeline::Press;
use crate::oracle::Oracle;
use crate::pipeline::{Outage, PipelineConfig};
use crate::processor::EngineConfig;
use crate::rerun::{Answer, PendingRerun, Rerun, RerunDone, RunPlan};
use crate::scenario::Scenario;
use crate::stream::Stream;
use crate::trace::{Progress, Trace};

pub use job::JobPreset;
pub use live::Growth;

/// What the dials ask the engine for: the engine's configuration and, for the parallel job,
/// its checkpoint interval and idle timeout.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// The engine's configuration (window, watermark, grace, early firing, accumulation).
    pub engine: EngineConfig,
    /// The job's checkpoint interval, ms (None: no periodic checkpoints).
    pub checkpoint_every: Option<f64>,
    /// The job's idle timeout, ms (None: a silent partition holds the watermark back).
    pub idle_timeout: Option<f64>,
}

/// A run the user steers (see the module's documentation).
#[derive(Debug, Clone)]
pub struct SteeredRun {
    scenario: Arc<Scenario>,
    settings: Settings,
    /// The run asked for is the parallel job: a choice the re-runs follow. What is drawn is
    /// the trace's (it may still be the other kind while a big re-run is pending).
    parallel: bool,
    job_preset: Option<PipelineConfig>,
    job_outages: Vec<Outage>,
    presses: Vec<Press>,
    progress: Progress,
    trace: Trace,
    score: Option<FrontierPoint>,
    /// The largest delay a live input has shown so far (a perfect watermark's lag).
    max_delay: Option<f64>,
    inline_events: usize,
    /// Numbers re-runs: only the newest one's answer is taken.
    generation: u64,
    /// Stops the re-run in flight, when a newer one replaces it.
    cancel: Option<Arc<AtomicBool>>,
    /// The re-run waiting for the shell to take it.
    queued: Option<PendingRerun>,
    /// A re-run is being computed off the UI task.
    rerunning: bool,
}

impl SteeredRun {
    /// A steered run on `scenario` with these settings, at the start of processing time, the
    /// single processor asked for. Re-runs of inputs up to `inline_events` events are made at
    /// once, of bigger ones handed out as a [`PendingRerun`] (how big an input the shell can re-run
    /// within a frame is the shell's to say); the first run is made or queued so.
    pub fn new(scenario: Arc<Scenario>, settings: Settings, inline_events: usize) -> SteeredRun {
        let trace = Trace::single_start(
            settings.engine,
            scenario.stream.clone(),
            scenario.oracle.proc_time,
        );
        let start = scenario.oracle.proc_time.0;
        let mut s = SteeredRun {
            scenario,
            settings,
            parallel: false,
            job_preset: None,
            job_outages: Vec::new(),
            presses: Vec::new(),
            progress: Progress {
                now: start,
                arrived: 0,
                finished: false,
            },
            trace,
            score: None,
            max_delay: None,
            inline_events,
            generation: 0,
            cancel: None,
            queued: None,
            rerunning: false,
        };
        s.measure_sessions();
        s.rerun();
        s
    }

    /// The scenario run: the stream and its oracle.
    pub fn scenario(&self) -> &Arc<Scenario> {
        &self.scenario
    }

    /// The events.
    pub fn stream(&self) -> &Arc<Stream> {
        &self.scenario.stream
    }

    /// What is true of the stream as a whole.
    pub fn oracle(&self) -> &Oracle {
        &self.scenario.oracle
    }

    /// The settings the run was last asked for with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The run to the playhead, whichever kind it is: what is drawn.
    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    /// Where the playhead is.
    pub fn progress(&self) -> Progress {
        self.progress
    }

    /// The whole run's score for the settings (the single processor's; None until known).
    pub fn score(&self) -> Option<FrontierPoint> {
        self.score
    }

    /// Whether the run asked for is the parallel job.
    pub fn parallel(&self) -> bool {
        self.parallel
    }

    /// What the user pressed in the job (crashes, checkpoints, partitions cut and healed), in
    /// order: with the settings and the playhead, what the job shows is a function of these.
    pub fn presses(&self) -> &[Press] {
        &self.presses
    }

    /// The job's shape given in advance (None: the default shape).
    pub fn job_preset(&self) -> Option<PipelineConfig> {
        self.job_preset
    }

    /// The job's outages given in advance, applied before the presses at every re-run.
    pub fn job_outages(&self) -> &[Outage] {
        &self.job_outages
    }

    /// A re-run is being computed off the UI task (the trace drawn is the last one).
    pub fn rerunning(&self) -> bool {
        self.rerunning
    }

    /// Re-runs of inputs bigger than this are handed out as a [`PendingRerun`].
    pub fn inline_events(&self) -> usize {
        self.inline_events
    }

    /// Re-runs of inputs bigger than `n` events are handed out as a [`PendingRerun`] from now on.
    pub fn set_inline_events(&mut self, n: usize) {
        self.inline_events = n;
    }

    /// Stops the re-run in flight, if any, and forgets the pending one (a steered run set aside).
    pub fn cancel(&mut self) {
        if let Some(c) = self.cancel.take() {
            c.store(true, Ordering::Relaxed);
        }
        self.queued = None;
        self.rerunning = false;
    }

    /// Numbers this run's re-runs after `older`'s, so that an answer to one of `older`'s
    /// is never taken by this one (a fresh steered run replacing it); cancels `older`'s re-run in
    /// flight.
    pub fn succeed(&mut self, older: &mut SteeredRun) {
        if let Some(c) = older.cancel.take() {
            c.store(true, Ordering::Relaxed);
        }
        self.generation += older.generation;
    }

    /// New settings (a dial turned): the run is made again from the start to the playhead.
    pub fn set_dials(&mut self, settings: Settings) {
        self.settings = settings;
        self.measure_sessions();
        self.rerun();
    }

    /// Sessions' truth depends on whose rules merge them: the oracle is measured again when
    /// the rules in force are not the ones it was measured under.
    fn measure_sessions(&mut self) {
        let cfg = self.settings.engine;
        if cfg.window.is_merging() && self.scenario.oracle.conventions != cfg.conventions {
            let mut scenario = (*self.scenario).clone();
            let live = (scenario.oracle.event_time, scenario.oracle.proc_time);
            scenario.oracle = Oracle::new_under(&scenario.stream, &cfg.window, cfg.conventions);
            if scenario.open {
                (scenario.oracle.event_time, scenario.oracle.proc_time) = live;
            }
            self.scenario = Arc::new(scenario);
        }
    }

    /// The number of events that have arrived by processing time `t`.
    pub fn arrived_by(&self, t: f64) -> usize {
        self.scenario
            .stream
            .events
            .partition_point(|e| e.proc_time <= t)
    }

    /// The one place the playhead moves: to processing time `now`, with `arrived` events in,
    /// `finished` once the end of input has been processed.
    pub fn place(&mut self, now: f64, arrived: usize, finished: bool) {
        self.progress = Progress {
            now,
            arrived,
            finished,
        };
    }

    /// Keeps the trace and the playhead together: a run that follows the playhead catches up
    /// with it (forward only), one that keeps its own clock takes the playhead with it.
    pub fn follow(&mut self) {
        if let Some(c) = self.trace.catch_up(self.progress) {
            self.progress = c;
        }
    }

    /// Plays the run on to processing time `to` (a job keeps its own clock and may stop
    /// elsewhere). Returns the playhead.
    pub fn play_to(&mut self, to: f64) -> Progress {
        self.progress = self.trace.play_to(self.progress, to);
        self.progress
    }

    /// One event on (or, for the job, one step). Returns the playhead, or None at the end.
    pub fn step(&mut self) -> Option<Progress> {
        let c = self.trace.step(self.progress)?;
        self.progress = c;
        Some(c)
    }

    /// Runs on, one event at a time, until a late or dropped event arrives (the playhead left
    /// where it is, for the caller to move to it): [`Trace::run_to_next_exception`].
    pub fn run_to_next_exception(&mut self) -> Option<usize> {
        self.trace.run_to_next_exception()
    }

    /// The playhead to the end of the stream. A run that keeps its own clock ends where running
    /// it ends: a big one is re-run there as a [`PendingRerun`].
    pub fn run_to_end(&mut self) -> Progress {
        if self.trace.keeps_own_clock() && self.scenario.len() > self.inline_events {
            self.progress.finished = true;
            self.rerun();
            return self.progress;
        }
        self.progress = self.trace.run_to_end(self.progress);
        self.progress
    }

    /// Back to the start of processing time with a clean job (the presses go too), re-run.
    pub fn restart(&mut self) {
        self.presses.clear();
        let start = self.scenario.oracle.proc_time.0;
        self.place(start, self.arrived_by(start), false);
        self.rerun();
    }

    /// Makes the run again from the start to the playhead with the settings as they are: the
    /// parallel job when that is the run asked for, else the single processor. For a big input
    /// the run drawn until the answer is the last one, or an empty one of the kind asked for.
    pub fn rerun(&mut self) {
        if self.parallel {
            self.rerun_job(false);
            return;
        }
        let cfg = self.settings.engine;
        let open = self.scenario.open;
        let rerun = Rerun {
            stream: self.scenario.stream.clone(),
            truth: self.scenario.oracle.truth.clone(),
            plan: RunPlan::Single {
                cfg,
                open,
                span: self.scenario.oracle.proc_time,
            },
            arrived: self.progress.arrived,
            now: self.progress.now,
            finish: self.progress.finished,
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

    /// Starts `rerun`, replacing any older one: at once for a small input (or with `inline`),
    /// else as the pending [`PendingRerun`], the run drawn until then staying.
    fn launch(&mut self, rerun: Rerun, inline: bool) {
        if let Some(c) = self.cancel.take() {
            c.store(true, Ordering::Relaxed);
        }
        self.queued = None;
        self.generation += 1;
        if inline || self.scenario.len() <= self.inline_events {
            self.rerunning = false;
            // Never cancelled, so always answered.
            if let Some(a) = rerun.run(&AtomicBool::new(false)) {
                self.take_answer(a);
            }
            return;
        }
        let cancel = Arc::new(AtomicBool::new(false));
        self.cancel = Some(cancel.clone());
        self.rerunning = true;
        self.queued = Some(PendingRerun {
            generation: self.generation,
            rerun: Box::new(rerun),
            cancel,
        });
    }

    /// The pending re-run, for the shell to run off its UI task ([`PendingRerun::perform`]) and
    /// hand back to [`SteeredRun::finish`].
    pub fn take_pending(&mut self) -> Option<PendingRerun> {
        self.queued.take()
    }

    /// Takes a re-run's answer if it is the newest asked for. Returns whether it was taken.
    pub fn finish(&mut self, done: RerunDone) -> bool {
        match done {
            RerunDone::Answered { generation, answer } => {
                if generation != self.generation {
                    return false;
                }
                self.rerunning = false;
                self.cancel = None;
                self.take_answer(answer);
                true
            }
            RerunDone::Cancelled { .. } => false,
        }
    }

    /// A re-run's answer replaces the run drawn (a single run's score the score), and the two
    /// clocks meet ([`SteeredRun::follow`]); a job that could not be built leaves job mode for the
    /// single processor.
    fn take_answer(&mut self, a: Answer) {
        if !a.is_job() {
            self.score = a.score;
        }
        match a.trace {
            Ok(t) => {
                self.trace = t;
                self.follow();
            }
            Err(_) => self.leave_refused_job(),
        }
    }

    fn leave_refused_job(&mut self) {
        self.parallel = false;
        self.rerun();
    }
}
