//! The trace's moves and reads, for both kinds of run.

use super::*;
use crate::oracle::Oracle;
use crate::pipeline::{CrashTarget, PipelineConfig};
use crate::stream::Stream;
use crate::window_row::Standing;

fn span(s: &Stream) -> (f64, f64) {
    (0.0, s.events.last().map_or(1.0, |e| e.proc_time))
}

fn start() -> Progress {
    Progress {
        now: 0.0,
        arrived: 0,
        finished: false,
    }
}

#[test]
fn a_single_run_moved_by_the_playhead_is_the_timeline_run_to_it() {
    let s = Arc::new(Stream::classroom());
    let cfg = EngineConfig::fixed(20_000.0, 0.0);
    let mut t = Trace::single_start(cfg, s.clone(), span(&s));
    let c = t.play_to(start(), 100_000.0);
    assert_eq!(c.arrived, arrived_by(&s, 100_000.0));
    assert!(!t.keeps_own_clock());
    assert_eq!(t.catch_up(c), None, "a single run follows the playhead");
    let c = t.step(c).unwrap();
    assert_eq!(t.arrived(), c.arrived);
    let same = Timeline::run_to(cfg, &s, c.arrived, false);
    assert_eq!(t.counters(), *same.counters());
    assert_eq!(t.watermark(), same.watermark());
    assert_eq!(t.watermark_at(90_000.0), same.watermark_at(&s, 90_000.0));
    let end = t.run_to_end(c);
    assert!(end.finished && t.is_finished());
    assert_eq!(end.arrived, s.len());
    let whole = Timeline::run_to(cfg, &s, s.len(), true);
    assert_eq!(t.counters(), *whole.counters());
}

#[test]
fn a_parallel_run_keeps_its_own_clock_and_carries_its_pipeline() {
    let s = Arc::new(Stream::classroom());
    let cfg = PipelineConfig {
        partitions: 2,
        parallelism: 4,
        checkpoint_every: Some(10_000.0),
        ..PipelineConfig::new(EngineConfig::fixed(20_000.0, 0.0))
    };
    let mut t = Trace::parallel(JobTimeline::new(s.clone(), cfg).unwrap());
    let c = t.play_to(start(), 265_000.0);
    assert_eq!(c.now, 265_000.0);
    assert!(t.keeps_own_clock());
    let p = t.press(Intervention::Crash(CrashTarget::Job)).unwrap();
    assert_eq!(p.time, 265_000.0);
    let back = t.catch_up(c).unwrap();
    assert!(back.now < c.now, "the clock went back with the crash");
    assert_eq!(t.crashes().len(), 1);
    assert!(t.is_replaying());
    assert_eq!(t.presses(), &[p]);
    assert!(t.inspect(0).is_none() && t.exceptions().is_none());
    let truth = Oracle::true_counts(&s, &cfg.engine.window);
    let row = t.window_row(cfg.engine.window.at_index(1), None, s.keys.len(), &truth);
    assert!(row.sinks.is_some() && row.latest.is_none());
    assert_eq!(t.sinks(&truth).unwrap().scores.len(), 3);
    let end = t.run_to_end(back);
    assert!(end.finished && t.is_finished());
}

#[test]
fn a_single_run_carries_no_pipeline() {
    let s = Arc::new(Stream::classroom());
    let cfg = EngineConfig::fixed(20_000.0, 0.0);
    let mut t = Trace::single_start(cfg, s.clone(), span(&s));
    t.play_to(start(), 200_000.0);
    assert!(t.pipeline_config().is_none() && t.topology().is_none());
    assert!(t.crashes().is_empty() && t.checkpoints().is_empty());
    assert!(t.sink_kinds().is_empty());
    assert_eq!(t.press(Intervention::Checkpoint), None);
    let truth = Oracle::true_counts(&s, &cfg.window);
    let row = t.window_row(cfg.window.at_index(0), None, s.keys.len(), &truth);
    assert_eq!(row.sinks, None);
    assert!(row.is_final());
}

/// The single processor counts each event once per window, so its value never goes over the
/// oracle: short of it is open until the window is final, and then wrong.
#[test]
fn a_single_runs_window_values_stand_short_or_right_never_over() {
    let s = Arc::new(Stream::classroom());
    let cfg = EngineConfig::fixed(2_000.0, 0.0);
    let truth = Oracle::true_counts(&s, &cfg.window);
    let windows = crate::timeline::stream_windows(&truth);
    let mut t = Trace::single_start(cfg, s.clone(), span(&s));
    let mut c = start();
    for to in [60_000.0, 300_000.0, f64::INFINITY] {
        c = t.play_to(c, to);
        for &w in &windows {
            for key in [None, Some(0)] {
                let row = t.window_row(w, key, s.keys.len(), &truth);
                assert!(row.value <= row.truth, "{row:?}");
                let expected = if row.value == row.truth {
                    Standing::Right
                } else if row.is_final() {
                    Standing::Wrong
                } else {
                    Standing::Open
                };
                assert_eq!(row.standing(row.value), expected);
            }
        }
    }
    assert!(c.finished);
}
