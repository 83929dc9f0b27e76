//! What every run reports of a window, whichever kind of run it is: its row in the windows
//! table ([`WindowRow`]), where it is in its life ([`Phase`]), where a value stands against
//! the oracle ([`Standing`]), the additive sink's over-count by cause ([`OverCount`]), and the
//! operator state sampled over processing time ([`StateSample`]). Plain values, shared by the
//! single run's timeline, the job's and the read model, none of which this imports.

use super::trigger::Pane;
use super::window::WindowId;

/// The operator state at one processing time: what the state-over-time chart draws.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StateSample {
    /// Processing time of the sample, ms.
    pub time: f64,
    /// State entries: (window, key) cells held (a parallel run: over its operators).
    pub open_cells: usize,
    /// Estimated bytes of the state then.
    pub state_bytes: usize,
    /// Keys expired under the global window's TTL by then, a running count.
    pub ttl_expired: u64,
}

/// Where a window (or one of its cells) is in its life, as the engine's rules place it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// The watermark has not reached the window's end.
    Open,
    /// The watermark passed the end; the ON_TIME pane is out and no late data came since.
    FiredOnTime,
    /// Fired, within grace, and late data has refined it.
    TakingLate,
    /// Past grace (or end of input): state freed, the value is final.
    Finalised,
}

impl Phase {
    /// The phase as the windows table prints it: `open`, `fired on time`, `taking late data`
    /// or `finalised`.
    pub fn label(&self) -> &'static str {
        match self {
            Phase::Open => "open",
            Phase::FiredOnTime => "fired on time",
            Phase::TakingLate => "taking late data",
            Phase::Finalised => "finalised",
        }
    }
}

/// Where a value stands against the oracle, by the rule the engine knows: over the truth is
/// wrong at once (nothing is ever taken back from a sink); short of it is wrong only once its
/// window is final, and until then merely incomplete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// Equal to the truth.
    Right,
    /// Short of the truth while the window can still take data.
    Open,
    /// Over the truth, or short of it once the window is final.
    Wrong,
}

impl Standing {
    /// Where `value` stands against the oracle's `truth` for one cell, `is_final` saying
    /// whether its window can no longer take data.
    pub fn of(value: i64, truth: i64, is_final: bool) -> Standing {
        if value == truth {
            Standing::Right
        } else if value > truth || is_final {
            Standing::Wrong
        } else {
            Standing::Open
        }
    }
}

/// One row of the windows table, for either kind of run: a window, for one key or all keys
/// together, with the run's own value, the oracle's, where the window stands and (a parallel
/// run's) what each sink holds.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowRow {
    /// The window.
    pub window: WindowId,
    /// Where it starts in event time, ms.
    pub start: f64,
    /// Where it ends in event time, ms.
    pub end: f64,
    /// The run's own value: the single processor's state while the window is open and its
    /// final value after; a parallel run's operators' state summed (a crash rolls it back)
    /// or the final value its sink received.
    pub value: i64,
    /// The true count (the oracle over the whole stream).
    pub truth: i64,
    /// Where the window is in its life under the run's watermark (a parallel run does not
    /// tell a window taking late data from one fired on time: it shows as fired).
    pub phase: Phase,
    /// The latest pane of the cell (for all keys: the latest among the window's cells); a
    /// parallel run keeps none per cell.
    pub latest: Option<Pane>,
    /// A parallel run's sinks, in [`SinkKind::ALL`](super::checkpoint::SinkKind::ALL) order: Σ of
    /// the values each holds.
    pub sinks: Option<[i64; 3]>,
    /// A parallel run's additive sink over its idempotent one in this row's cells, by cause.
    pub over: Option<OverCount>,
}

impl WindowRow {
    /// The window's values are final: its state is freed, nothing more can change them.
    pub fn is_final(&self) -> bool {
        self.phase == Phase::Finalised
    }

    /// Where `value` (the run's own or a sink's) stands against the oracle.
    pub fn standing(&self, value: i64) -> Standing {
        Standing::of(value, self.truth, self.is_final())
    }
}

/// The additive sink over the idempotent one, by cause. Adding every pane to a total is right
/// only for panes that carry what is new (discarding): an accumulating pane carries the cell's
/// whole value so far, and adding it to the earlier ones counts them again; a retracting pane's
/// retraction is not taken off. And a pane delivered again by a replay is added again.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OverCount {
    /// Σ of every pane's value, each pane once, less the cells' values as the panes mean them:
    /// what adding panes counts again (0 when discarding).
    pub readded: i64,
    /// Σ of the values of panes delivered again by replays.
    pub replayed: i64,
}
