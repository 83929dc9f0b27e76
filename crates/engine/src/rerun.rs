//! A re-run the user steers: the run from the start to the playhead for the dials as they are
//! now, the single processor or the parallel job with its presses, with the whole run's score
//! against the oracle. One value says what to run ([`Rerun`]); one function runs it
//! ([`Rerun::run`]), in slices that check a cancel flag so that a newer dial change can stop an
//! older run. The UI runs a small input's re-run at once and hands a big one to its event
//! loop; both take the same [`Answer`].

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::frontier::{score_point, FrontierPoint};
use super::job_timeline::{JobTimeline, Press};
use super::pipeline::{PipelineConfig, PipelineError};
use super::processor::EngineConfig;
use super::stream::Stream;
use super::timeline::Timeline;
use super::trace::Trace;
use super::CellId;

/// A single run checks whether it was cancelled every this many events.
const CANCEL_EVERY_EVENTS: usize = 16_384;
/// A job checks whether it was cancelled this many times over the stream's span.
const CANCEL_CHECKS_PER_SPAN: f64 = 512.0;

/// Which run, with what.
#[derive(Debug, Clone)]
pub(crate) enum RunPlan {
    /// The single processor under these dials.
    Single {
        /// The dials' engine configuration.
        cfg: EngineConfig,
        /// The input is still open (a live producer may send more): the run is a
        /// [`Timeline::growing`] one, and the whole run's score is not known.
        open: bool,
        /// Processing time's extent, ms, which the trace's playhead moves in.
        span: (f64, f64),
    },
    /// The parallel job: its shape with the dials' engine configuration, and what happens to
    /// it (outages given in advance, then the user's crashes and checkpoints), in order.
    Job {
        /// The job's shape and dials.
        cfg: PipelineConfig,
        /// The presses, applied at their processing times.
        presses: Vec<Press>,
    },
}

/// A re-run: the stream, the oracle it is scored against, the run and how far to run it.
#[derive(Debug, Clone)]
pub struct Rerun {
    /// The events.
    pub stream: Arc<Stream>,
    /// The true count of every cell, which the single run's score is measured against.
    pub truth: Arc<BTreeMap<CellId, u64>>,
    /// What to run.
    pub(crate) plan: RunPlan,
    /// The single run: events to run (those arrived by the playhead).
    pub arrived: usize,
    /// The job: processing time to run to, ms.
    pub now: f64,
    /// Run on to the end (the playhead has finished).
    pub finish: bool,
}

/// What a re-run answers: the run to the playhead (or why the job's shape was refused) and,
/// for the single processor over a whole input, the whole run's score.
#[derive(Debug)]
pub struct Answer {
    /// The run to the playhead.
    pub trace: Result<Trace, PipelineError>,
    /// The whole run's score (None for the job, and while the input is open).
    pub score: Option<FrontierPoint>,
}

impl Answer {
    /// Whether it answers a re-run of the parallel job (a job whose shape was refused too).
    pub fn is_job(&self) -> bool {
        self.trace
            .as_ref()
            .map_or(true, |t| t.pipeline_config().is_some())
    }
}

/// A re-run handed to the shell to run off its UI task: the one pending, numbered so that
/// only the newest one's answer is taken, with the flag that stops it when a newer one
/// replaces it.
#[derive(Debug, Clone)]
pub struct PendingRerun {
    /// The re-run's number.
    pub generation: u64,
    /// What to run, and how far.
    pub rerun: Box<Rerun>,
    /// Set when a newer re-run makes this one useless: it stops.
    pub cancel: Arc<AtomicBool>,
}

/// What a [`PendingRerun`] answered.
#[derive(Debug)]
pub enum RerunDone {
    /// It ran to the end.
    Answered {
        /// The number of the re-run this answers (dropped unless it is the newest).
        generation: u64,
        /// Its answer.
        answer: Answer,
    },
    /// It stopped because a newer one replaced it.
    Cancelled {
        /// The number of the re-run that stopped.
        generation: u64,
    },
}

impl PendingRerun {
    /// Runs it (pure; may take a while), stopping early once cancelled.
    pub fn perform(self) -> RerunDone {
        match self.rerun.run(&self.cancel) {
            Some(answer) => RerunDone::Answered {
                generation: self.generation,
                answer,
            },
            None => RerunDone::Cancelled {
                generation: self.generation,
            },
        }
    }
}

impl Rerun {
    /// Whether it re-runs the parallel job.
    pub fn is_job(&self) -> bool {
        matches!(self.plan, RunPlan::Job { .. })
    }

    /// Runs it, stopping (None) once `cancel` is set.
    pub fn run(&self, cancel: &AtomicBool) -> Option<Answer> {
        match &self.plan {
            RunPlan::Single { cfg, open, span } => {
                let timeline = run_timeline(
                    *cfg,
                    &self.stream,
                    (self.arrived, self.finish),
                    *open,
                    cancel,
                )?;
                // Scoring mid-stream is one more run: not when the result is already stale.
                if cancel.load(Ordering::Relaxed) {
                    return None;
                }
                let score = (!open).then(|| score(&self.stream, &self.truth, &timeline, *cfg));
                let trace =
                    Trace::single(self.stream.clone(), *span, timeline).with_open_input(*open);
                Some(Answer {
                    trace: Ok(trace),
                    score,
                })
            }
            RunPlan::Job { cfg, presses } => {
                let job = run_job(
                    self.stream.clone(),
                    *cfg,
                    presses,
                    self.now,
                    self.finish,
                    cancel,
                )?;
                Some(Answer {
                    trace: job.map(Trace::parallel),
                    score: None,
                })
            }
        }
    }
}

/// [`Timeline::run_to`] the first `arrived` events (the end of input too with `finish`), in
/// slices, stopping (None) once `cancel` is set; over a stream still `growing` (a live input),
/// a [`Timeline::growing`] one.
pub(crate) fn run_timeline(
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
pub(crate) fn run_job(
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
pub(crate) fn score(
    stream: &Stream,
    truth: &BTreeMap<CellId, u64>,
    timeline: &Timeline,
    cfg: EngineConfig,
) -> FrontierPoint {
    timeline
        .final_score(truth)
        .unwrap_or_else(|| score_point(stream, truth, cfg))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::Oracle;
    use crate::scenario::ScenarioName;

    fn lesson() -> (EngineConfig, Arc<Stream>, Arc<BTreeMap<CellId, u64>>) {
        let preset = ScenarioName::Lesson.preset();
        let stream = preset.source.stream().unwrap();
        let truth = Oracle::true_counts(&stream, &preset.config.window);
        (preset.config, Arc::new(stream), Arc::new(truth))
    }

    fn single(arrived: usize, finish: bool) -> Rerun {
        let (cfg, stream, truth) = lesson();
        Rerun {
            stream,
            truth,
            plan: RunPlan::Single {
                cfg,
                open: false,
                span: (0.0, 400_000.0),
            },
            arrived,
            now: 0.0,
            finish,
        }
    }

    #[test]
    fn a_single_rerun_is_the_timeline_to_the_playhead_scored_over_the_whole_run() {
        let r = single(70, false);
        let RunPlan::Single { cfg, .. } = r.plan else {
            unreachable!()
        };
        let a = r.run(&AtomicBool::new(false)).unwrap();
        let trace = a.trace.unwrap();
        let want = Timeline::run_to(cfg, &r.stream, 70, false);
        assert_eq!(trace.arrived(), 70);
        assert_eq!(trace.timeline().unwrap().fates(), want.fates());
        // Mid-stream the score is one more run's; at the end it is the timeline's own.
        let whole = score_point(&r.stream, &r.truth, cfg);
        assert_eq!(a.score, Some(whole));
        let end = single(r.stream.len(), true)
            .run(&AtomicBool::new(false))
            .unwrap();
        assert_eq!(end.score, Some(whole));
    }

    #[test]
    fn a_cancelled_job_rerun_stops_and_an_uncancelled_one_equals_the_one_call() {
        use crate::job_timeline::Intervention;
        use crate::pipeline::CrashTarget;
        let presses = [
            Press {
                time: 120_000.0,
                what: Intervention::Checkpoint,
            },
            Press {
                time: 265_000.0,
                what: Intervention::Crash(CrashTarget::Job),
            },
        ];
        let stream = Arc::new(crate::stream::Stream::classroom());
        let cfg = PipelineConfig {
            // Two partitions into four operators: a job wider than the processor, any shape.
            partitions: 2,
            parallelism: 4,
            seed: 1,
            checkpoint_every: Some(10_000.0),
            ..PipelineConfig::new(EngineConfig::fixed(20_000.0, 0.0))
        };
        let run = |to_end: bool, cancelled: bool| {
            run_job(
                stream.clone(),
                cfg,
                &presses,
                400_000.0,
                to_end,
                &AtomicBool::new(cancelled),
            )
        };
        let mut one = JobTimeline::run_to(stream.clone(), cfg, &presses, 400_000.0).unwrap();
        let sliced = run(false, false).unwrap().unwrap();
        assert_eq!(sliced.pipeline().steps(), one.pipeline().steps());
        assert_eq!(sliced.now(), one.now());
        assert_eq!(sliced.crashes(), one.crashes());
        assert_eq!(sliced.fates(), one.fates());
        assert_eq!(sliced.presses(), one.presses());
        one.run_to_end();
        let to_end = run(true, false).unwrap().unwrap();
        assert!(to_end.is_finished());
        assert_eq!(to_end.pipeline().steps(), one.pipeline().steps());
        assert!(run(true, true).is_none());
    }

    #[test]
    fn a_cancelled_rerun_answers_nothing() {
        let r = single(150, true);
        assert!(r.run(&AtomicBool::new(true)).is_none());
        let (cfg, stream, truth) = lesson();
        let job = Rerun {
            stream,
            truth,
            plan: RunPlan::Job {
                cfg: PipelineConfig::new(cfg),
                presses: Vec::new(),
            },
            arrived: 0,
            now: 100_000.0,
            finish: false,
        };
        assert!(job.is_job());
        assert!(job.run(&AtomicBool::new(true)).is_none());
        let a = job.run(&AtomicBool::new(false)).unwrap();
        assert!(a.score.is_none());
        assert!(a.trace.unwrap().pipeline_config().is_some());
    }
}
