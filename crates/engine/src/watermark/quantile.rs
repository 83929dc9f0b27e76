//! The sliding quantile behind the heuristic watermark: `sorted(last n values)[int(q·(len−1))]`
//! kept incrementally over a window of recent values, in sorted blocks.

use std::collections::VecDeque;

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

/// `sorted(last n values)[int(q·(len−1))]`, kept incrementally. The recent values are held
/// sorted in blocks of a few dozen to a few hundred (each block sorted, every value of a block
/// at most every value of the next): a value goes into or out of its block with a binary
/// search over the blocks' largest values and a short move within one block, and the block
/// holding the quantile's rank is followed as values come and go (the rank moves by at most
/// one a push), so a push costs a few hundred nanoseconds at most and no tree nodes.
#[derive(Debug, Clone)]
pub(crate) struct SlidingQuantile {
    q: f64,
    n: usize,
    recent: VecDeque<f64>,
    /// The recent values in order, in blocks (none empty).
    blocks: Vec<Vec<OrdKey>>,
    /// Each block's largest value.
    tops: Vec<OrdKey>,
    /// A block splits in two past this many values.
    most: usize,
    /// The block holding the quantile's rank, and how many values the blocks before it hold.
    at: usize,
    before: usize,
}

impl SlidingQuantile {
    /// An empty quantile `q` (0 to 1) over the last `n` values (at least 1).
    pub fn new(q: f64, n: usize) -> Self {
        let n = n.max(1);
        // About √n values a block: as many blocks as values in one.
        let most = 2 * n.isqrt().clamp(16, 512);
        SlidingQuantile {
            q,
            n,
            // Grown as values come: a long history on a short stream costs nothing.
            recent: VecDeque::new(),
            blocks: Vec::new(),
            tops: Vec::new(),
            most,
            at: 0,
            before: 0,
        }
    }

    #[cfg(test)]
    /// How many values it holds (at most `n`).
    pub fn len(&self) -> usize {
        self.recent.len()
    }

    /// Adds a value, evicting the oldest beyond `n`.
    pub fn push(&mut self, x: f64) {
        self.insert(OrdKey::of(x));
        self.recent.push_back(x);
        if self.recent.len() > self.n {
            let old = self.recent.pop_front().expect("non-empty");
            self.remove(OrdKey::of(old));
        }
        self.follow_rank();
    }

    /// The block a value belongs in: the first whose largest value is at least it (the last
    /// block for a value above all).
    fn block_of(&self, k: OrdKey) -> usize {
        self.tops
            .partition_point(|&top| top < k)
            .min(self.blocks.len().saturating_sub(1))
    }

    fn insert(&mut self, k: OrdKey) {
        if self.blocks.is_empty() {
            self.blocks.push(vec![k]);
            self.tops.push(k);
            return;
        }
        let b = self.block_of(k);
        let block = &mut self.blocks[b];
        let i = block.partition_point(|&v| v <= k);
        block.insert(i, k);
        self.tops[b] = *block.last().expect("non-empty");
        if b < self.at {
            self.before += 1;
        }
        if block.len() > self.most {
            let upper = block.split_off(block.len() / 2);
            self.tops[b] = *block.last().expect("non-empty");
            self.tops.insert(b + 1, *upper.last().expect("non-empty"));
            self.blocks.insert(b + 1, upper);
            if b < self.at {
                self.at += 1;
            }
        }
    }

    fn remove(&mut self, k: OrdKey) {
        let b = self.block_of(k);
        let block = &mut self.blocks[b];
        let i = block.partition_point(|&v| v < k);
        debug_assert_eq!(block.get(i), Some(&k), "a recent value is held");
        block.remove(i);
        if b < self.at {
            self.before -= 1;
        }
        match block.last() {
            Some(&top) => self.tops[b] = top,
            None => {
                self.blocks.remove(b);
                self.tops.remove(b);
                if b < self.at {
                    self.at -= 1;
                } else if b == self.at && self.at == self.blocks.len() && self.at > 0 {
                    // The rank's block was the last, and is gone: the one before it holds
                    // the values up to it.
                    self.at -= 1;
                    self.before -= self.blocks[self.at].len();
                }
            }
        }
    }

    fn rank(&self) -> usize {
        let len = self.recent.len();
        if len == 0 {
            return 0;
        }
        ((self.q * (len - 1) as f64) as usize).min(len - 1)
    }

    /// Moves `at` to the block holding the quantile's rank.
    fn follow_rank(&mut self) {
        let rank = self.rank();
        self.at = self.at.min(self.blocks.len().saturating_sub(1));
        while self.before > rank && self.at > 0 {
            self.at -= 1;
            self.before -= self.blocks[self.at].len();
        }
        while self.at + 1 < self.blocks.len() && self.before + self.blocks[self.at].len() <= rank {
            self.before += self.blocks[self.at].len();
            self.at += 1;
        }
    }

    /// The quantile now, `None` before the first value.
    pub fn value(&self) -> Option<f64> {
        let block = self.blocks.get(self.at)?;
        block.get(self.rank() - self.before).map(|k| k.value())
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

    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Every push gives the quantile a sort of the recent values gives, for any window,
        /// quantile and values (many alike, some signed zeros), over enough pushes to split
        /// and empty blocks many times.
        #[test]
        fn matches_sorting_for_any_values(
            n in prop_oneof![1usize..40, 200usize..800],
            q in prop_oneof![0.0..=1.0f64, prop::sample::select(vec![0.0, 0.5, 0.999, 1.0])],
            xs in prop_oneof![
                prop::collection::vec(
                    prop_oneof![
                        (-50i32..50).prop_map(f64::from),
                        -1e6..1e6f64,
                        prop::sample::select(vec![-0.0, 0.0, f64::MAX, f64::MIN]),
                    ],
                    1..2_000,
                ),
                // Runs rising then falling: blocks at either end fill and empty in turn.
                (1usize..600, 1usize..1_500, -3.0..3.0f64).prop_map(|(up, down, step)| {
                    (0..up)
                        .map(|i| i as f64 * step.abs())
                        .chain((0..down).map(|i| -(i as f64) * step))
                        .collect::<Vec<f64>>()
                }),
            ],
        ) {
            let mut sq = SlidingQuantile::new(q, n);
            for (i, &x) in xs.iter().enumerate() {
                sq.push(x);
                let recent = &xs[(i + 1).saturating_sub(n)..=i];
                prop_assert_eq!(sq.len(), recent.len());
                prop_assert_eq!(
                    sq.value().map(f64::to_bits),
                    Some(naive(recent, q).to_bits()),
                    "push {}", i
                );
            }
        }
    }

    #[test]
    fn the_top_quantile_follows_when_its_block_empties() {
        // q = 1: the rank's block is the last, and a falling run of values empties it.
        let mut sq = SlidingQuantile::new(1.0, 40);
        let mut hist = Vec::new();
        let xs = (1..=40)
            .map(f64::from)
            .chain((1..=200).map(|i| -f64::from(i)));
        for x in xs {
            sq.push(x);
            hist.push(x);
            if hist.len() > 40 {
                hist.remove(0);
            }
            assert_eq!(sq.value(), Some(naive(&hist, 1.0)), "after {x}");
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
