//! The sliding quantile behind the heuristic watermark: `sorted(last n values)[int(q·(len−1))]`
//! kept incrementally over a window of recent values, O(log n) per value.

use std::collections::{BTreeMap, VecDeque};

/// Total order on f64 as a map key (inputs are never NaN).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct OrdKey(u64);

impl OrdKey {
    fn of(x: f64) -> Self {
        let b = x.to_bits();
        OrdKey(if b >> 63 == 1 { !b } else { b | (1 << 63) })
    }
    fn value(self) -> f64 {
        let b = self.0;
        f64::from_bits(if b >> 63 == 1 { b & !(1 << 63) } else { !b })
    }
}

/// A multiset of f64 with its size.
#[derive(Debug, Clone, Default)]
struct Multiset {
    counts: BTreeMap<OrdKey, u32>,
    len: usize,
}

impl Multiset {
    fn insert(&mut self, k: OrdKey) {
        *self.counts.entry(k).or_insert(0) += 1;
        self.len += 1;
    }
    fn remove(&mut self, k: OrdKey) -> bool {
        match self.counts.get_mut(&k) {
            Some(c) => {
                *c -= 1;
                if *c == 0 {
                    self.counts.remove(&k);
                }
                self.len -= 1;
                true
            }
            None => false,
        }
    }
    fn max(&self) -> Option<OrdKey> {
        self.counts.last_key_value().map(|(k, _)| *k)
    }
    fn min(&self) -> Option<OrdKey> {
        self.counts.first_key_value().map(|(k, _)| *k)
    }
}

/// `sorted(last n values)[int(q·(len−1))]`, kept incrementally: the `rank + 1` smallest values
/// in one ordered multiset, the rest in another, rebalanced on each push (O(log n), no re-sort).
#[derive(Debug, Clone)]
pub struct SlidingQuantile {
    q: f64,
    n: usize,
    recent: VecDeque<f64>,
    low: Multiset,
    high: Multiset,
}

impl SlidingQuantile {
    /// An empty quantile `q` (0 to 1) over the last `n` values (at least 1).
    pub fn new(q: f64, n: usize) -> Self {
        SlidingQuantile {
            q,
            n: n.max(1),
            // Grown as values come: a long history on a short stream costs nothing.
            recent: VecDeque::new(),
            low: Multiset::default(),
            high: Multiset::default(),
        }
    }

    /// How many values it holds (at most `n`).
    pub fn len(&self) -> usize {
        self.recent.len()
    }

    /// Whether it holds no value yet.
    pub fn is_empty(&self) -> bool {
        self.recent.is_empty()
    }

    /// Adds a value, evicting the oldest beyond `n`.
    pub fn push(&mut self, x: f64) {
        let k = OrdKey::of(x);
        match self.low.max() {
            Some(m) if k <= m => self.low.insert(k),
            _ => self.high.insert(k),
        }
        self.recent.push_back(x);
        if self.recent.len() > self.n {
            let old = OrdKey::of(self.recent.pop_front().expect("non-empty"));
            if !self.low.remove(old) {
                self.high.remove(old);
            }
        }
        self.rebalance();
    }

    fn rank(&self) -> usize {
        let len = self.recent.len();
        if len == 0 {
            return 0;
        }
        ((self.q * (len - 1) as f64) as usize).min(len - 1)
    }

    fn rebalance(&mut self) {
        let want = if self.recent.is_empty() {
            0
        } else {
            self.rank() + 1
        };
        // Keep every value of `low` ≤ every value of `high`.
        while let (Some(a), Some(b)) = (self.low.max(), self.high.min()) {
            if a <= b {
                break;
            }
            self.low.remove(a);
            self.high.insert(a);
            self.high.remove(b);
            self.low.insert(b);
        }
        while self.low.len > want {
            let m = self.low.max().expect("non-empty");
            self.low.remove(m);
            self.high.insert(m);
        }
        while self.low.len < want {
            let m = self.high.min().expect("enough values");
            self.high.remove(m);
            self.low.insert(m);
        }
    }

    /// The quantile now, `None` before the first value.
    pub fn value(&self) -> Option<f64> {
        self.low.max().map(OrdKey::value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(hist: &[f64], q: f64) -> f64 {
        let mut s = hist.to_vec();
        s.sort_by(f64::total_cmp);
        s[(q * (s.len() - 1) as f64) as usize]
    }

    #[test]
    fn sliding_quantile_matches_sorting() {
        let mut sq = SlidingQuantile::new(0.95, 7);
        let mut hist = Vec::new();
        let xs = [
            5.0, 1.0, 1.0, 9.0, -2.0, 3.5, 3.5, 0.0, 7.0, 8.0, 1.0, 2.0, 100.0, -0.5,
        ];
        for &x in xs.iter().chain(xs.iter().rev()) {
            sq.push(x);
            hist.push(x);
            if hist.len() > 7 {
                hist.remove(0);
            }
            assert_eq!(sq.value(), Some(naive(&hist, 0.95)));
        }
    }

    #[test]
    fn ordkey_round_trips() {
        for x in [-3.5, -0.0, 0.0, 1e-300, 7.25, f64::MAX, f64::MIN] {
            assert_eq!(OrdKey::of(x).value().to_bits(), x.to_bits());
        }
        assert!(OrdKey::of(-1.0) < OrdKey::of(0.5));
    }
}
