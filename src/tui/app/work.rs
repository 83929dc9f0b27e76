//! Engine work the UI hands to its event loop: a re-run of the single processor or of the job
//! from the start for new dials, and the frontier sweep. Big inputs are re-run off the UI task
//! in slices, so a newer dial change can cancel an older run; the result of a cancelled or
//! superseded run is dropped. Small inputs are re-run inline, through the same functions.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::engine::advice::{choose_on_frontier, DEFAULT_TARGET};
use crate::engine::frontier::FrontierPoint;
use crate::engine::frontier::{score_point, Frontier};
use crate::engine::job_timeline::{JobTimeline, Press};
use crate::engine::pipeline::{PipelineConfig, PipelineError};
use crate::engine::stream::Stream;
use crate::engine::timeline::Timeline;
use crate::engine::trace::Trace;
use crate::engine::{EngineConfig, WindowFn};

use super::{update, App, Msg};
use crate::tui::scenario::Scenario;

/// Engine work for the event loop to run off the UI task.
#[derive(Debug, Clone)]
pub enum Work {
    /// Re-run the timeline to the playhead and score the whole run, for these dials.
    Rerun {
        /// The re-run's number: its answer is taken only if no newer re-run was asked for since.
        generation: u64,
        /// The stream, and the oracle the run is scored against.
        scenario: Arc<Scenario>,
        /// The dials' engine configuration.
        cfg: EngineConfig,
        /// How many events to run (those arrived by the playhead).
        arrived: usize,
        /// Process the end of input too (the playhead has finished).
        finish: bool,
        /// Set when a newer dial change makes this run useless: it stops.
        cancel: Arc<AtomicBool>,
    },
    /// Re-run the job from the start with the presses, to processing time `now` (to its end
    /// with `to_end`).
    RerunJob {
        /// The re-run's number: its answer is taken only if no newer re-run was asked for since.
        generation: u64,
        /// The events the job's sources read.
        stream: Arc<Stream>,
        /// The job's shape with the dials' engine configuration and checkpoint interval.
        cfg: PipelineConfig,
        /// The user's crashes and checkpoints, applied at their processing times.
        presses: Vec<Press>,
        /// Processing time to run to, ms.
        now: f64,
        /// Run on to the job's end after `now` (the playhead has finished).
        to_end: bool,
        /// Set when a newer dial change makes this run useless: it stops.
        cancel: Arc<AtomicBool>,
    },
    /// Sweep the frontier for this configuration's window and family.
    Frontier {
        /// The stream, and the oracle each point is scored against.
        scenario: Arc<Scenario>,
        /// The configuration whose window and watermark family are swept over lags and graces.
        cfg: EngineConfig,
    },
}

/// What finished engine work answered.
#[derive(Debug)]
pub enum Done {
    /// A re-run, of either kind: the run to the playhead (an error when the job's shape was
    /// refused) and, for the single processor, the whole run's score.
    Rerun {
        /// The number of the re-run this answers (dropped unless it is the newest).
        generation: u64,
        /// The run to the playhead, or why the job's shape was refused.
        trace: Result<Box<Trace>, PipelineError>,
        /// The whole run's score (the single processor's; None for the job).
        score: Option<FrontierPoint>,
    },
    /// A re-run stopped because a newer one replaced it.
    Cancelled {
        /// The number of the re-run that stopped.
        generation: u64,
    },
    /// A frontier sweep, for the (window, watermark family) it was asked for.
    Frontier {
        /// The stream swept: taken only by a state still on it (a tour's step may have
        /// changed it since).
        stream: Arc<Stream>,
        /// The window function swept.
        window: WindowFn,
        /// The watermark family swept, by its short name.
        family: &'static str,
        /// The sweep; None when the family has no lag to sweep (perfect, heuristic).
        frontier: Option<Frontier>,
        /// The sweep's advised point for the advisor's default target.
        advised: Option<FrontierPoint>,
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
                let open = scenario.open;
                let Some(timeline) =
                    run_timeline(cfg, &scenario.stream, (arrived, finish), open, &cancel)
                else {
                    return Done::Cancelled { generation };
                };
                // Scoring mid-stream is one more run: not when the result is already stale.
                if cancel.load(Ordering::Relaxed) {
                    return Done::Cancelled { generation };
                }
                // While the input is open the whole run's score is not known.
                let score = (!open).then(|| score(&scenario, &timeline, cfg));
                let trace = Trace::single(scenario.stream.clone(), scenario.proc_time, timeline)
                    .with_open_input(open);
                Done::Rerun {
                    generation,
                    trace: Ok(Box::new(trace)),
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
                Some(job) => Done::Rerun {
                    generation,
                    trace: job.map(|j| Box::new(Trace::parallel(j))),
                    score: None,
                },
                None => Done::Cancelled { generation },
            },
            Work::Frontier { scenario, cfg } => {
                let frontier = Frontier::compute(&scenario.stream, cfg);
                let advised = frontier.as_ref().and_then(|f| {
                    let c = choose_on_frontier(&scenario.stream, cfg, &f.points, DEFAULT_TARGET)?;
                    Some(f.points[c.index()])
                });
                Done::Frontier {
                    stream: scenario.stream.clone(),
                    window: cfg.window,
                    family: cfg.watermark.family(),
                    frontier,
                    advised,
                }
            }
        }
    }
}

/// A re-run checks whether it was cancelled every this many events.
const CANCEL_EVERY_EVENTS: usize = 16_384;
/// A job re-run checks whether it was cancelled this many times over the stream's span.
const CANCEL_CHECKS_PER_SPAN: f64 = 512.0;

/// [`Timeline::run_to`] the first `arrived` events (the end of input too with `finish`), in
/// slices, stopping (None) once `cancel` is set; over a stream still `growing` (a live input),
/// a [`Timeline::growing`] one.
pub fn run_timeline(
    cfg: EngineConfig,
    stream: &Stream,
    (arrived, finish): (usize, bool),
    growing: bool,
    cancel: &AtomicBool,
) -> Option<Timeline> {
    let mut t = if growing {
        Timeline::growing(cfg, stream)
    } else {
        Timeline::new(cfg, stream)
    };
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

/// The whole run's score for `cfg`: the timeline's own once it has run to the end, else one
/// more run's.
pub(super) fn score(scenario: &Scenario, timeline: &Timeline, cfg: EngineConfig) -> FrontierPoint {
    timeline
        .final_score(&scenario.truth)
        .unwrap_or_else(|| score_point(&scenario.stream, &scenario.truth, cfg))
}

impl App {
    /// Engine work queued by updates, for the event loop to run.
    pub fn take_work(&mut self) -> Vec<Work> {
        std::mem::take(&mut self.work)
    }

    /// A new re-run replaces any older one: the older stops and its result will be dropped.
    /// Returns its number and cancel flag.
    pub(super) fn next_rerun(&mut self) -> (u64, Arc<AtomicBool>) {
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

    /// Takes finished work's answer, if it is still the one wanted. Returns whether the
    /// screen changed.
    pub(super) fn finish(&mut self, done: Done) -> bool {
        match done {
            Done::Rerun {
                generation,
                trace,
                score,
            } => {
                if generation != self.generation {
                    return false;
                }
                if score.is_some() {
                    self.score = score;
                }
                self.rerunning = false;
                self.cancel = None;
                self.take_trace(trace.map(|t| *t));
                true
            }
            Done::Cancelled { .. } => false,
            Done::Frontier {
                stream,
                window,
                family,
                frontier,
                advised,
            } => {
                if !Arc::ptr_eq(&stream, &self.scenario.stream) {
                    return false;
                }
                if let Some(e) = self
                    .frontiers
                    .iter_mut()
                    .find(|e| e.window == window && e.family == family)
                {
                    e.frontier = Some(frontier.map(Arc::new));
                    e.advised = advised;
                }
                true
            }
        }
    }
}
