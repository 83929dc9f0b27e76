//! Two runs of one stream compared event by event: the events whose fate differs between
//! them ([`FateDiff`]), for the view that shows two policies side by side. Pure: it reads the
//! two traces' fates and nothing else; an event counts once both runs have taken it (a
//! parallel run's fate is the one its operators gave it the latest time they took it).

use super::super::lateness::Fate;
use super::Trace;

/// The events whose fate differs between two runs of the same stream, so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FateDiff {
    /// Their stream offsets, in order.
    pub offsets: Vec<usize>,
    /// Of those, how many the first run kept (on time or late) and the second dropped.
    pub dropped_by_b: usize,
    /// Of those, how many the first run dropped and the second kept.
    pub dropped_by_a: usize,
}

impl FateDiff {
    /// How many events differ.
    pub fn len(&self) -> usize {
        self.offsets.len()
    }

    /// No event differs.
    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// Whether the event at `offset` is one that differs.
    pub fn contains(&self, offset: usize) -> bool {
        self.offsets.binary_search(&offset).is_ok()
    }
}

/// The events `a` and `b` (two runs of the same stream) have both taken and gave different
/// fates, in offset order.
pub fn fate_differences(a: &Trace, b: &Trace) -> FateDiff {
    let n = a.stream().len().min(b.stream().len());
    let mut d = FateDiff::default();
    for i in 0..n {
        let (Some(fa), Some(fb)) = (a.fate(i), b.fate(i)) else {
            continue;
        };
        if fa == fb {
            continue;
        }
        d.offsets.push(i);
        match (fa == Fate::Dropped, fb == Fate::Dropped) {
            (false, true) => d.dropped_by_b += 1,
            (true, false) => d.dropped_by_a += 1,
            _ => {}
        }
    }
    d
}
