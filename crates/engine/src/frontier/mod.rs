//! Block 7, the accuracy/latency frontier: how much correctness each setting of the dials buys.
//! A run is scored against the oracle (windows wrong, events lost, the largest error, accuracy)
//! and a sweep scores a grid of lags and graces exactly as the engine would: by search where
//! the final values follow from the drop rule alone (`search`), by engine runs where they do
//! not (`runs`).

pub(crate) mod folded;
mod runs;
mod search;
pub(crate) mod sessions;
pub mod slack;

pub use folded::Replay;
pub(crate) use runs::same_decisions;

use std::collections::BTreeMap;

use super::processor::{run_with, EngineConfig, Processor};
use super::stream::{KeyId, Stream};
use super::watermark::WatermarkKind;
use super::window::{CellId, WindowFn, WindowId};

/// A run's final values measured against the oracle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Score {
    /// Cells of the truth that the run does not reproduce exactly (the same window and key with
    /// the same value): for sessions, the true sessions whose bounds or count the run missed.
    pub wrong_windows: usize,
    /// Σ (truth − what the run counted of it): the events the final values miss.
    pub events_lost: i64,
    /// max (truth − what the run counted of it), 0 when nothing is lost.
    pub max_error: i64,
    /// Σ truth.
    pub truth_total: u64,
}

impl Score {
    /// Each true cell with its count and the run's value there (None if the run has no such
    /// cell), in the oracle's order: one walk through both maps, as both are in cell order.
    pub fn joined<'a>(
        truth: &'a BTreeMap<CellId, u64>,
        finals: &'a BTreeMap<CellId, u64>,
    ) -> impl Iterator<Item = (CellId, u64, Option<u64>)> + 'a {
        let mut finals = finals.iter().peekable();
        truth.iter().map(move |(cell, &t)| {
            while finals.next_if(|(c, _)| *c < cell).is_some() {}
            let got = finals.next_if(|(c, _)| *c == cell).map(|(_, &v)| v);
            (*cell, t, got)
        })
    }

    /// Scores final values (by cell) against the oracle's true counts; only the truth's cells
    /// are scored. What a run counted of a true cell is its final value there (0 if missing)
    /// and, for merging windows, the final values of the run's sessions of that key inside its
    /// span: a run's session always lies inside one true session, as the oracle merges the
    /// proto-windows of every event and a run merges those of the events it kept.
    pub fn of(finals: &BTreeMap<CellId, u64>, truth: &BTreeMap<CellId, u64>) -> Score {
        let mut wrong = 0;
        let mut matched = 0;
        let mut errors = Errors::default();
        for (_, t, got) in Score::joined(truth, finals) {
            wrong += usize::from(got != Some(t));
            matched += usize::from(got.is_some());
            errors.count(t, got.unwrap_or(0));
        }
        // Every final cell is a true cell (always so for non-merging windows), or some lie
        // inside the true sessions: what the run counted of a true session is then theirs.
        if matched < finals.len() {
            let inside = counted_inside(finals, truth);
            errors = Errors::default();
            for (_, t, got) in Score::joined(truth, &inside) {
                errors.count(t, got.unwrap_or(0));
            }
        }
        Score {
            wrong_windows: wrong,
            events_lost: errors.lost,
            max_error: errors.max.unwrap_or(0),
            truth_total: errors.total,
        }
    }

    /// Percentage of the true total that the final values count: `100·(1 − lost/total)`.
    pub fn accuracy(&self) -> f64 {
        if self.truth_total == 0 {
            return 100.0;
        }
        100.0 * (1.0 - self.events_lost as f64 / self.truth_total as f64)
    }
}

/// What a run missed of the true cells, summed over them.
#[derive(Default)]
struct Errors {
    lost: i64,
    max: Option<i64>,
    total: u64,
}

impl Errors {
    /// Adds a true cell of `t` events of which the run counted `got`.
    #[inline]
    fn count(&mut self, t: u64, got: u64) {
        let err = t as i64 - got as i64;
        self.lost += err;
        self.max = Some(self.max.map_or(err, |m| m.max(err)));
        self.total += t;
    }
}

/// Per true cell, the final values of the run's cells of its key inside its span (a final cell
/// inside none is not counted).
fn counted_inside(
    finals: &BTreeMap<CellId, u64>,
    truth: &BTreeMap<CellId, u64>,
) -> BTreeMap<CellId, u64> {
    let by_key: BTreeMap<(KeyId, WindowId), CellId> =
        truth.keys().map(|c| ((c.key, c.window), *c)).collect();
    let mut inside: BTreeMap<CellId, u64> = BTreeMap::new();
    for (cell, &v) in finals {
        // The true cell of the key starting latest at or before this one.
        let holder = by_key
            .range(..=(cell.key, WindowId::new(cell.window.start_ms(), i64::MAX)))
            .next_back()
            .filter(|((key, w), _)| {
                *key == cell.key
                    && w.start_ms() <= cell.window.start_ms()
                    && cell.window.end_ms() <= w.end_ms()
            });
        if let Some((_, true_cell)) = holder {
            *inside.entry(*true_cell).or_insert(0) += v;
        }
    }
    inside
}

/// One point of the sweep.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrontierPoint {
    /// The watermark's lag, ms: the fixed lag or the bounded watermark's bound (for a family
    /// without one, the lag asked for, unused).
    pub lag: f64,
    /// The grace period, ms: how long after the watermark passes a window's end late events are
    /// still counted.
    pub grace: f64,
    /// The delay before a window's final answer: lag + grace, by construction.
    pub emit_delay: f64,
    /// Events dropped as past their window's grace (one per window an event was dropped from).
    pub dropped: u64,
    /// The final values measured against the oracle.
    pub score: Score,
}

impl FrontierPoint {
    /// One (lag, grace) run over `stream` with `base`'s window and watermark family, scored
    /// against `truth`.
    pub fn run(
        stream: &Stream,
        truth: &BTreeMap<CellId, u64>,
        base: EngineConfig,
        lag: f64,
        grace: f64,
    ) -> FrontierPoint {
        let cfg = EngineConfig {
            watermark: base.watermark.with_lag(lag),
            grace,
            early: None,
            ..base
        };
        let r = run_with(stream, cfg, false, None);
        let lag = cfg.watermark.lag().unwrap_or(lag);
        FrontierPoint {
            lag,
            grace,
            emit_delay: lag + grace,
            dropped: r.counters.dropped,
            score: Score::of(&r.finals, truth),
        }
    }

    /// The frontier over the grid of `lags` × `graces` (ms) with `base`'s window and watermark
    /// family: one point per setting, each as [`FrontierPoint::run`] scores it, however it is
    /// reached. The lag goes into a fixed or bounded watermark; other watermark kinds have no
    /// lag, and are scored as they are. Points come lag-major: every grace of the first lag,
    /// then the next lag.
    ///
    /// Windows that do not merge, without a state TTL, are answered by search without running
    /// the engine (`search`): a cell's final value is its true count less the events dropped
    /// from it, and whether an arrival is dropped is monotone in the watermark at its arrival,
    /// the lag and the grace, so each cell's arrivals are gathered once and every (lag, grace)
    /// is counted by search. Sessions under Beam Java's rules are answered by search too
    /// (`sessions`): a true session is right unless one of its events is dropped or a part of
    /// it is finalised before an event that would merge with it comes, and each of these is
    /// the drop rule on one (end, clock) pair. TTL state (a key expires by its kept events),
    /// and sessions under other rules, take the engine's path (`runs`): one run per distinct
    /// sequence of past-grace decisions, or per setting under an event-time TTL. The work is
    /// shared out over the machine's cores; the answer depends on neither that nor the path
    /// taken.
    pub fn sweep(
        stream: &Stream,
        base: EngineConfig,
        lags: &[f64],
        graces: &[f64],
    ) -> Vec<FrontierPoint> {
        sweep_clocked(stream, base, None, lags, graces)
    }

    /// The indexes of the points, by emit delay, that lose fewer events than every point with
    /// a smaller or equal emit delay: the best accuracy each delay buys, the line a plot draws.
    pub fn envelope(points: &[FrontierPoint]) -> Vec<usize> {
        let mut best = i64::MAX;
        by_delay(points)
            .into_iter()
            .filter(|&i| {
                let better = points[i].score.events_lost < best;
                best = best.min(points[i].score.events_lost);
                better
            })
            .collect()
    }
}

/// [`FrontierPoint::sweep`], given the watermark's clock ([`watermark_clock`] of `base`) when it
/// is at hand: a heuristic watermark's is worth computing once for both its mean lag and its
/// sweep.
pub(crate) fn sweep_clocked(
    stream: &Stream,
    base: EngineConfig,
    clock: Option<&[f64]>,
    lags: &[f64],
    graces: &[f64],
) -> Vec<FrontierPoint> {
    search::sweep(stream, base, clock, lags, graces)
        .or_else(|| sessions::sweep(stream, base, clock, lags, graces))
        .unwrap_or_else(|| runs::sweep(stream, base, lags, graces))
}

/// The watermark's clock after each event: `base`'s watermark kind with a lag of 0, which
/// the watermark at any lag is, less the lag.
pub(crate) fn watermark_clock(stream: &Stream, base: EngineConfig) -> Vec<f64> {
    let mut wm = crate::watermark::Watermark::new(base.watermark.with_lag(0.0), stream.max_delay());
    stream.events.iter().map(|e| wm.observe(e)).collect()
}

/// A named setting of the lag and grace dials.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Policy {
    /// The policy's name, as printed and drawn (`dashboard`, `alerting`, `billing`).
    pub name: &'static str,
    /// What it trades for: `fast`, `balanced` or `correct`.
    pub role: &'static str,
    /// The fixed watermark's lag, ms.
    pub lag: f64,
    /// The grace period, ms.
    pub grace: f64,
}

impl Policy {
    /// The three policies: dashboard (2 s, 0), alerting (10 s, 30 s), billing (10 s, 90 s).
    pub const ALL: [Policy; 3] = [
        Policy {
            name: "dashboard",
            role: "fast",
            lag: 2_000.0,
            grace: 0.0,
        },
        Policy {
            name: "alerting",
            role: "balanced",
            lag: 10_000.0,
            grace: 30_000.0,
        },
        Policy {
            name: "billing",
            role: "correct",
            lag: 10_000.0,
            grace: 90_000.0,
        },
    ];
}

/// The lags and graces the frontier sweeps: 0 s to 120 s in steps of 10 s, 13 × 13 points.
pub(crate) fn sweep_grid() -> Vec<f64> {
    (0..=12).map(|i| i as f64 * 10_000.0).collect()
}

/// The accuracy/latency frontier for one window function and watermark family: the 13 × 13
/// lag/grace sweep and the three policies. It costs about a pass over the stream, up to a run
/// per point for sessions or TTL state ([`sweep`](FrontierPoint::sweep)): compute it once per
/// (window, family) and keep it.
#[derive(Debug, Clone, PartialEq)]
pub struct Frontier {
    /// The window function every point was run with.
    pub window: WindowFn,
    /// The family swept (its lag is the swept dial).
    pub family: &'static str,
    /// The sweep's points, lag-major (every grace of the first lag, then the next lag).
    pub points: Vec<FrontierPoint>,
    /// The policies, each run with the fixed-lag watermark.
    pub policies: Vec<(Policy, FrontierPoint)>,
}

impl Frontier {
    /// Sweeps `base`'s window function and watermark family; `None` when the family has no lag
    /// to sweep (perfect, heuristic).
    pub fn compute(stream: &Stream, base: EngineConfig) -> Option<Frontier> {
        base.watermark.lag()?;
        let grid = sweep_grid();
        let points = FrontierPoint::sweep(stream, base, &grid, &grid);
        let fixed = EngineConfig {
            watermark: WatermarkKind::Fixed { lag: 0.0 },
            ..base
        };
        // Each policy is a one-point sweep: the same point as a run of it ([`point`]).
        let policies = Policy::ALL
            .iter()
            .map(|p| {
                (
                    *p,
                    FrontierPoint::sweep(stream, fixed, &[p.lag], &[p.grace])[0],
                )
            })
            .collect();
        Some(Frontier {
            window: base.window,
            family: base.watermark.family(),
            points,
            policies,
        })
    }

    /// The lower envelope of the sweep: the points, by emit delay, that lose fewer events than
    /// every point with a smaller or equal emit delay (the best loss each delay can buy).
    pub fn envelope(&self) -> Vec<&FrontierPoint> {
        FrontierPoint::envelope(&self.points)
            .into_iter()
            .map(|i| &self.points[i])
            .collect()
    }
}

/// The score of one whole run with the given dials (the current dial setting on the frontier).
pub(crate) fn score_point(
    stream: &Stream,
    truth: &BTreeMap<CellId, u64>,
    cfg: EngineConfig,
) -> FrontierPoint {
    let lag = cfg.watermark.nominal_lag(stream.max_delay());
    let r = Processor::run(stream, cfg, false);
    let score = Score::of(&r.finals, truth);
    FrontierPoint {
        lag,
        grace: cfg.grace,
        emit_delay: lag + cfg.grace,
        dropped: r.counters.dropped,
        score,
    }
}

/// Whether `a` dominates `b`: no worse on emit delay, events lost and windows wrong, and
/// better on one.
pub(crate) fn dominates(a: &FrontierPoint, b: &FrontierPoint) -> bool {
    let no_worse = a.emit_delay <= b.emit_delay
        && a.score.events_lost <= b.score.events_lost
        && a.score.wrong_windows <= b.score.wrong_windows;
    let better = a.emit_delay < b.emit_delay
        || a.score.events_lost < b.score.events_lost
        || a.score.wrong_windows < b.score.wrong_windows;
    no_worse && better
}

/// The points' indexes by emit delay, then events lost, then windows wrong, then index.
fn by_delay(points: &[FrontierPoint]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&a, &b| {
        let (p, q) = (&points[a], &points[b]);
        p.emit_delay
            .total_cmp(&q.emit_delay)
            .then(p.score.events_lost.cmp(&q.score.events_lost))
            .then(p.score.wrong_windows.cmp(&q.score.wrong_windows))
            .then(a.cmp(&b))
    });
    order
}

/// The indexes of the points no other point dominates, by emit delay (then events lost, then
/// index). Sorts once and keeps, for each point, the least loss and wrong windows seen so far
/// only where that settles it; otherwise compares with the kept set, which stays small.
pub(crate) fn pareto(points: &[FrontierPoint]) -> Vec<usize> {
    let order = by_delay(points);
    // A dominator of a point sorts before it (it is no worse on every key), so comparing each
    // point with the non-dominated ones kept before it is enough: a dominated dominator is
    // itself dominated by a kept point, which then dominates this one too.
    let mut kept: Vec<usize> = Vec::new();
    for i in order {
        if !kept.iter().any(|&k| dominates(&points[k], &points[i])) {
            kept.push(i);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::StreamParams;
    use crate::window::oracle;

    #[test]
    fn the_shared_sweep_equals_one_run_per_point() {
        let s = Stream::generate(&StreamParams {
            events: 2_000,
            ..Default::default()
        })
        .unwrap();
        let base = EngineConfig::fixed(0.0, 0.0);
        let lags = [0.0, 2_000.0, 15_000.0, 17_000.0];
        let graces = [0.0, 5_000.0, 3_000.0, 60_000.0, f64::INFINITY];
        let truth = oracle(&s, &base.window);
        let swept = FrontierPoint::sweep(&s, base, &lags, &graces);
        let mut i = 0;
        for &lag in &lags {
            for &grace in &graces {
                assert_eq!(swept[i], FrontierPoint::run(&s, &truth, base, lag, grace));
                i += 1;
            }
        }
    }

    #[test]
    fn the_envelope_is_the_least_loss_each_delay_buys() {
        let s = Stream::classroom();
        let f = Frontier::compute(&s, EngineConfig::fixed(20_000.0, 0.0)).unwrap();
        let env = f.envelope();
        assert!(!env.is_empty());
        for w in env.windows(2) {
            assert!(w[0].emit_delay <= w[1].emit_delay);
            assert!(w[0].score.events_lost > w[1].score.events_lost);
        }
        // Every point of the sweep loses at least as much as the envelope at its delay or less.
        for p in &f.points {
            let best = env
                .iter()
                .filter(|e| e.emit_delay <= p.emit_delay)
                .map(|e| e.score.events_lost)
                .min()
                .unwrap();
            assert!(best <= p.score.events_lost);
        }
        assert!(env.iter().all(|e| f.points.contains(e)));
    }
}
