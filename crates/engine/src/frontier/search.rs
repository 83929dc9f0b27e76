//! The frontier by search, for windows that do not merge and state without a TTL: there a
//! cell's final value is its true count less the events dropped from it (a window is finalised
//! by the same threshold that drops, and the threshold only rises), so scoring a setting needs
//! only how many of each cell's arrivals the drop rule refuses.
//!
//! An arrival in a window ending at `E` is dropped when `E ≤ W − G` ([`Fate::decide`]), `W` the
//! watermark after it. For `fixed:L` the watermark is the largest processing time seen − `L`,
//! for `bounded:L` the largest event time seen − `L`: in both, the largest time seen (the
//! watermark's clock, gathered once with a lag of 0) less the lag, exactly so in floating point
//! too, as subtracting a finite `L` never reorders two numbers. The other kinds have no lag,
//! and their watermark is the clock itself. The clock never falls, so each cell's arrivals,
//! gathered in arrival order, are sorted by it, and the drop rule is monotone in it: the
//! arrivals a setting drops from a cell are a suffix, found by search. The rule is monotone
//! in the lag and in the grace as well (a larger one drops no more): with both sorted once,
//! the graces that drop a cell's last arrival are a prefix that shrinks as the lag grows, a
//! cell none of them touches costs nothing more, and each search starts where the setting
//! before it stopped. A cell is taken once for every setting, and the cells are shared out
//! over the machine's cores.

use rustc_hash::FxHashMap;

use super::{FrontierPoint, Score};
use crate::lateness::Fate;
use crate::processor::EngineConfig;
use crate::stream::Stream;
use crate::watermark::Watermark;
use crate::window::{CellId, WindowId};

/// [`FrontierPoint::sweep`] by search; `None` where the search does not apply, and the engine must
/// run: merging windows, a state TTL, a lag that is not finite (for a kind with a lag) or a
/// grace that is NaN.
pub(super) fn sweep(
    stream: &Stream,
    base: EngineConfig,
    clock: Option<&[f64]>,
    lags: &[f64],
    graces: &[f64],
) -> Option<Vec<FrontierPoint>> {
    let lagged = base.watermark.lag().is_some();
    // The search counts drops by Beam Java's rule; other rules take the engine's path.
    if base.window.is_merging()
        || base.conventions != crate::conventions::Conventions::Beam
        || base.window.ttl().is_some()
        || (lagged && lags.iter().any(|l| !l.is_finite()))
        || graces.iter().any(|g| g.is_nan())
    {
        return None;
    }
    let arrivals = Arrivals::gather(stream, base, clock);
    Some(sweep_arrivals(&arrivals, lagged, lags, graces))
}

/// Scores every (lag, grace) over cells' arrivals: what each setting drops, by search. For a
/// kind without a lag (`lagged` false) every lag is the same watermark, counted once. Points
/// come lag-major, as [`FrontierPoint::sweep`] gives them.
pub(super) fn sweep_arrivals(
    arrivals: &Arrivals,
    lagged: bool,
    lags: &[f64],
    graces: &[f64],
) -> Vec<FrontierPoint> {
    scored(
        lagged,
        lags,
        graces,
        arrivals.placements(),
        |lags, graces| {
            shared_out(arrivals.ends.len(), (lags.len(), graces.len()), |cells| {
                arrivals.tally(cells, lags, graces)
            })
        },
    )
}

/// Every (lag, grace) scored from `tally`, which gives what each setting does with the lags
/// and graces ascending, lag-major, over placements `total` in all. For a kind without a lag
/// (`lagged` false) every lag is the same watermark, tallied once. Points come lag-major, as
/// given.
pub(super) fn scored(
    lagged: bool,
    lags: &[f64],
    graces: &[f64],
    total: u64,
    tally: impl FnOnce(&[f64], &[f64]) -> Vec<Tally>,
) -> Vec<FrontierPoint> {
    let (graces_up, grace_rank) = ascending(graces);
    // A kind without a lag is the same watermark under every lag: counted once.
    let (lags_up, lag_rank) = if lagged {
        ascending(lags)
    } else {
        (vec![0.0], vec![0; lags.len()])
    };
    let tallies = tally(&lags_up, &graces_up);
    lags.iter()
        .zip(&lag_rank)
        .flat_map(|(&lag, &l)| {
            let row = &tallies[l * graces.len()..];
            graces.iter().zip(&grace_rank).map(move |(&grace, &g)| {
                let t = row[g];
                FrontierPoint {
                    lag,
                    grace,
                    emit_delay: lag + grace,
                    dropped: t.dropped,
                    score: Score {
                        wrong_windows: t.wrong_windows,
                        events_lost: t.dropped as i64,
                        max_error: t.max_error as i64,
                        truth_total: total,
                    },
                }
            })
        })
        .collect()
}

/// The values ascending (none is NaN), and the place of each given value among them.
pub(super) fn ascending(values: &[f64]) -> (Vec<f64>, Vec<usize>) {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut rank = vec![0; values.len()];
    for (r, &i) in order.iter().enumerate() {
        rank[i] = r;
    }
    (order.iter().map(|&i| values[i]).collect(), rank)
}

/// What one setting drops, over every cell (or true session).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Tally {
    /// Arrivals dropped: what the final values miss.
    pub(super) dropped: u64,
    /// Cells that lost at least one arrival (true sessions not reproduced exactly).
    pub(super) wrong_windows: usize,
    /// The most arrivals one cell lost.
    pub(super) max_error: u64,
}

/// Every (window, key) cell's arrivals: the window's end, and the watermark's clock at each
/// arrival in arrival order; or, from statistics, each clock value once with how many
/// arrivals had it.
pub(super) struct Arrivals {
    /// Per cell, its window's end, ms.
    ends: Vec<f64>,
    /// Per cell, the clock at each of its arrivals, in arrival order (so never falling).
    clock: Vec<Vec<f64>>,
    /// Per cell, for each of its clock values, how many arrivals had that value or a later
    /// one (a suffix sum); empty when each value stands for one arrival.
    after: Vec<Vec<u64>>,
    /// How many (event, window) placements there are: the oracle's total.
    placements: u64,
}

impl Arrivals {
    /// Places every event in its windows, as the engine assigns them, and records the clock
    /// at its arrival in each: the watermark of `base`'s kind with a lag of 0. Cells are
    /// numbered in order of first arrival; an event usually lands in the window its key's
    /// previous event did, which is checked before the map.
    fn gather(stream: &Stream, base: EngineConfig, given: Option<&[f64]>) -> Arrivals {
        // The clock as given, or run here, in the same pass (each its own loop).
        match given {
            Some(c) => Arrivals::gather_at(stream, base, |i, _| c[i]),
            None => {
                let mut wm = Watermark::new(base.watermark.with_lag(0.0), stream.max_delay());
                Arrivals::gather_at(stream, base, |_, e| wm.observe(e))
            }
        }
    }

    /// [`Arrivals::gather`] with the clock at the `i`th arrival `at(i, event)`.
    fn gather_at(
        stream: &Stream,
        base: EngineConfig,
        mut at: impl FnMut(usize, &crate::stream::Event) -> f64,
    ) -> Arrivals {
        let inv_slide = 1.0 / base.window.slide() as f64;
        let mut cells: FxHashMap<CellId, u32> = FxHashMap::default();
        let mut ends: Vec<f64> = Vec::new();
        let mut clock: Vec<Vec<f64>> = Vec::new();
        let mut recent: Vec<Option<(WindowId, u32)>> = vec![None; stream.keys.len()];
        let mut placements = 0u64;
        for (i, e) in stream.events.iter().enumerate() {
            let at = at(i, e);
            for window in base.window.assign_with(e.event_time, inv_slide) {
                let id = match recent.get(e.key as usize).copied().flatten() {
                    Some((w, id)) if w == window => id,
                    _ => {
                        let next = ends.len() as u32;
                        let id = *cells.entry(CellId { window, key: e.key }).or_insert(next);
                        if id == next {
                            ends.push(window.end());
                            clock.push(Vec::new());
                        }
                        if let Some(slot) = recent.get_mut(e.key as usize) {
                            *slot = Some((window, id));
                        }
                        id
                    }
                };
                clock[id as usize].push(at);
                placements += 1;
            }
        }
        Arrivals {
            ends,
            clock,
            after: Vec::new(),
            placements,
        }
    }

    /// Cells given as their window's end and a histogram of clock values: `(clock, count)`
    /// pairs, clocks ascending. Empty histograms and zero counts are left out.
    pub(super) fn weighted(cells: impl IntoIterator<Item = (f64, Vec<(f64, u64)>)>) -> Arrivals {
        let mut a = Arrivals {
            ends: Vec::new(),
            clock: Vec::new(),
            after: Vec::new(),
            placements: 0,
        };
        for (end, mut histogram) in cells {
            histogram.retain(|&(_, n)| n > 0);
            if histogram.is_empty() {
                continue;
            }
            let mut after: Vec<u64> = histogram.iter().map(|&(_, n)| n).collect();
            for i in (0..after.len().saturating_sub(1)).rev() {
                after[i] += after[i + 1];
            }
            a.placements += after[0];
            a.ends.push(end);
            a.clock
                .push(histogram.into_iter().map(|(c, _)| c).collect());
            a.after.push(after);
        }
        a
    }

    /// How many of cell `c`'s arrivals lie at or after its `from`th clock value.
    fn counted_from(&self, c: usize, from: usize) -> u64 {
        match self.after.get(c) {
            Some(after) => after.get(from).copied().unwrap_or(0),
            None => (self.clock[c].len() - from) as u64,
        }
    }

    /// How many (event, window) placements there are: the oracle's total.
    fn placements(&self) -> u64 {
        self.placements
    }

    /// What each (lag, grace) drops from cells `cells`, lag-major, lags and graces ascending:
    /// the watermark at an arrival is its clock − the lag. A cell is taken once for all
    /// settings, while its arrivals are in cache. A larger lag or grace drops no more than a
    /// smaller one, so each search starts where the smaller ones left off.
    fn tally(&self, cells: std::ops::Range<usize>, lags: &[f64], graces: &[f64]) -> Vec<Tally> {
        let width = graces.len();
        let mut tallies = vec![Tally::default(); lags.len() * width];
        // Per grace, how many of the cell's arrivals the previous lag kept.
        let mut kept = vec![0usize; width];
        for c in cells {
            let end = self.ends[c];
            let arrivals = &self.clock[c][..];
            let Some(&last) = arrivals.last() else {
                continue;
            };
            kept.fill(0);
            let mut touched = width;
            for (&lag, row) in lags.iter().zip(tallies.chunks_mut(width.max(1))) {
                let dropped =
                    |x: f64, grace: f64| Fate::decide(end, x - lag, grace) == Fate::Dropped;
                // The graces that drop the last arrival (the one with the highest watermark).
                touched = graces[..touched].partition_point(|&g| dropped(last, g));
                if touched == 0 {
                    break;
                }
                let mut from = 0;
                for ((t, &g), k) in row.iter_mut().zip(&graces[..touched]).zip(&mut kept) {
                    from = from.max(*k);
                    from += gallop(&arrivals[from..], |x| !dropped(x, g));
                    *k = from;
                    let n = self.counted_from(c, from);
                    t.dropped += n;
                    t.wrong_windows += 1;
                    t.max_error = t.max_error.max(n);
                }
            }
        }
        tallies
    }
}

/// How many of `xs` from the front satisfy `pred`, which holds of a prefix: a search from the
/// front in doubling steps, then by halves, so that it costs the log of the answer.
pub(super) fn gallop(xs: &[f64], pred: impl Fn(f64) -> bool) -> usize {
    let (mut lo, mut step) = (0, 1);
    // Every x before `lo` satisfies `pred`.
    while lo + step <= xs.len() && pred(xs[lo + step - 1]) {
        lo += step;
        step *= 2;
    }
    let hi = (lo + step).min(xs.len());
    lo + xs[lo..hi].partition_point(|&x| pred(x))
}

/// `tally` over items `0..n` (cells, or true sessions) for `lags` × `graces` settings, shared
/// out over the machine's cores and the parts' tallies added up (sums and maxima: the answer
/// does not depend on the sharing).
pub(super) fn shared_out(
    n: usize,
    (lags, graces): (usize, usize),
    tally: impl Fn(std::ops::Range<usize>) -> Vec<Tally> + Sync,
) -> Vec<Tally> {
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    // Small sweeps are not worth a thread.
    if threads <= 1 || n * lags < 4_096 {
        return tally(0..n);
    }
    let chunk = n.div_ceil(threads);
    let tally = &tally;
    let parts: Vec<Vec<Tally>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..n)
            .step_by(chunk)
            .map(|from| scope.spawn(move || tally(from..(from + chunk).min(n))))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a tally does not panic"))
            .collect()
    });
    let mut total = vec![Tally::default(); lags * graces];
    for part in parts {
        for (t, p) in total.iter_mut().zip(part) {
            t.dropped += p.dropped;
            t.wrong_windows += p.wrong_windows;
            t.max_error = t.max_error.max(p.max_error);
        }
    }
    total
}
