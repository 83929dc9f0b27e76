//! The oracle's true counts gathered one event at a time, in the order a log arrives. A log in
//! processing-time order touches windows a little behind the newest one, so the counts of numbered
//! windows are kept in a ring of recent windows with a slot per key, handed on in cell order as the
//! ring moves past them; a cell behind the ring (an event arriving long after the others of its
//! window, or a session's proto-window) is counted in a hash map, and the two are merged once, at
//! the end. The ring keeps the counting in cache where a map of every cell would miss it on most
//! events; the counts are the same either way.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use super::{CellId, WindowFn};
use crate::stream::{Event, KeyId};

/// The most key slots the ring holds (windows × keys): a few hundred kilobytes.
const RING_SLOTS: usize = 1 << 15;

/// The fewest windows a ring is worth keeping for; with more keys than that allows, every
/// cell goes to the map.
const RING_MIN_WINDOWS: usize = 16;

/// Window numbers at least this far from 0 are counted in the map, so that no arithmetic on
/// them can overflow.
const FAR: u64 = 1 << 60;

/// True counts by cell, gathered one event at a time.
#[derive(Debug, Clone)]
pub struct OracleCounts {
    /// The window function counted under.
    windows: WindowFn,
    /// Keys per ring window (0: no ring).
    keys: usize,
    /// Windows the ring holds (a power of two).
    span: usize,
    /// Number of the window in ring slot `head`.
    base: i64,
    /// Ring slot of window `base`.
    head: usize,
    /// `span` windows × `keys` counts, window `base + i` at slot `(head + i) % span`.
    ring: Vec<u64>,
    /// Cells the ring has moved past, in cell order.
    passed: Vec<(CellId, u64)>,
    /// Cells counted outside the ring.
    stray: FxHashMap<CellId, u64>,
}

impl OracleCounts {
    /// No counts yet, for events of `keys` key ids under `windows`.
    pub fn new(windows: &WindowFn, keys: usize) -> Self {
        // A power of two, so that a ring slot is a mask away.
        let ring_windows = 1usize << (RING_SLOTS / keys.max(1)).max(1).ilog2();
        let ring = !windows.is_merging() && keys > 0 && ring_windows >= RING_MIN_WINDOWS;
        let (keys, span) = if ring { (keys, ring_windows) } else { (0, 0) };
        OracleCounts {
            windows: *windows,
            keys,
            span,
            base: i64::MIN,
            head: 0,
            ring: vec![0; keys * span],
            passed: Vec::new(),
            stray: FxHashMap::default(),
        }
    }

    /// Counts one event: one in each window it is assigned to.
    #[inline]
    pub fn add(&mut self, e: &Event) {
        for window in self.windows.assign(e.event_time) {
            let cell = CellId { window, key: e.key };
            if self.span == 0 || e.key as usize >= self.keys {
                *self.stray.entry(cell).or_insert(0) += 1;
                continue;
            }
            let n = self.windows.index(window);
            if self.base == i64::MIN && n.unsigned_abs() < FAR {
                // Room behind the first window for the events a little earlier in event time.
                self.base = n - (self.span / 4) as i64;
            }
            if n < self.base || n.unsigned_abs() >= FAR {
                *self.stray.entry(cell).or_insert(0) += 1;
                continue;
            }
            if n - self.base >= self.span as i64 {
                self.pass_until(n - self.span as i64 + 1);
            }
            let at = (self.head + (n - self.base) as usize) & (self.span - 1);
            self.ring[at * self.keys + e.key as usize] += 1;
        }
    }

    /// Moves the ring on until its first window is number `first`, handing on the counts
    /// of the windows it leaves.
    #[cold]
    fn pass_until(&mut self, first: i64) {
        // A jump past the whole ring leaves every window it holds.
        let leaving = (first - self.base).min(self.span as i64) as usize;
        for i in 0..leaving {
            let slot = (self.head + i) & (self.span - 1);
            let window = self.windows.at_index(self.base + i as i64);
            let counts = &mut self.ring[slot * self.keys..(slot + 1) * self.keys];
            for (key, n) in counts.iter_mut().enumerate() {
                if *n > 0 {
                    let cell = CellId {
                        window,
                        key: key as KeyId,
                    };
                    self.passed.push((cell, *n));
                    *n = 0;
                }
            }
        }
        self.head = (self.head + leaving) & (self.span - 1);
        self.base = first;
    }

    /// The counts by cell, in the oracle's order.
    pub fn into_truth(mut self) -> BTreeMap<CellId, u64> {
        if self.span > 0 && self.base != i64::MIN {
            self.pass_until(self.base.saturating_add(self.span as i64));
        }
        if self.stray.is_empty() {
            return self.passed.into_iter().collect();
        }
        let mut stray: Vec<(CellId, u64)> = self.stray.into_iter().collect();
        stray.sort_unstable_by_key(|&(c, _)| c);
        let mut merged = Vec::with_capacity(self.passed.len() + stray.len());
        let mut passed = self.passed.into_iter().peekable();
        for (cell, n) in stray {
            while let Some(p) = passed.next_if(|(c, _)| *c < cell) {
                merged.push(p);
            }
            let also = passed.next_if(|(c, _)| *c == cell).map_or(0, |(_, m)| m);
            merged.push((cell, n + also));
        }
        merged.extend(passed);
        merged.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The true counts as defined: one in each window an event is assigned to, in one map.
    fn oracle_add(truth: &mut BTreeMap<CellId, u64>, windows: &WindowFn, e: &Event) {
        for window in windows.assign(e.event_time) {
            *truth.entry(CellId { window, key: e.key }).or_insert(0) += 1;
        }
    }

    fn windows() -> impl Strategy<Value = WindowFn> {
        prop_oneof![
            (1i64..5_000).prop_map(|s| WindowFn::tumbling(s).unwrap()),
            (1i64..50, 1i64..5).prop_map(|(n, k)| WindowFn::sliding(n * k * 10, n * 10).unwrap()),
            (1i64..5_000).prop_map(|g| WindowFn::session(g).unwrap()),
            Just(WindowFn::global(None).unwrap()),
        ]
    }

    /// Event times mostly rising, some far behind or ahead, some at the far edges.
    fn times() -> impl Strategy<Value = Vec<f64>> {
        prop::collection::vec(
            prop_oneof![
                8 => -500.0..2_000.0f64,
                1 => -1e7..1e7f64,
                1 => prop::sample::select(vec![-9e18, 9e18, 4.6e18, -1.2e15, 0.0]),
            ],
            0..400,
        )
        .prop_map(|steps| {
            let mut at = 0.0;
            steps
                .into_iter()
                .map(|s| {
                    if s.abs() > 1e8 {
                        return s;
                    }
                    at += s;
                    at
                })
                .collect()
        })
    }

    proptest! {
        /// The ring and the map count exactly what one map of every cell counts, for any
        /// order of event times, any number of keys (some beyond the ring's) and any window.
        #[test]
        fn counts_as_one_map_does(
            windows in windows(),
            times in times(),
            keys in prop_oneof![1usize..40, Just(5_000usize)],
            key_seed in any::<u64>(),
        ) {
            let mut counts = OracleCounts::new(&windows, keys);
            let mut plain = BTreeMap::new();
            for (i, &t) in times.iter().enumerate() {
                // Key ids past `keys` too: a key the ring has no slot for goes to the map.
                let key = ((key_seed.wrapping_mul(i as u64 + 1) >> 7) % (keys as u64 + 3)) as KeyId;
                let e = Event { event_time: t, proc_time: i as f64, key };
                counts.add(&e);
                oracle_add(&mut plain, &windows, &e);
            }
            prop_assert_eq!(counts.into_truth(), plain);
        }
    }
}
