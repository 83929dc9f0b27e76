//! Engine work the UI hands to its event loop: the steered run's pending re-run (the engine's
//! [`PendingRerun`]: the single processor or the job from the start for new dials), and the
//! frontier sweep. Big inputs are re-run off the UI task in slices, so a newer dial change can
//! cancel an older run; the steered run drops the answer of a cancelled or superseded run. Small
//! inputs are re-run at once by the steered run itself.

use std::sync::Arc;
use std::time::Duration;

use twoclocks_engine::advice::{Choice, Request};
use twoclocks_engine::frontier::Frontier;
use twoclocks_engine::frontier::FrontierPoint;
use twoclocks_engine::rerun::{PendingRerun, RerunDone};
use twoclocks_engine::scale::Scale;
use twoclocks_engine::Stream;
use twoclocks_engine::{EngineConfig, WindowFn};

use super::{update, App, Msg};
use crate::scenario::Scenario;

/// Engine work for the event loop to run off the UI task.
#[derive(Debug, Clone)]
pub enum Work {
    /// The steered run's re-run: the engine from the start to the playhead, the single processor
    /// (scoring the whole run) or the job with its presses.
    Rerun(PendingRerun),
    /// B's re-run, side by side, for the B of pin `pin`.
    RerunB {
        /// Which pin of B it is for.
        pin: u64,
        /// The re-run.
        pending: PendingRerun,
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
    /// A re-run, of either kind, answered or cancelled.
    Rerun(RerunDone),
    /// B's re-run, side by side, for the B of pin `pin`.
    RerunB {
        /// Which pin of B it was for.
        pin: u64,
        /// Its answer.
        done: RerunDone,
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
            Work::Rerun(pending) => Done::Rerun(pending.perform()),
            Work::RerunB { pin, pending } => Done::RerunB {
                pin,
                done: pending.perform(),
            },
            Work::Frontier { scenario, cfg } => {
                let frontier = frontier_of(&scenario.stream, cfg);
                let advised = frontier.as_ref().and_then(|f| {
                    let c = Choice::on_frontier(
                        &scenario.stream,
                        cfg,
                        &f.points,
                        Request::DEFAULT_TARGET,
                    )?;
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
    /// Engine work queued by updates, for the event loop to run: the frontier sweeps asked
    /// for, and the steered run's pending re-run (and B's, side by side).
    pub fn take_work(&mut self) -> Vec<Work> {
        let mut work = std::mem::take(&mut self.work);
        work.extend(self.steered.take_pending().map(Work::Rerun));
        if let Some(side) = &mut self.side {
            let pin = side.pin;
            work.extend(
                side.b
                    .take_pending()
                    .map(|pending| Work::RerunB { pin, pending }),
            );
        }
        work
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
            Done::Rerun(done) => {
                let taken = self.steered.finish(done);
                if taken {
                    // A refused job falls back to the single run, whose sweep is wanted.
                    self.request_frontier_if_single();
                }
                taken
            }
            Done::RerunB { pin, done } => self.finish_b(pin, done),
            Done::Frontier {
                stream,
                window,
                family,
                frontier,
                advised,
            } => {
                if !Arc::ptr_eq(&stream, &self.scenario().stream) {
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

/// The frontier the panel draws: the engine's sweep (0 to 120 s by 10 s, with the three
/// policies) on a stream counted in seconds; on a wall-clock log, 13 lags × 13 graces from 0
/// to its delays' reach ([`Scale`]: 0 to 6 h by 30 min on the New York departures), without
/// the classroom's policies, whose seconds would all sit at the chart's left edge.
fn frontier_of(stream: &Stream, cfg: EngineConfig) -> Option<Frontier> {
    if !stream.clock.is_wall() {
        return Frontier::compute(stream, cfg);
    }
    cfg.watermark.lag()?;
    let reach = Scale::of(stream).reach;
    let grid: Vec<f64> = (0..=12).map(|i| f64::from(i) * reach / 12.0).collect();
    Some(Frontier {
        window: cfg.window,
        family: cfg.watermark.family(),
        points: FrontierPoint::sweep(stream, cfg, &grid, &grid),
        policies: Vec::new(),
    })
}
