//! The frontier by search over a stream gone over in a pass (two where arrivals come very
//! late) rather than held, for windows that do not merge and state without a TTL: the same
//! answer as `search`, in memory that follows the cells still open, not the log.
//!
//! `search` gathers every cell's arrivals (the watermark's clock at each) and counts what each
//! (lag, grace) drops from them. An arrival whose clock `x` drops it at the largest lag `L` and
//! grace `G` swept (`E ≤ (x − L) − G`, `E` its window's end) is dropped at every setting, as
//! subtracting a smaller lag or grace never gives less, in floating point too; and the clock
//! never falls, so once the clock has taken a window past that point every later arrival in
//! it is such an arrival, and came after the cell's others. So a cell's other arrivals are
//! gathered until the clock takes its window past that point, and then the cell is counted
//! into every setting's tally, freed, and its window closed for gathering. An arrival dropped
//! everywhere adds one to the count of every setting: it is counted with its cell while the
//! window is open; after, it is noted per cell, and a second pass gathers the arrivals of
//! those cells alone and counts each again with all of them, in place of what it was counted
//! as (a count that only grows: the sums take the difference, the largest the new).

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use super::search::{ascending, gallop, Tally};
use crate::lateness::Fate;
use crate::processor::EngineConfig;
use crate::stream::{Event, KeyId, Stream};
use crate::watermark::Watermark;
use crate::window::{CellId, WindowId};

/// A stream's events, in arrival order, that can be gone over again and again: a stream in
/// memory, or a log held in a file and read back for each pass.
pub trait Replay: Sync {
    /// How many events.
    fn len(&self) -> usize;

    /// Whether there are none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The largest delay of the events, as [`Stream::max_delay`] gives it.
    fn max_delay(&self) -> f64;

    /// Goes over the events in arrival order, a slice at a time, until `each` returns false.
    fn replay(&self, each: &mut dyn FnMut(&[Event]) -> bool);

    /// The stream itself, where its events are in memory.
    fn in_memory(&self) -> Option<&Stream> {
        None
    }

    /// How many of the events arrive before their event time (processing time earlier than
    /// event time: early, or on a clock that runs behind the source's).
    fn arriving_early(&self) -> usize {
        let mut early = 0;
        self.replay(&mut |part| {
            early += part.iter().filter(|e| e.proc_time < e.event_time).count();
            true
        });
        early
    }
}

impl Replay for Stream {
    fn len(&self) -> usize {
        self.events.len()
    }

    fn max_delay(&self) -> f64 {
        Stream::max_delay(self)
    }

    fn replay(&self, each: &mut dyn FnMut(&[Event]) -> bool) {
        for part in self.events.chunks(1 << 16) {
            if !each(part) {
                return;
            }
        }
    }

    fn in_memory(&self) -> Option<&Stream> {
        Some(self)
    }
}

/// Whether the folded search serves `base`: windows that do not merge, Beam Java's rules, no
/// TTL (where `search` serves a stream in memory).
pub(crate) fn serves(base: &EngineConfig) -> bool {
    !base.window.is_merging()
        && base.conventions == crate::conventions::Conventions::Beam
        && base.window.ttl().is_none()
}

/// What each (lag, grace) drops, lag-major, with `lags` and `graces` ascending (none NaN;
/// `lags` just `[0.0]` for a kind without a lag), over the events of `events` placed in
/// `base`'s windows, the clock at each arrival given by a fresh `clock()` for each pass; and
/// the placements. The same tallies as `search` counts over the gathered arrivals.
fn tally<C: FnMut(&Event) -> f64>(
    events: &dyn Replay,
    base: EngineConfig,
    clock: &impl Fn() -> C,
    lags: &[f64],
    graces: &[f64],
) -> (Vec<Tally>, u64) {
    let mut tallies = vec![Tally::default(); lags.len() * graces.len()];
    let (Some(&most_lag), Some(&most_grace)) = (lags.last(), graces.last()) else {
        return (tallies, placements(events, base));
    };
    // Dropped at every setting swept.
    let everywhere =
        |end: f64, x: f64| Fate::decide(end, x - most_lag, most_grace) == Fate::Dropped;
    let inv_slide = 1.0 / base.window.slide() as f64;
    let mut kept = vec![0usize; graces.len()];
    // The open cells by window: the clock at each arrival no setting drops everywhere, and how
    // many more it had that every setting drops.
    let mut open: BTreeMap<WindowId, FxHashMap<KeyId, (Vec<f64>, u64)>> = BTreeMap::new();
    // Arrivals dropped everywhere in a cell counted already (or in no cell open): per cell.
    let mut late: FxHashMap<CellId, u64> = FxHashMap::default();
    let mut placed = 0u64;
    {
        let mut at = clock();
        events.replay(&mut |part| {
            for e in part {
                let x = at(e);
                for window in base.window.assign_with(e.event_time, inv_slide) {
                    placed += 1;
                    let end = window.end();
                    if !everywhere(end, x) {
                        let cells = open.entry(window).or_default();
                        cells.entry(e.key).or_default().0.push(x);
                    } else if let Some(cells) = open.get_mut(&window) {
                        cells.entry(e.key).or_default().1 += 1;
                    } else {
                        *late.entry(CellId { window, key: e.key }).or_insert(0) += 1;
                    }
                }
                // The windows the clock has taken past every setting: no arrival in them is
                // kept any more, and their cells are counted.
                while let Some(entry) = open.first_entry() {
                    if !everywhere(entry.key().end(), x) {
                        break;
                    }
                    let (window, cells) = entry.remove_entry();
                    tally_window(window, &cells, (lags, graces), &mut tallies, &mut kept);
                }
            }
            true
        });
    }
    while let Some((window, cells)) = open.pop_first() {
        tally_window(window, &cells, (lags, graces), &mut tallies, &mut kept);
    }
    if late.is_empty() {
        return (tallies, placed);
    }
    // The cells counted before arrivals dropped everywhere came: their other arrivals once
    // more, and each counted again with those, in place of what it was counted as.
    // Per such cell: its other arrivals, and all of its arrivals dropped everywhere.
    let mut again: FxHashMap<CellId, (Vec<f64>, u64)> =
        late.keys().map(|&c| (c, (Vec::new(), 0))).collect();
    {
        let mut at = clock();
        events.replay(&mut |part| {
            for e in part {
                let x = at(e);
                for window in base.window.assign_with(e.event_time, inv_slide) {
                    if let Some((arrivals, tail)) = again.get_mut(&CellId { window, key: e.key }) {
                        if everywhere(window.end(), x) {
                            *tail += 1;
                        } else {
                            arrivals.push(x);
                        }
                    }
                }
            }
            true
        });
    }
    let mut counted = vec![Tally::default(); tallies.len()];
    let mut with_late = vec![Tally::default(); tallies.len()];
    for (cell, (arrivals, tail)) in again {
        // It was counted with the arrivals dropped everywhere that came while it was open.
        let before = tail - late.get(&cell).copied().unwrap_or(0);
        let end = cell.window.end();
        counted.fill(Tally::default());
        with_late.fill(Tally::default());
        tally_cell(
            end,
            &arrivals,
            before,
            (lags, graces),
            &mut counted,
            &mut kept,
        );
        tally_cell(
            end,
            &arrivals,
            tail,
            (lags, graces),
            &mut with_late,
            &mut kept,
        );
        for ((t, was), now) in tallies.iter_mut().zip(&counted).zip(&with_late) {
            t.dropped += now.dropped - was.dropped;
            t.wrong_windows += now.wrong_windows - was.wrong_windows;
            // A cell's count only grows with arrivals: the largest stands.
            t.max_error = t.max_error.max(now.max_error);
        }
    }
    (tallies, placed)
}

/// How many (event, window) placements `events` has under `base`'s windows.
fn placements(events: &dyn Replay, base: EngineConfig) -> u64 {
    let inv_slide = 1.0 / base.window.slide() as f64;
    let mut placed = 0u64;
    events.replay(&mut |part| {
        for e in part {
            placed += base.window.assign_with(e.event_time, inv_slide).count() as u64;
        }
        true
    });
    placed
}

/// Counts each cell of `window` ([`tally_cell`]): its keys' arrivals and the arrivals after them.
fn tally_window(
    window: WindowId,
    cells: &FxHashMap<KeyId, (Vec<f64>, u64)>,
    grid: (&[f64], &[f64]),
    tallies: &mut [Tally],
    kept: &mut [usize],
) {
    for (arrivals, tail) in cells.values() {
        tally_cell(window.end(), arrivals, *tail, grid, tallies, kept);
    }
}

/// Adds one cell to every setting's tally: its window's end, the clock at each of its arrivals
/// not dropped everywhere (in arrival order), and how many more arrivals it had, each dropped
/// everywhere (they came after those). `kept` is scratch, one per grace. The counting is
/// `search`'s over the cell's arrivals, those last ones written as a count.
fn tally_cell(
    end: f64,
    arrivals: &[f64],
    tail: u64,
    (lags, graces): (&[f64], &[f64]),
    tallies: &mut [Tally],
    kept: &mut [usize],
) {
    let width = graces.len();
    kept.fill(0);
    let mut touched = width;
    for (&lag, row) in lags.iter().zip(tallies.chunks_mut(width.max(1))) {
        let dropped = |x: f64, grace: f64| Fate::decide(end, x - lag, grace) == Fate::Dropped;
        // The graces that drop the last arrival: all of them when it is dropped everywhere.
        if tail == 0 {
            let Some(&last) = arrivals.last() else {
                return;
            };
            touched = graces[..touched].partition_point(|&g| dropped(last, g));
            if touched == 0 {
                return;
            }
        }
        let mut from = 0;
        for ((t, &g), k) in row.iter_mut().zip(&graces[..touched]).zip(kept.iter_mut()) {
            from = from.max(*k);
            from += gallop(&arrivals[from..], |x| !dropped(x, g));
            *k = from;
            let n = (arrivals.len() - from) as u64 + tail;
            t.dropped += n;
            t.wrong_windows += 1;
            t.max_error = t.max_error.max(n);
        }
    }
}

/// [`FrontierPoint::sweep`](super::FrontierPoint::sweep) by the folded search over `events`, for
/// `serves` settings: every (lag, grace), lag-major, scored as `search` scores them; the clock is
/// `base`'s watermark with a lag of 0 (for a kind without one, the watermark itself). `None` where
/// `search` would not serve either (a lag not finite, a NaN grace) or the folded search does not.
pub(crate) fn sweep(
    events: &dyn Replay,
    base: EngineConfig,
    lags: &[f64],
    graces: &[f64],
) -> Option<Vec<super::FrontierPoint>> {
    let lagged = base.watermark.lag().is_some();
    if !serves(&base)
        || (lagged && lags.iter().any(|l| !l.is_finite()))
        || graces.iter().any(|g| g.is_nan())
    {
        return None;
    }
    let max_delay = events.max_delay();
    let kind = base.watermark.with_lag(0.0);
    let clock = || {
        let mut wm = Watermark::new(kind, max_delay);
        move |e: &Event| wm.observe(e)
    };
    Some(sweep_clocked(events, base, &clock, lagged, lags, graces))
}

/// [`sweep`] with the clock given.
pub(crate) fn sweep_clocked<C: FnMut(&Event) -> f64>(
    events: &dyn Replay,
    base: EngineConfig,
    clock: &impl Fn() -> C,
    lagged: bool,
    lags: &[f64],
    graces: &[f64],
) -> Vec<super::FrontierPoint> {
    let (graces_up, _) = ascending(graces);
    let lags_up = if lagged { ascending(lags).0 } else { vec![0.0] };
    let (tallies, placed) = tally(events, base, clock, &lags_up, &graces_up);
    super::search::scored(lagged, lags, graces, placed, |l, g| {
        debug_assert_eq!((l.len(), g.len()), (lags_up.len(), graces_up.len()));
        tallies
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::WindowFn;
    use proptest::prelude::*;

    prop_compose! {
        /// Events over 200 s on four keys, with delays from −5 s to minutes, a few of them
        /// hours: cells whose arrivals every setting drops, some of them after others no
        /// setting drops.
        fn arb_stream()(raw in proptest::collection::vec(
            (0.0f64..200_000.0, -5_000.0f64..90_000.0, 0u32..4, 0u8..20), 0..300)
        ) -> Stream {
            let events = raw
                .into_iter()
                .map(|(t, d, key, far)| Event {
                    event_time: t.floor(),
                    proc_time: (t + if far == 0 { d * 100.0 } else { d }).floor(),
                    key,
                })
                .collect();
            Stream::from_unordered(events, (0..4).map(|k| k.to_string()).collect())
        }
    }

    fn arb_dials() -> impl Strategy<Value = Vec<f64>> {
        proptest::collection::vec(
            prop_oneof![
                Just(0.0),
                Just(1_000.0),
                Just(5_000.0),
                Just(20_000.0),
                Just(60_000.0)
            ],
            0..5,
        )
    }

    #[test]
    fn arrivals_dropped_everywhere_count_before_and_after_their_window_is_counted() {
        // 10 s windows, lags 0 and 1 s, graces 0 and 2 s: the first window is past every
        // setting once the clock reaches 13 s.
        let ev = |event_time: f64, proc_time: f64, key: u32| Event {
            event_time,
            proc_time,
            key,
        };
        let events = vec![
            ev(1_000.0, 2_000.0, 0),
            ev(9_000.0, 12_000.0, 0),
            // Past every setting while its window is open: counted with its cell.
            ev(5_000.0, 14_000.0, 1),
            // After the window was counted: its cell is counted again.
            ev(3_000.0, 15_000.0, 0),
            ev(20_000.0, 21_000.0, 2),
            // A cell of the window counted that had no arrival before.
            ev(500.0, 30_000.0, 3),
            // And a cell counted with one such arrival already, one more.
            ev(8_000.0, 31_000.0, 1),
        ];
        let s = Stream::from_unordered(events, (0..4).map(|k| k.to_string()).collect());
        let base = EngineConfig {
            window: WindowFn::tumbling(10_000).unwrap(),
            ..EngineConfig::fixed(0.0, 0.0)
        };
        let (lags, graces) = ([1_000.0, 0.0], [0.0, 2_000.0]);
        let folded = sweep(&s, base, &lags, &graces).unwrap();
        assert_eq!(
            Some(folded.clone()),
            super::super::search::sweep(&s, base, None, &lags, &graces)
        );
        // Lag 0, grace 0: the first window loses one of key 0's first two, every late one.
        assert_eq!(folded[2].dropped, 5);
        assert_eq!(folded[2].score.max_error, 2);
    }

    proptest! {
        #[test]
        fn the_folded_search_equals_the_search_over_the_stream_held(
            s in arb_stream(),
            window in prop_oneof![
                Just(WindowFn::tumbling(10_000).unwrap()),
                Just(WindowFn::tumbling(60_000).unwrap()),
                Just(WindowFn::sliding(30_000, 10_000).unwrap()),
            ],
            watermark in prop_oneof![
                Just(crate::watermark::WatermarkKind::Fixed { lag: 0.0 }),
                Just(crate::watermark::WatermarkKind::Bounded { bound: 0.0 }),
                Just(crate::watermark::WatermarkKind::Heuristic { q: 0.9, n: 20 }),
            ],
            lags in arb_dials(),
            graces in arb_dials(),
        ) {
            let base = EngineConfig {
                window,
                watermark,
                ..EngineConfig::fixed(0.0, 0.0)
            };
            let folded = sweep(&s, base, &lags, &graces);
            let held = super::super::search::sweep(&s, base, None, &lags, &graces);
            prop_assert!(folded.is_some());
            prop_assert_eq!(folded, held);
        }
    }
}
