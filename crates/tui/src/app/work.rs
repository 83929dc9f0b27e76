//! Engine work the UI hands to its event loop: a re-run of the single processor or of the job
//! from the start for new dials (the engine's [`Rerun`]), and the frontier sweep. Big inputs
//! are re-run off the UI task in slices, so a newer dial change can cancel an older run; the
//! result of a cancelled or superseded run is dropped. Small inputs are re-run at once, by the
//! same [`App::launch`] and the same run.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use twoclocks_engine::advice::{choose_on_frontier, DEFAULT_TARGET};
use twoclocks_engine::frontier::Frontier;
use twoclocks_engine::frontier::FrontierPoint;
use twoclocks_engine::pipeline::PipelineError;
use twoclocks_engine::rerun::{Answer, Rerun};
use twoclocks_engine::stream::Stream;
use twoclocks_engine::trace::Trace;
use twoclocks_engine::{EngineConfig, WindowFn};

use super::{update, App, Msg};
use crate::scenario::Scenario;

/// Engine work for the event loop to run off the UI task.
#[derive(Debug, Clone)]
pub enum Work {
    /// Re-run the engine from the start to the playhead: the single processor (scoring the
    /// whole run) or the job with its presses.
    Rerun {
        /// The re-run's number: its answer is taken only if no newer re-run was asked for since.
        generation: u64,
        /// What to run, and how far.
        rerun: Box<Rerun>,
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
                rerun,
                cancel,
            } => match rerun.run(&cancel) {
                Some(a) => Done::Rerun {
                    generation,
                    trace: a.trace.map(Box::new),
                    score: a.score,
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
        self.work.retain(|w| !matches!(w, Work::Rerun { .. }));
        self.generation += 1;
        let cancel = Arc::new(AtomicBool::new(false));
        self.cancel = Some(cancel.clone());
        (self.generation, cancel)
    }

    /// Starts `rerun`, replacing any older one: at once for a small input (or with `inline`),
    /// else as work for the event loop, the run drawn until then staying on screen.
    pub(super) fn launch(&mut self, rerun: Rerun, inline: bool) {
        let (generation, cancel) = self.next_rerun();
        if inline || self.scenario.len() <= self.inline_events {
            self.rerunning = false;
            self.cancel = None;
            // Never cancelled, so always answered.
            if let Some(a) = rerun.run(&AtomicBool::new(false)) {
                self.take_answer(a);
            }
            return;
        }
        self.rerunning = true;
        self.work.push(Work::Rerun {
            generation,
            rerun: Box::new(rerun),
            cancel,
        });
    }

    /// A re-run's answer replaces the run drawn; a single run's score replaces the score (the
    /// job has none of its own).
    fn take_answer(&mut self, a: Answer) {
        if !a.is_job() {
            self.score = a.score;
        }
        self.take_trace(a.trace);
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
                self.rerunning = false;
                self.cancel = None;
                self.take_answer(Answer {
                    trace: trace.map(|t| *t),
                    score,
                });
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
