//! Block 7, the accuracy/latency frontier: how much correctness each setting of the dials buys.
//! A run is scored against the oracle (windows wrong, events lost, the largest error, accuracy)
//! and a sweep runs the same engine over a grid of lags and graces.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use super::lateness::Fate;
use super::processor::{run, run_with, EngineConfig};
use super::stream::{KeyId, Stream};
use super::watermark::{Watermark, WatermarkKind};
use super::window::{oracle, Assignment, CellId, WindowFn, WindowId};

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
    /// Scores final values (by cell) against the oracle's true counts; only the truth's cells
    /// are scored. What a run counted of a true cell is its final value there (0 if missing)
    /// and, for merging windows, the final values of the run's sessions of that key inside its
    /// span: a run's session always lies inside one true session, as the oracle merges the
    /// proto-windows of every event and a run merges those of the events it kept.
    pub fn of(finals: &BTreeMap<CellId, u64>, truth: &BTreeMap<CellId, u64>) -> Score {
        let mut wrong = 0;
        let mut lost = 0i64;
        let mut max_error = None::<i64>;
        let mut total = 0;
        let mut matched = 0;
        for (cell, &t) in truth {
            let got = finals.get(cell).copied();
            if got != Some(t) {
                wrong += 1;
            }
            matched += usize::from(got.is_some());
        }
        // Every final cell is a true cell (always so for non-merging windows), or some lie
        // inside the true sessions.
        let inside = (matched < finals.len()).then(|| counted_inside(finals, truth));
        for (cell, &t) in truth {
            let got = match &inside {
                Some(inside) => inside.get(cell).copied().unwrap_or(0),
                None => finals.get(cell).copied().unwrap_or(0),
            };
            let err = t as i64 - got as i64;
            lost += err;
            max_error = Some(max_error.map_or(err, |m| m.max(err)));
            total += t;
        }
        Score {
            wrong_windows: wrong,
            events_lost: lost,
            max_error: max_error.unwrap_or(0),
            truth_total: total,
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

/// Runs the engine for every (lag, grace) with `base`'s other dials (the lag goes into a fixed
/// or bounded watermark; other watermark kinds have no lag, and are run as they are).
/// Points come lag-major: every grace of the first lag, then the next lag.
///
/// What a window's final value counts is decided only by comparing window ends with the drop
/// threshold (watermark − grace after each event; [`Fate::threshold`]), and window ends are
/// discrete: so two settings under which the same windows are past their grace after every
/// event make the same decisions and have the same final values and drops. The sweep computes
/// that sequence for each setting with the engine's own watermark and window function, runs
/// the engine once per distinct sequence (compared exactly) and scores every point of the
/// group from that run. Each event's windows are assigned once for all runs, and the runs
/// are shared out over the machine's cores; the answer does not depend on either.
pub fn sweep(
    stream: &Stream,
    base: EngineConfig,
    lags: &[f64],
    graces: &[f64],
) -> Vec<FrontierPoint> {
    let truth = oracle(stream, &base.window);
    let assigned: Vec<_> = stream
        .events
        .iter()
        .map(|e| base.window.assign(e.event_time))
        .collect();
    let grid: Vec<EngineConfig> = lags
        .iter()
        .flat_map(|&lag| {
            graces.iter().map(move |&grace| EngineConfig {
                watermark: base.watermark.with_lag(lag),
                grace,
                early: None,
                ..base
            })
        })
        .collect();
    let (group_of, representatives) = group_by_thresholds(stream, &grid);
    let runs = run_all(stream, &representatives, &assigned);
    grid.iter()
        .zip(&group_of)
        .zip(lags.iter().flat_map(|&lag| graces.iter().map(move |_| lag)))
        .map(|((cfg, &g), lag)| {
            let (dropped, finals) = &runs[g];
            let lag = cfg.watermark.lag().unwrap_or(lag);
            FrontierPoint {
                lag,
                grace: cfg.grace,
                emit_delay: lag + cfg.grace,
                dropped: *dropped,
                score: Score::of(finals, &truth),
            }
        })
        .collect()
}

/// After each event, the last window past its grace under a setting, as change points
/// (event index, window index; `WindowId::MIN` for none): the thresholds only rise, so the
/// sequence is short.
fn past_grace(
    stream: &Stream,
    max_delay: f64,
    cfg: &EngineConfig,
    into: &mut Vec<(usize, WindowId)>,
) {
    into.clear();
    let mut wm = Watermark::new(cfg.watermark, max_delay);
    let mut next_end = f64::NEG_INFINITY;
    for (i, e) in stream.events.iter().enumerate() {
        let t = Fate::threshold(wm.observe(e), cfg.grace);
        // Thresholds only rise: nothing changes until the next window end is reached.
        if t >= next_end {
            let k = cfg.window.last_ended_by(t).unwrap_or(WindowId::MIN);
            if into.last().map(|&(_, last)| last) != Some(k) {
                into.push((i, k));
            }
            next_end = match k {
                WindowId::MIN => f64::NEG_INFINITY,
                WindowId::MAX => f64::INFINITY,
                k => cfg.window.end(cfg.window.next(k)),
            };
        }
    }
}

/// Groups settings by their exact past-grace sequences: the group of each setting, and one
/// representative setting per group.
fn group_by_thresholds(stream: &Stream, grid: &[EngineConfig]) -> (Vec<usize>, Vec<EngineConfig>) {
    let mut group_of = Vec::with_capacity(grid.len());
    let mut reps: Vec<EngineConfig> = Vec::new();
    let mut seqs: FxHashMap<Vec<(usize, WindowId)>, usize> = FxHashMap::default();
    let mut seq = Vec::new();
    let max_delay = stream.max_delay();
    for cfg in grid {
        past_grace(stream, max_delay, cfg, &mut seq);
        let g = match seqs.get(&seq) {
            Some(&g) => g,
            None => {
                let g = reps.len();
                reps.push(*cfg);
                seqs.insert(seq.clone(), g);
                g
            }
        };
        group_of.push(g);
    }
    (group_of, reps)
}

/// Runs each setting through the engine, shared out over the machine's cores: the drops and
/// final values of each.
fn run_all(
    stream: &Stream,
    settings: &[EngineConfig],
    assigned: &[Assignment],
) -> Vec<(u64, BTreeMap<CellId, u64>)> {
    let one = |cfg: &EngineConfig| {
        let r = run_with(stream, *cfg, false, Some(assigned));
        (r.counters.dropped, r.finals)
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(settings.len());
    if threads <= 1 || settings.len() < 4 {
        return settings.iter().map(one).collect();
    }
    let chunk = settings.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = settings
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().map(one).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("an engine run does not panic"))
            .collect()
    })
}

/// One (lag, grace) run, scored.
pub fn point(
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

/// The three policies: dashboard (2 s, 0), alerting (10 s, 30 s), billing (10 s, 90 s).
pub const POLICIES: [Policy; 3] = [
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

/// The lags and graces the frontier sweeps: 0 s to 120 s in steps of 10 s, 13 × 13 runs.
pub fn sweep_grid() -> Vec<f64> {
    (0..=12).map(|i| i as f64 * 10_000.0).collect()
}

/// The accuracy/latency frontier for one window function and watermark family: the 13 × 13
/// lag/grace sweep and the three policies. Costly (one run per point): compute it once per
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
        let points = sweep(stream, base, &grid, &grid);
        let truth = oracle(stream, &base.window);
        let fixed = EngineConfig {
            watermark: WatermarkKind::Fixed { lag: 0.0 },
            ..base
        };
        let policies = POLICIES
            .iter()
            .map(|p| (*p, point(stream, &truth, fixed, p.lag, p.grace)))
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
        let mut sorted: Vec<&FrontierPoint> = self.points.iter().collect();
        sorted.sort_by(|a, b| a.emit_delay.total_cmp(&b.emit_delay));
        let mut best = i64::MAX;
        sorted
            .into_iter()
            .filter(|p| {
                let better = p.score.events_lost < best;
                best = best.min(p.score.events_lost);
                better
            })
            .collect()
    }
}

/// The score of one whole run with the given dials (the current dial setting on the frontier).
pub fn score_point(
    stream: &Stream,
    truth: &BTreeMap<CellId, u64>,
    cfg: EngineConfig,
) -> FrontierPoint {
    let lag = cfg.watermark.nominal_lag(stream.max_delay());
    let r = run(stream, cfg, false);
    let score = Score::of(&r.finals, truth);
    FrontierPoint {
        lag,
        grace: cfg.grace,
        emit_delay: lag + cfg.grace,
        dropped: r.counters.dropped,
        score,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::stream::{generate, StreamParams};

    #[test]
    fn settings_with_the_same_sum_share_a_run_on_the_classroom_stream() {
        let s = crate::engine::stream::classroom();
        let steps: Vec<f64> = (0..13).map(|i| i as f64 * 10_000.0).collect();
        let grid: Vec<_> = steps
            .iter()
            .flat_map(|&l| steps.iter().map(move |&g| EngineConfig::fixed(l, g)))
            .collect();
        let (_, reps) = group_by_thresholds(&s, &grid);
        assert_eq!(reps.len(), 25);
    }

    #[test]
    fn the_shared_sweep_equals_one_run_per_point() {
        let s = generate(&StreamParams {
            events: 2_000,
            ..Default::default()
        })
        .unwrap();
        let base = EngineConfig::fixed(0.0, 0.0);
        let lags = [0.0, 2_000.0, 15_000.0, 17_000.0];
        let graces = [0.0, 5_000.0, 3_000.0, 60_000.0, f64::INFINITY];
        let truth = oracle(&s, &base.window);
        let swept = sweep(&s, base, &lags, &graces);
        let mut i = 0;
        for &lag in &lags {
            for &grace in &graces {
                assert_eq!(swept[i], point(&s, &truth, base, lag, grace));
                i += 1;
            }
        }
    }

    #[test]
    fn the_envelope_is_the_least_loss_each_delay_buys() {
        let s = crate::engine::stream::classroom();
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
