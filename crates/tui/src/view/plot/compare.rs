//! Two runs of one stream compared event by event: the events whose fate differs between
//! them ([`FateDiff`]), for the plot that shows two policies side by side. Pure: it reads the
//! two traces' fates and nothing else; an event counts once both runs have taken it (a
//! parallel run's fate is the one its operators gave it the latest time they took it).

use twoclocks_engine::trace::Trace;
use twoclocks_engine::Fate;

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

/// The events runs `a` and `b` (two runs of the same stream) have both taken and gave
/// different fates, in offset order.
pub fn fate_differences(a: &Trace, b: &Trace) -> FateDiff {
    let mut d = FateDiff::default();
    let mut differ = |i: usize, fa: Fate, fb: Fate| {
        d.offsets.push(i);
        match (fa == Fate::Dropped, fb == Fate::Dropped) {
            (false, true) => d.dropped_by_b += 1,
            (true, false) => d.dropped_by_a += 1,
            _ => {}
        }
    };
    // Two single runs: their fates side by side, a block at a time (most blocks are alike,
    // and a block is compared without a branch per event).
    if let (Some(ta), Some(tb)) = (a.timeline(), b.timeline()) {
        let (fa, fb) = (ta.fates(), tb.fates());
        const BLOCK: usize = 64;
        let n = fa.len().min(fb.len());
        for (at, (ba, bb)) in fa[..n].chunks(BLOCK).zip(fb[..n].chunks(BLOCK)).enumerate() {
            if !ba.iter().zip(bb).fold(false, |any, (x, y)| any | (x != y)) {
                continue;
            }
            for (j, (&x, &y)) in ba.iter().zip(bb).enumerate() {
                if x != y {
                    differ(at * BLOCK + j, x, y);
                }
            }
        }
        return d;
    }
    let n = a.stream().len().min(b.stream().len());
    for i in 0..n {
        let (Some(fa), Some(fb)) = (a.fate(i), b.fate(i)) else {
            continue;
        };
        if fa != fb {
            differ(i, fa, fb);
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use twoclocks_engine::timeline::Timeline;
    use twoclocks_engine::{EngineConfig, Stream};

    use super::*;

    /// The differences event by event, as the definition reads.
    fn one_by_one(a: &Trace, b: &Trace) -> FateDiff {
        let mut d = FateDiff::default();
        for i in 0..a.stream().len().min(b.stream().len()) {
            let (Some(fa), Some(fb)) = (a.fate(i), b.fate(i)) else {
                continue;
            };
            if fa != fb {
                d.offsets.push(i);
                d.dropped_by_b += usize::from(fa != Fate::Dropped && fb == Fate::Dropped);
                d.dropped_by_a += usize::from(fa == Fate::Dropped && fb != Fate::Dropped);
            }
        }
        d
    }

    #[test]
    fn two_single_runs_compared_by_blocks_differ_where_they_differ_event_by_event() {
        let stream = Arc::new(Stream::classroom());
        let n = stream.len();
        let trace = |lag: f64, grace: f64, arrived: usize| {
            let cfg = EngineConfig::fixed(lag, grace);
            let t = Timeline::run_to(cfg, &stream, arrived, arrived == n);
            Trace::single(stream.clone(), (0.0, 1.0), t)
        };
        let mut seen_some = false;
        for (la, ga, lb, gb) in [
            (20_000.0, 0.0, 5_000.0, 0.0),
            (0.0, 0.0, 60_000.0, 30_000.0),
            (10_000.0, 10_000.0, 10_000.0, 10_000.0),
        ] {
            for (arrived_a, arrived_b) in [(n, n), (n / 2, n), (n, 63), (130, 129), (0, n)] {
                let (a, b) = (trace(la, ga, arrived_a), trace(lb, gb, arrived_b));
                let d = fate_differences(&a, &b);
                assert_eq!(
                    d,
                    one_by_one(&a, &b),
                    "{la} {ga} {lb} {gb} {arrived_a} {arrived_b}"
                );
                seen_some |= d.dropped_by_a > 0 && d.dropped_by_b == 0;
            }
        }
        assert!(seen_some, "some runs differ");
    }
}
