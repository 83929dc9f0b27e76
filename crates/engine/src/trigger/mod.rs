//! Block 5, triggers and panes: one window can answer many times. Each (window, key) cell emits
//! EARLY panes on a processing-time timer until the watermark passes the window's end, one
//! ON_TIME pane when it does, and a LATE pane after every late arrival that changed its value,
//! until the window is finalised. The accumulation mode says what a pane carries.
//!
//! That built-in trigger is one expression of Beam's trigger algebra ([`Trigger`]: the
//! expression, `Machine`: the state machine that runs one, [`TimestampCombiner`]: a pane's
//! output time), which scripted streams (`crate::script`) run in full.

mod combiner;
mod empty_panes;
mod expr;
mod machine;

use std::fmt;
use std::str::FromStr;

use crate::quote::quoted;

pub use combiner::TimestampCombiner;
pub use empty_panes::{ClosingBehavior, EmptyPanes, OnTimeBehavior};
pub use expr::{Trigger, TriggerError};
pub(crate) use machine::{Domain, Machine, Tag, TimerName, TriggerContext};

use super::window::CellId;

/// The end of time, ms: Beam's `BoundedWindow.TIMESTAMP_MAX_VALUE`, the watermark at the end
/// of input. Times, durations and window sizes a script or a trigger gives stay within
/// ±this, so that no sum of them overflows.
pub(crate) const END_OF_TIME: i64 = 9_223_372_036_854_775;

/// When a pane was emitted relative to the watermark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Timing {
    /// Before the watermark passed the window's end: speculative.
    Early,
    /// The one pane emitted when the watermark passes the window's end.
    OnTime,
    /// A refinement after the on-time pane, caused by late data.
    Late,
}

impl Timing {
    /// The timing as panes print it: `EARLY`, `ON_TIME` or `LATE`.
    pub fn label(&self) -> &'static str {
        match self {
            Timing::Early => "EARLY",
            Timing::OnTime => "ON_TIME",
            Timing::Late => "LATE",
        }
    }
}

impl fmt::Display for Timing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// Beam's `PaneInfo`: where a pane stands among its window's panes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PaneInfo {
    /// Whether it is the window's first pane.
    pub is_first: bool,
    /// Whether it is the window's last pane (its trigger finished, or the window closed).
    pub is_last: bool,
    /// Early, on time or late.
    pub timing: Timing,
    /// 0 for the window's first pane, counting every pane.
    pub index: u32,
    /// Counting only the on-time and late panes from 0; −1 for an early pane.
    pub nonspeculative_index: i64,
}

/// What each pane carries as its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Accumulation {
    /// The whole value so far (the reference's mode).
    #[default]
    Accumulating,
    /// Only what arrived since the previous pane.
    Discarding,
    /// The whole value so far, and a retraction of the previous pane's value.
    Retracting,
}

impl Accumulation {
    /// Every mode, in the order [`Accumulation::next`] cycles through them.
    pub const ALL: [Accumulation; 3] = [
        Accumulation::Accumulating,
        Accumulation::Discarding,
        Accumulation::Retracting,
    ];

    /// The mode's name on the command line and on screen.
    pub fn name(&self) -> &'static str {
        match self {
            Accumulation::Accumulating => "accumulating",
            Accumulation::Discarding => "discarding",
            Accumulation::Retracting => "retracting",
        }
    }

    /// The mode after this one, wrapping around: how the UI cycles through them.
    pub fn next(&self) -> Accumulation {
        match self {
            Accumulation::Accumulating => Accumulation::Discarding,
            Accumulation::Discarding => Accumulation::Retracting,
            Accumulation::Retracting => Accumulation::Accumulating,
        }
    }
}

impl fmt::Display for Accumulation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Accumulation {
    type Err = String;

    /// Reads a mode's name, `discarding`; an error names the value and the modes.
    fn from_str(s: &str) -> Result<Accumulation, String> {
        Accumulation::ALL
            .into_iter()
            .find(|a| a.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Accumulation::ALL.iter().map(|a| a.name()).collect();
                format!(
                    "{} is not an accumulation mode: {}",
                    quoted(s),
                    names.join(", ")
                )
            })
    }
}

/// One answer of one cell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pane {
    /// The (window, key) cell that answered.
    pub cell: CellId,
    /// Where the window starts in event time, ms (inclusive).
    pub window_start: f64,
    /// Where the window ends in event time, ms (exclusive).
    pub window_end: f64,
    /// When it was emitted relative to the watermark.
    pub timing: Timing,
    /// 0 for the cell's first pane, counting every pane.
    pub index: u32,
    /// Beam's nonspeculative index: 0 for the cell's first on-time or late pane, counting
    /// those only; −1 for an early pane.
    pub nonspeculative_index: i64,
    /// The processing time of the arrival that caused it.
    pub proc_time: f64,
    /// The watermark then (+∞ for panes emitted at the end of input).
    pub watermark: f64,
    /// What the pane carries under the accumulation mode.
    pub value: i64,
    /// Under accumulating-and-retracting, the previous pane's value, withdrawn.
    pub retraction: Option<i64>,
    /// The cell's whole value when the pane was emitted.
    pub total: u64,
}

impl Pane {
    /// Bytes a checkpoint counts per pane it stages: a fixed estimate rather than the type's
    /// size in memory, so reported checkpoint sizes do not move with the engine's layout.
    pub const CHECKPOINT_BYTES: usize = 88;
}

/// A cell's trigger state: its value, what its last pane said, its early timer.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct CellState {
    /// Events counted so far.
    pub value: u64,
    /// The cell's whole value at its last pane, if it has emitted one.
    pub emitted: Option<u64>,
    /// Panes emitted so far.
    pub panes: u32,
    /// On-time and late panes emitted so far.
    pub nonspeculative: u32,
    /// When the next EARLY pane is due (processing time), if an early trigger is armed.
    pub timer: Option<f64>,
}

impl CellState {
    /// Emits a pane of this cell now and records it as the last one.
    pub fn emit(
        &mut self,
        cell: CellId,
        bounds: (f64, f64),
        timing: Timing,
        proc_time: f64,
        watermark: f64,
        mode: Accumulation,
    ) -> Pane {
        let previous = self.emitted;
        let (value, retraction) = match mode {
            Accumulation::Accumulating => (self.value as i64, None),
            Accumulation::Discarding => ((self.value - previous.unwrap_or(0)) as i64, None),
            Accumulation::Retracting => (self.value as i64, previous.map(|p| p as i64)),
        };
        let pane = Pane {
            cell,
            window_start: bounds.0,
            window_end: bounds.1,
            timing,
            index: self.panes,
            nonspeculative_index: if timing == Timing::Early {
                -1
            } else {
                i64::from(self.nonspeculative)
            },
            proc_time,
            watermark,
            value,
            retraction,
            total: self.value,
        };
        self.emitted = Some(self.value);
        self.panes += 1;
        if timing != Timing::Early {
            self.nonspeculative += 1;
        }
        pane
    }

    /// Whether the value changed since the last pane.
    pub fn changed(&self) -> bool {
        self.emitted != Some(self.value)
    }
}

/// An armed early timer, ordered by due time then cell, for a min-heap.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Timer {
    /// When the timer fires: processing time, ms.
    pub due: f64,
    /// The cell whose EARLY pane is due then.
    pub cell: CellId,
}

impl Timer {
    /// Bytes a checkpoint counts per armed timer: a fixed estimate rather than the type's size
    /// in memory, so reported checkpoint sizes do not move with the engine's layout.
    pub const CHECKPOINT_BYTES: usize = 24;
}

impl Eq for Timer {}

impl PartialOrd for Timer {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Timer {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // Reversed so that std's max-heap pops the earliest timer first.
        other
            .due
            .total_cmp(&self.due)
            .then_with(|| other.cell.cmp(&self.cell))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accumulation_modes_read_back_their_names() {
        for a in Accumulation::ALL {
            assert_eq!(a.to_string().parse(), Ok(a));
        }
        assert_eq!(
            "Discarding".parse::<Accumulation>(),
            Err(
                "'Discarding' is not an accumulation mode: accumulating, discarding, retracting"
                    .into()
            )
        );
    }

    fn cell() -> CellId {
        CellId {
            window: crate::WindowFn::Tumbling {
                size: 60_000,
                offset: 0,
            }
            .at_index(3),
            key: 0,
        }
    }

    #[test]
    fn modes_carry_what_they_say() {
        for (mode, expect) in [
            (Accumulation::Accumulating, [(5, None), (8, None)]),
            (Accumulation::Discarding, [(5, None), (3, None)]),
            (Accumulation::Retracting, [(5, None), (8, Some(5))]),
        ] {
            let mut c = CellState {
                value: 5,
                ..Default::default()
            };
            let p1 = c.emit(cell(), (0.0, 1.0), Timing::Early, 1.0, 0.0, mode);
            c.value = 8;
            let p2 = c.emit(cell(), (0.0, 1.0), Timing::OnTime, 2.0, 1.0, mode);
            assert_eq!(
                [(p1.value, p1.retraction), (p2.value, p2.retraction)],
                expect
            );
            assert_eq!((p1.index, p2.index), (0, 1));
        }
    }
}
