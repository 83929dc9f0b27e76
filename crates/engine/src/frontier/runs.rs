//! The frontier by engine runs, for the windows whose final values only the engine can tell
//! (sessions, whose spans depend on which events were kept; state under a TTL, which a key's
//! kept events keep alive): settings that make the same past-grace decisions after every event
//! share one run.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use super::folded::Replay;
use super::{FrontierPoint, Score};
use crate::lateness::Fate;
use crate::processor::{run_with, EngineConfig};
use crate::stream::Stream;
use crate::watermark::Watermark;
use crate::window::{oracle_under, Assignment, CellId, TtlTime, WindowId};

/// [`FrontierPoint::sweep`] by running the engine. What a window's final value counts is decided
/// only by comparing window ends with the drop threshold (watermark − grace after each event;
/// [`Fate::threshold`]), and window ends are discrete: so two settings under which the same windows
/// are past their grace after every event make the same decisions and have the same final values
/// and drops. This computes that sequence for each setting with the engine's own watermark and
/// window function, runs the engine once per distinct sequence (compared exactly) and scores every
/// point of the group from that run. Each event's windows are assigned once for all runs, and the
/// runs are shared out over the machine's cores.
pub(super) fn sweep(
    stream: &Stream,
    base: EngineConfig,
    lags: &[f64],
    graces: &[f64],
) -> Vec<FrontierPoint> {
    let truth = oracle_under(stream, &base.window, base.conventions);
    let assigned: Vec<_> = stream
        .events
        .iter()
        .map(|e| base.window.assignment(e.event_time))
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
/// representative setting per group. State under an event-time TTL expires by the watermark
/// itself, not by the windows past grace: there every setting is run on its own.
fn group_by_thresholds(stream: &Stream, grid: &[EngineConfig]) -> (Vec<usize>, Vec<EngineConfig>) {
    let mut group_of = Vec::with_capacity(grid.len());
    let mut reps: Vec<EngineConfig> = Vec::new();
    // Grouping compares Beam Java's drop thresholds; other rules run every setting.
    if grid.iter().any(|c| {
        c.window.ttl().is_some_and(|t| t.time == TtlTime::Event)
            || c.conventions != crate::conventions::Conventions::Beam
    }) {
        return ((0..grid.len()).collect(), grid.to_vec());
    }
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

/// For each setting, the first one (by place) that makes the same past-grace decisions as it
/// after every event: its own place where none before it does. Settings that agree after
/// every event keep and drop the same arrivals and finalise the same windows at the same
/// events, so their runs hold the same state throughout; one run measures them all. The
/// settings go over the stream side by side (one watermark per distinct watermark kind), each
/// class of agreeing settings split where one of them first disagrees. Under an event-time TTL
/// or rules other than Beam Java's (where [`group_by_thresholds`] runs every setting), each is
/// its own.
pub(crate) fn same_decisions(events: &dyn Replay, settings: &[EngineConfig]) -> Vec<usize> {
    let own: Vec<usize> = (0..settings.len()).collect();
    if settings.len() < 2
        || settings.iter().any(|c| {
            c.window.ttl().is_some_and(|t| t.time == TtlTime::Event)
                || c.conventions != crate::conventions::Conventions::Beam
        })
    {
        return own;
    }
    let max_delay = events.max_delay();
    let mut kinds: Vec<crate::watermark::WatermarkKind> = Vec::new();
    let kind_of: Vec<usize> = settings
        .iter()
        .map(|c| match kinds.iter().position(|&k| k == c.watermark) {
            Some(k) => k,
            None => {
                kinds.push(c.watermark);
                kinds.len() - 1
            }
        })
        .collect();
    let mut marks: Vec<Watermark> = kinds
        .iter()
        .map(|&k| Watermark::new(k, max_delay))
        .collect();
    let mut wm = vec![0.0; kinds.len()];
    let mut thresholds = vec![0.0; settings.len()];
    let mut first = vec![0usize; settings.len()];
    // The classes split at this event: (the class's first setting, the window the splitting
    // settings have passed, their new class's first setting).
    let mut splits: Vec<(usize, Option<WindowId>, usize)> = Vec::new();
    events.replay(&mut |part| {
        for e in part {
            for (w, m) in wm.iter_mut().zip(&mut marks) {
                *w = m.observe(e);
            }
            for ((t, cfg), &k) in thresholds.iter_mut().zip(settings).zip(&kind_of) {
                *t = Fate::threshold(wm[k], cfg.grace);
            }
            // The same threshold has passed the same windows; most settings that agree have it.
            let past = |i: usize| settings[i].window.last_ended_by(thresholds[i]);
            splits.clear();
            for i in 0..settings.len() {
                let class = first[i];
                if thresholds[i].to_bits() == thresholds[class].to_bits() {
                    continue;
                }
                let passed = past(i);
                if passed == past(class) {
                    continue;
                }
                first[i] = match splits.iter().find(|&&(c, k, _)| c == class && k == passed) {
                    Some(&(_, _, to)) => to,
                    None => {
                        splits.push((class, passed, i));
                        i
                    }
                };
            }
            // Each its own: nothing more to split.
            if first == own {
                return false;
            }
        }
        true
    });
    first
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_with_the_same_sum_share_a_run_on_the_classroom_stream() {
        let s = Stream::classroom();
        let steps: Vec<f64> = (0..13).map(|i| i as f64 * 10_000.0).collect();
        let grid: Vec<_> = steps
            .iter()
            .flat_map(|&l| steps.iter().map(move |&g| EngineConfig::fixed(l, g)))
            .collect();
        let (_, reps) = group_by_thresholds(&s, &grid);
        assert_eq!(reps.len(), 25);
    }

    #[test]
    fn settings_that_agree_after_every_event_share_a_run_and_its_state() {
        let s = Stream::classroom();
        let steps: Vec<f64> = (0..7).map(|i| i as f64 * 20_000.0).collect();
        for window in [
            crate::window::WindowFn::tumbling(20_000).unwrap(),
            crate::window::WindowFn::session(5_000).unwrap(),
        ] {
            let grid: Vec<EngineConfig> = steps
                .iter()
                .flat_map(|&l| {
                    steps.iter().map(move |&g| EngineConfig {
                        window,
                        ..EngineConfig::fixed(l, g)
                    })
                })
                .collect();
            let first = same_decisions(&s, &grid);
            // The classes are those of the past-grace sequences, each named by its first.
            let (group_of, reps) = group_by_thresholds(&s, &grid);
            assert!(reps.len() < grid.len(), "{window:?}: no settings agree");
            for i in 0..grid.len() {
                assert!(first[i] <= i && first[first[i]] == first[i]);
                for j in 0..grid.len() {
                    assert_eq!(first[i] == first[j], group_of[i] == group_of[j]);
                }
                assert_eq!(
                    crate::frontier::slack::StateCost::of(&s, grid[i]),
                    crate::frontier::slack::StateCost::of(&s, grid[first[i]])
                );
            }
        }
    }
}
