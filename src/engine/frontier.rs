//! Block 7, the accuracy/latency frontier: how much correctness each setting of the dials buys.
//! A run is scored against the oracle (windows wrong, events lost, the largest error, accuracy)
//! and a sweep runs the same engine over a grid of lags and graces.

use std::collections::BTreeMap;

use super::processor::{run, EngineConfig};
use super::stream::Stream;
use super::watermark::WatermarkKind;
use super::window::{oracle, CellId};

/// A run's final values measured against the oracle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Score {
    /// Cells whose final value differs from the truth.
    pub wrong_windows: usize,
    /// Σ (truth − final value).
    pub events_lost: i64,
    /// max (truth − final value), 0 when nothing is lost.
    pub max_error: i64,
    /// Σ truth.
    pub truth_total: u64,
}

impl Score {
    pub fn of(finals: &BTreeMap<CellId, u64>, truth: &BTreeMap<CellId, u64>) -> Score {
        let mut wrong = 0;
        let mut lost = 0i64;
        let mut max_error = None::<i64>;
        let mut total = 0;
        for (cell, &t) in truth {
            let got = finals.get(cell).copied().unwrap_or(0);
            let err = t as i64 - got as i64;
            if err != 0 {
                wrong += 1;
            }
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

/// One point of the sweep.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrontierPoint {
    pub lag: f64,
    pub grace: f64,
    /// The delay before a window's final answer: lag + grace, by construction.
    pub emit_delay: f64,
    pub dropped: u64,
    pub score: Score,
}

/// Runs the engine once per (lag, grace) with `base`'s other dials (the lag goes into a fixed
/// or bounded watermark; other watermark kinds have no lag, and are run as they are).
pub fn sweep(
    stream: &Stream,
    base: EngineConfig,
    lags: &[f64],
    graces: &[f64],
) -> Vec<FrontierPoint> {
    let truth = oracle(stream, &base.window);
    let mut points = Vec::with_capacity(lags.len() * graces.len());
    for &lag in lags {
        for &grace in graces {
            points.push(point(stream, &truth, base, lag, grace));
        }
    }
    points
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
    let r = run(stream, cfg, false);
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
    pub name: &'static str,
    pub role: &'static str,
    pub lag: f64,
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

/// The fixed-lag watermark for a lag, as the policies use it.
pub fn fixed(lag: f64) -> WatermarkKind {
    WatermarkKind::Fixed { lag }
}
