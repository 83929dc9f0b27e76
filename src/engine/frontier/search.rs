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
//! arrivals a setting drops from a cell are a suffix, found by binary search. Under one lag the
//! rule is monotone in the grace as well: the graces, sorted once, that drop a cell's last
//! arrival are a prefix, found by binary search too, and a cell none of them touches costs no
//! more. The lags are shared out over the machine's cores.

use rustc_hash::FxHashMap;

use super::{FrontierPoint, Score};
use crate::engine::lateness::Fate;
use crate::engine::processor::EngineConfig;
use crate::engine::stream::Stream;
use crate::engine::watermark::Watermark;
use crate::engine::window::{CellId, WindowId};

/// [`super::sweep`] by search; `None` where the search does not apply, and the engine must
/// run: merging windows, a state TTL, a lag that is not finite (for a kind with a lag) or a
/// grace that is NaN.
pub(super) fn sweep(
    stream: &Stream,
    base: EngineConfig,
    lags: &[f64],
    graces: &[f64],
) -> Option<Vec<FrontierPoint>> {
    let lagged = base.watermark.lag().is_some();
    if base.window.is_merging()
        || base.window.ttl().is_some()
        || (lagged && lags.iter().any(|l| !l.is_finite()))
        || graces.iter().any(|g| g.is_nan())
    {
        return None;
    }
    let arrivals = Arrivals::gather(stream, base);
    // Graces ascending, and where each given grace went.
    let mut order: Vec<usize> = (0..graces.len()).collect();
    order.sort_by(|&a, &b| graces[a].total_cmp(&graces[b]));
    let sorted: Vec<f64> = order.iter().map(|&i| graces[i]).collect();
    let mut rank = vec![0; graces.len()];
    for (r, &i) in order.iter().enumerate() {
        rank[i] = r;
    }
    // A kind without a lag is the same watermark under every lag: counted once.
    let per_lag: Vec<Vec<Tally>> = if lagged {
        tally_all(&arrivals, lags, &sorted)
    } else {
        let once = arrivals.tally(0.0, &sorted);
        vec![once; lags.len()]
    };
    let points = lags
        .iter()
        .zip(&per_lag)
        .flat_map(|(&lag, tallies)| {
            let (rank, total) = (&rank, arrivals.placements());
            graces.iter().zip(rank).map(move |(&grace, &r)| {
                let t = tallies[r];
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
        .collect();
    Some(points)
}

/// What one setting drops, over every cell.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Tally {
    /// Arrivals dropped: what the final values miss.
    dropped: u64,
    /// Cells that lost at least one arrival.
    wrong_windows: usize,
    /// The most arrivals one cell lost.
    max_error: u64,
}

/// Every (window, key) cell's arrivals: the window's end, and the watermark's clock at each
/// arrival in arrival order.
struct Arrivals {
    /// Per cell, its window's end, ms.
    ends: Vec<f64>,
    /// Per cell `c`, its arrivals are `clock[starts[c]..starts[c + 1]]`.
    starts: Vec<usize>,
    /// The clock at each arrival, grouped by cell, non-decreasing within a cell.
    clock: Vec<f64>,
}

impl Arrivals {
    /// Places every event in its windows, as the engine assigns them, and records the clock
    /// at its arrival in each: the watermark of `base`'s kind with a lag of 0.
    fn gather(stream: &Stream, base: EngineConfig) -> Arrivals {
        let kind = base.watermark.with_lag(0.0);
        let max_delay = stream.max_delay();
        // First pass: each arrival's cell, numbered in order of first arrival. An event
        // usually lands in the window its key's previous event did: that is checked before
        // the map.
        let mut cells: FxHashMap<CellId, u32> = FxHashMap::default();
        let mut ends: Vec<f64> = Vec::new();
        let mut recent: Vec<Option<(WindowId, u32)>> = vec![None; stream.keys.len()];
        let mut cell_of: Vec<u32> = Vec::with_capacity(stream.events.len());
        for e in &stream.events {
            for window in base.window.assign(e.event_time) {
                let id = match recent.get(e.key as usize).copied().flatten() {
                    Some((w, id)) if w == window => id,
                    _ => {
                        let next = ends.len() as u32;
                        let id = *cells.entry(CellId { window, key: e.key }).or_insert(next);
                        if id == next {
                            ends.push(window.end());
                        }
                        if let Some(slot) = recent.get_mut(e.key as usize) {
                            *slot = Some((window, id));
                        }
                        id
                    }
                };
                cell_of.push(id);
            }
        }
        drop(cells);
        let mut starts = vec![0usize; ends.len() + 1];
        for &c in &cell_of {
            starts[c as usize + 1] += 1;
        }
        for c in 0..ends.len() {
            starts[c + 1] += starts[c];
        }
        // Second pass: the clock at each arrival, into its cell's run (in arrival order).
        let mut next = starts[..ends.len()].to_vec();
        let mut clock = vec![0.0; cell_of.len()];
        let mut wm = Watermark::new(kind, max_delay);
        let mut placed = cell_of.iter();
        for e in &stream.events {
            let at = wm.observe(e);
            for _ in base.window.assign(e.event_time) {
                let c = *placed.next().expect("the same windows as the first pass") as usize;
                clock[next[c]] = at;
                next[c] += 1;
            }
        }
        Arrivals {
            ends,
            starts,
            clock,
        }
    }

    /// How many (event, window) placements there are: the oracle's total.
    fn placements(&self) -> u64 {
        self.clock.len() as u64
    }

    /// What each grace (ascending) drops under `lag`: the watermark at an arrival is its clock
    /// − `lag`.
    fn tally(&self, lag: f64, graces: &[f64]) -> Vec<Tally> {
        let mut tallies = vec![Tally::default(); graces.len()];
        for (c, &end) in self.ends.iter().enumerate() {
            let arrivals = &self.clock[self.starts[c]..self.starts[c + 1]];
            let Some(&last) = arrivals.last() else {
                continue;
            };
            let dropped = |x: f64, grace: f64| Fate::decide(end, x - lag, grace) == Fate::Dropped;
            // The graces that drop the last arrival (the one with the highest watermark).
            let touched = graces.partition_point(|&g| dropped(last, g));
            let mut from = 0;
            for (t, &g) in tallies.iter_mut().zip(&graces[..touched]) {
                // A larger grace keeps at least what a smaller one kept.
                from += arrivals[from..].partition_point(|&x| !dropped(x, g));
                let n = (arrivals.len() - from) as u64;
                t.dropped += n;
                t.wrong_windows += 1;
                t.max_error = t.max_error.max(n);
            }
        }
        tallies
    }
}

/// [`Arrivals::tally`] for every lag, shared out over the machine's cores.
fn tally_all(arrivals: &Arrivals, lags: &[f64], graces: &[f64]) -> Vec<Vec<Tally>> {
    let one = |&lag: &f64| arrivals.tally(lag, graces);
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(lags.len());
    // Small sweeps are not worth a thread.
    if threads <= 1 || arrivals.ends.len() * lags.len() < 4_096 {
        return lags.iter().map(one).collect();
    }
    let chunk = lags.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = lags
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(one).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a tally does not panic"))
            .collect()
    })
}
