//! The read model's state over time: the operator state (entries, bytes) sampled over
//! processing time so far, for either kind of run, and where keyed state expired under the
//! global window's TTL. The samples are the engines' (a single run's one per slice of the
//! stream's processing time, a parallel run's one per watermark sample), so their number does
//! not grow with the input.

use super::Trace;
use crate::timeline::StateSample;

/// Keys that expired under the TTL between two samples of the state: a mark on its chart.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ExpiredAt {
    /// Processing time of the sample that saw them gone, ms.
    pub time: f64,
    /// Keys expired since the sample before.
    pub keys: u64,
}

impl Trace {
    /// The operator state over processing time so far, oldest first (a parallel run: summed
    /// over its operators, cut back with a crash).
    pub fn state_history(&self) -> &[StateSample] {
        match (self.timeline(), self.job()) {
            (Some(t), _) => t.state_samples(),
            (None, Some(j)) => j.state_samples(),
            (None, None) => &[],
        }
    }

    /// Where keyed state expired under the TTL so far, oldest first: each sample of the state
    /// by which the `ttl_expired` counter went up, and by how much.
    pub(crate) fn state_expirations(&self) -> Vec<ExpiredAt> {
        let mut before = 0;
        let mut v = Vec::new();
        for s in self.state_history() {
            if s.ttl_expired > before {
                v.push(ExpiredAt {
                    time: s.time,
                    keys: s.ttl_expired - before,
                });
            }
            before = s.ttl_expired;
        }
        v
    }

    /// How many keys' state expired under the TTL so far, as the samples of the state saw them
    /// go (a parallel run: summed over its operators, cut back with a crash).
    pub fn keys_expired(&self) -> u64 {
        self.state_expirations().iter().map(|e| e.keys).sum()
    }

    /// The state entries at `n` evenly spaced processing times from the first sample to the
    /// clock now (each the latest sample at or before the end of its slice; None before the
    /// first), with whether keys expired in the slice: what one column of the chart draws.
    pub fn state_columns(&self, now: f64, n: usize) -> Vec<(Option<usize>, bool)> {
        let h = self.state_history();
        let Some(first) = h.first() else {
            return Vec::new();
        };
        let from = first.time;
        let span = (now - from).max(0.0);
        let expired = self.state_expirations();
        (0..n)
            .map(|i| {
                let (a, b) = slice(from, span, i, n);
                let k = h.partition_point(|s| s.time <= b);
                let v = k.checked_sub(1).map(|k| h[k].open_cells);
                let mark = expired.iter().any(|e| a < e.time && e.time <= b)
                    || (i == 0 && expired.iter().any(|e| e.time <= a));
                (v, mark)
            })
            .collect()
    }
}

/// The `i`-th of `n` equal slices of `span` ms from `from`: (start, end).
pub(super) fn slice(from: f64, span: f64, i: usize, n: usize) -> (f64, f64) {
    let n = n.max(1) as f64;
    (from + span * i as f64 / n, from + span * (i + 1) as f64 / n)
}
