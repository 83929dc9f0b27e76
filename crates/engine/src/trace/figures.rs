//! The read model's headline figures at the playhead, by name: what a caption of the tour
//! quotes (`{dropped}`, `{watermark}`, …) and what big numbers show. Each figure is one the
//! panels already show, read the same way, so a caption never says anything the screen does
//! not.

use std::collections::BTreeMap;

use super::Trace;
use crate::CellId;

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

impl Trace {
    /// The figures at processing time `now`, the final values scored against `truth`.
    pub fn figures(&self, now: f64, truth: &BTreeMap<CellId, u64>) -> Figures {
        let shares = self.shares();
        let counters = self.counters();
        let watermark = self.watermark();
        Figures {
            now,
            arrived: self.arrived(),
            on_time: shares.on_time,
            late: shares.late,
            dropped: shares.dropped,
            panes: counters.panes(),
            early_panes: counters.early_panes,
            on_time_panes: counters.on_time_panes,
            late_panes: counters.late_panes,
            watermark,
            gap: watermark.is_finite().then_some(now - watermark),
            wrong: self.final_score(truth).map(|p| p.score.wrong_windows),
            state: self.open_cells(),
            crashes: self.crashes().len(),
            checkpoints: self.checkpoints().len(),
            replayed: self.redelivered(),
            overcount: self.sinks(truth).map(|s| s.overcount),
            stall: self.watermark_stall(),
            expired: self.expirations().len(),
            merges: self.session_merges().count(),
        }
    }
}
