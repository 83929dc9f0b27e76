//! A run's headline figures at the playhead, by name: what a caption of the tour quotes
//! (`{dropped}`, `{watermark}`, …) and what big numbers show, and the arrived events by fate
//! ([`Shares`]) that the plot's legend gives. Each figure is one the panels already show,
//! read the same way from the engine's [`Trace`], so a caption never says anything the
//! screen does not.

use std::collections::BTreeMap;

use twoclocks_engine::trace::Trace;
use twoclocks_engine::{CellId, Fate};

/// The figures of a run up to the playhead. Counts are "so far" unless said otherwise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figures {
    /// Processing time now, ms.
    pub now: f64,
    /// Events arrived so far.
    pub arrived: usize,
    /// Events on time so far.
    pub on_time: usize,
    /// Events late, within grace, so far.
    pub late: usize,
    /// Events dropped, past grace, so far.
    pub dropped: usize,
    /// Panes emitted so far, of every timing.
    pub panes: u64,
    /// EARLY panes so far.
    pub early_panes: u64,
    /// ON_TIME panes so far.
    pub on_time_panes: u64,
    /// LATE panes so far.
    pub late_panes: u64,
    /// The watermark now, ms (−∞ before the first event, +∞ after the end of input).
    pub watermark: f64,
    /// Processing time now − the watermark, ms (None while the watermark is infinite).
    pub gap: Option<f64>,
    /// Windows whose final value is wrong at the end (a single run that has processed the end
    /// of input; None before, and for a parallel run).
    pub wrong: Option<usize>,
    /// State entries (open cells) held now.
    pub state: usize,
    /// Crashes so far (a parallel run's).
    pub crashes: usize,
    /// Checkpoints completed so far (a parallel run's).
    pub checkpoints: usize,
    /// Records taken again after a crash so far (a parallel run's).
    pub replayed: usize,
    /// By how much the additive sink over-counts so far (None: a single run).
    pub overcount: Option<i64>,
    /// How long the job's combined watermark has stood still now, ms, once it counts as
    /// stalled (None while it moves, and for a single run).
    pub stall: Option<f64>,
    /// Times a key's state expired under the global window's TTL so far (each a reset to
    /// zero; 0 without a TTL, and for a parallel run, which keeps no record of them).
    pub expired: usize,
    /// Merges of sessions so far: an event bridging or extending sessions into one (0 for
    /// windows that do not merge, and for a parallel run).
    pub merges: usize,
}

/// The arrived events by the fate the run gave them (a parallel run: the fate its operators
/// gave each record the latest time they took it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Shares {
    /// Events on time.
    pub on_time: usize,
    /// Events late, within grace.
    pub late: usize,
    /// Events dropped.
    pub dropped: usize,
}

impl Shares {
    /// The arrived events of `trace`'s run by fate.
    pub fn of(trace: &Trace) -> Shares {
        match (trace.timeline(), trace.job()) {
            (Some(timeline), _) => {
                let x = timeline.exceptions();
                let late = x.iter().filter(|e| e.fate == Fate::Late).count();
                Shares {
                    on_time: timeline.arrived().saturating_sub(x.len()),
                    late,
                    dropped: x.len() - late,
                }
            }
            (None, Some(j)) => {
                let mut s = Shares::default();
                for f in j.fates().iter().take(trace.arrived()).flatten() {
                    match f {
                        Fate::OnTime => s.on_time += 1,
                        Fate::Late => s.late += 1,
                        Fate::Dropped => s.dropped += 1,
                    }
                }
                s
            }
            (None, None) => Shares::default(),
        }
    }

    /// Events counted.
    pub fn total(&self) -> usize {
        self.on_time + self.late + self.dropped
    }

    /// The share of a fate, in percent (0 before any event).
    pub fn percent(&self, fate: Fate) -> f64 {
        let n = match fate {
            Fate::OnTime => self.on_time,
            Fate::Late => self.late,
            Fate::Dropped => self.dropped,
        };
        if self.total() == 0 {
            0.0
        } else {
            100.0 * n as f64 / self.total() as f64
        }
    }
}

impl Figures {
    /// The figures of `trace`'s run at processing time `now`, the final values scored against
    /// `truth`.
    pub fn of(trace: &Trace, now: f64, truth: &BTreeMap<CellId, u64>) -> Figures {
        let shares = Shares::of(trace);
        let counters = trace.counters();
        let watermark = trace.watermark();
        Figures {
            now,
            arrived: trace.arrived(),
            on_time: shares.on_time,
            late: shares.late,
            dropped: shares.dropped,
            panes: counters.panes(),
            early_panes: counters.early_panes,
            on_time_panes: counters.on_time_panes,
            late_panes: counters.late_panes,
            watermark,
            gap: watermark.is_finite().then_some(now - watermark),
            wrong: trace.final_score(truth).map(|p| p.score.wrong_windows),
            state: trace.open_cells(),
            crashes: trace.crashes().len(),
            checkpoints: trace.checkpoints().len(),
            replayed: trace.redelivered(),
            overcount: trace.sinks(truth).map(|s| s.overcount),
            stall: trace.watermark_stall(),
            expired: trace.expirations().len(),
            merges: trace.session_merges().count(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use twoclocks_engine::job_timeline::JobTimeline;
    use twoclocks_engine::pipeline::PipelineConfig;
    use twoclocks_engine::trace::Progress;
    use twoclocks_engine::{EngineConfig, Stream};

    use super::*;

    const START: Progress = Progress {
        now: 0.0,
        arrived: 0,
        finished: false,
    };

    #[test]
    fn a_single_runs_shares_count_every_arrived_event_once() {
        let s = Arc::new(Stream::classroom());
        let span = (0.0, s.events.last().map_or(1.0, |e| e.proc_time));
        let mut t = Trace::single_start(EngineConfig::fixed(20_000.0, 0.0), s.clone(), span);
        let c = t.play_to(START, 100_000.0);
        assert!(c.arrived > 0);
        let shares = Shares::of(&t);
        assert_eq!(shares.total(), c.arrived);
        assert!(shares.late + shares.dropped > 0, "{shares:?}");
    }

    #[test]
    fn a_parallel_runs_shares_at_the_end_count_every_event() {
        let s = Arc::new(Stream::classroom());
        let cfg = PipelineConfig {
            partitions: 2,
            parallelism: 4,
            ..PipelineConfig::new(EngineConfig::fixed(20_000.0, 0.0))
        };
        let mut t = Trace::parallel(JobTimeline::new(s.clone(), cfg).unwrap());
        let c = t.play_to(START, 100_000.0);
        t.run_to_end(c);
        assert_eq!(Shares::of(&t).total(), s.len());
    }
}
