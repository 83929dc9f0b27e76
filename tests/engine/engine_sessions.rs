//! Session windows: overlapping proto-windows merge and touching ones do not; an event's fate
//! is decided on its own proto-window; a late event bridging two fired sessions gives one LATE
//! pane for the merged session and, when retracting, retractions of the panes it replaced. As
//! properties: with infinite grace the final sessions are the oracle's in any arrival order;
//! every event is kept or dropped once; watermarks never fall; panes add up in every
//! accumulation mode; the sweep equals one run per point; and the parallel pipeline keeps
//! exactly-once sinks under any crash schedule.

use std::collections::BTreeMap;

use proptest::prelude::*;
use twoclocks::engine::pipeline::PipelineConfig;
use twoclocks::engine::FrontierPoint;
use twoclocks::engine::Oracle;
use twoclocks::engine::{
    Accumulation, CellId, EngineConfig, Event, Fate, Output, Pane, Processor, Score, Stream,
    Timing, WatermarkKind, WindowFn, WindowId,
};

use crate::common::{arb_pipeline_of, arb_stream, crash_and_compare};

const S: f64 = 1_000.0;

/// An event of key `key` at event time `et` s, arriving at `pt` s.
fn ev(et: f64, pt: f64, key: u32) -> Event {
    Event {
        event_time: et * S,
        proc_time: pt * S,
        key,
    }
}

/// The window `[a, b)` in seconds.
fn w(a: i64, b: i64) -> WindowId {
    WindowId::new(a * 1_000, b * 1_000)
}

fn cell(a: i64, b: i64, key: u32) -> CellId {
    CellId {
        window: w(a, b),
        key,
    }
}

/// 30 s sessions under a watermark `lag` s behind the latest event time, with `grace` s.
fn sessions(lag: f64, grace: f64, accumulation: Accumulation) -> EngineConfig {
    EngineConfig {
        window: WindowFn::session(30_000).unwrap(),
        watermark: WatermarkKind::Fixed { lag: lag * S },
        grace: grace * S,
        early: None,
        accumulation,
        conventions: Default::default(),
        empty_panes: Default::default(),
    }
}

fn stream(events: Vec<Event>) -> Stream {
    Stream::from_unordered(events, vec!["a".into(), "b".into(), "c".into()])
}

#[test]
fn overlapping_windows_merge_and_touching_ones_do_not() {
    let s = stream(vec![
        ev(0.0, 0.0, 0),
        ev(20.0, 1.0, 0),  // [20, 50) overlaps [0, 30): one session [0, 50)
        ev(50.0, 2.0, 0),  // [50, 80) only touches [0, 50): a session of its own
        ev(100.0, 3.0, 0), // [100, 130)
        ev(129.5, 4.0, 0), // [129.5, 159.5) overlaps [100, 130)
        ev(10.0, 5.0, 1),  // another key: its own session even where a's overlap
    ]);
    let cfg = sessions(1_000.0, 0.0, Accumulation::Accumulating);
    let expect = BTreeMap::from([
        (cell(0, 50, 0), 2),
        (cell(10, 40, 1), 1),
        (cell(50, 80, 0), 1),
        (
            CellId {
                window: WindowId::new(100_000, 159_500),
                key: 0,
            },
            2,
        ),
    ]);
    assert_eq!(Oracle::true_counts(&s, &cfg.window), expect);
    assert_eq!(Processor::run(&s, cfg, false).finals, expect);
}

#[test]
fn a_late_event_bridging_two_fired_sessions_gives_one_late_pane_for_the_merged_session() {
    // a at 0 s and 50 s: sessions [0, 30) and [50, 80). b at 100 s takes the watermark (lag 0)
    // to 100 s: both have fired on time. a at 25 s, late but within grace, bridges them.
    let s = stream(vec![
        ev(0.0, 0.0, 0),
        ev(50.0, 50.0, 0),
        ev(100.0, 100.0, 1),
        ev(25.0, 101.0, 0),
    ]);
    for mode in Accumulation::ALL {
        let r = Processor::run(&s, sessions(0.0, 100.0, mode), true);
        let panes: Vec<(CellId, Timing, i64, Option<i64>)> = r
            .output
            .panes
            .iter()
            .filter(|p| p.cell.key == 0)
            .map(|p| (p.cell, p.timing, p.value, p.retraction))
            .collect();
        let on_time = [
            (cell(0, 30, 0), Timing::OnTime, 1, None),
            (cell(50, 80, 0), Timing::OnTime, 1, None),
        ];
        let bridged: Vec<_> = match mode {
            Accumulation::Accumulating => vec![(cell(0, 80, 0), Timing::Late, 3, None)],
            // Only what neither replaced session had emitted.
            Accumulation::Discarding => vec![(cell(0, 80, 0), Timing::Late, 1, None)],
            Accumulation::Retracting => vec![
                (cell(50, 80, 0), Timing::Late, 0, Some(1)),
                (cell(0, 30, 0), Timing::Late, 0, Some(1)),
                (cell(0, 80, 0), Timing::Late, 3, None),
            ],
        };
        assert_eq!(panes[..2], on_time, "{mode}");
        assert_eq!(panes[2..], bridged[..], "{mode}");
        assert_eq!(r.counters.late, 1, "{mode}");
        assert_eq!(r.finals.get(&cell(0, 80, 0)), Some(&3), "{mode}");
        assert_eq!(r.finals.len(), 2, "{mode}: {:?}", r.finals);
        assert_eq!(
            r.finals,
            Oracle::true_counts(&s, &sessions(0.0, 0.0, mode).window)
        );
    }
}

#[test]
fn a_fate_is_decided_on_the_events_own_proto_window() {
    let cfg = sessions(0.0, 0.0, Accumulation::Accumulating);
    let mut p = Processor::new(cfg, 0.0);
    let mut out = Output::default();
    p.step(&ev(40.0, 40.0, 0), &mut out);
    p.step(&ev(60.0, 60.0, 0), &mut out); // a's session [40, 90), watermark 60
                                          // [15, 45) ended before the watermark: dropped, though it
                                          // overlaps the open session.
    let a = p.step(&ev(15.0, 61.0, 0), &mut out);
    assert_eq!(a.fate, Fate::Dropped);
    assert_eq!(out.dropped.len(), 1);
    assert_eq!(out.dropped[0].window, w(15, 45));
    assert_eq!(out.dropped[0].window_end, 45.0 * S);
    // [45, 75) has not ended: on time, inside the session.
    assert_eq!(p.step(&ev(45.0, 62.0, 0), &mut out).fate, Fate::OnTime);
    p.finish(&mut out);
    let finals: Vec<_> = out.finals.iter().map(|f| (f.cell, f.value)).collect();
    assert_eq!(finals, vec![(cell(40, 90, 0), 3)]);

    // A session that has fired on time, extended by an event whose own window has not ended:
    // the event is on time and the merged session fires on time again when the watermark
    // passes its new end.
    let cfg = sessions(0.0, 60.0, Accumulation::Accumulating);
    let s = stream(vec![
        ev(0.0, 0.0, 0),
        ev(35.0, 35.0, 1), // watermark 35: a's [0, 30) fires on time
        ev(20.0, 36.0, 0), // [20, 50): on time; a's session becomes [0, 50)
        ev(60.0, 60.0, 1), // watermark 60 passes [0, 50)
    ]);
    let r = Processor::run(&s, cfg, true);
    assert_eq!(r.counters.late, 0);
    let a: Vec<_> = r
        .output
        .panes
        .iter()
        .filter(|p| p.cell.key == 0)
        .map(|p| (p.cell, p.timing, p.value))
        .collect();
    assert_eq!(
        a,
        vec![
            (cell(0, 30, 0), Timing::OnTime, 1),
            (cell(0, 50, 0), Timing::OnTime, 2)
        ]
    );
}

#[test]
fn an_event_inside_an_open_session_adds_to_it_and_early_timers_carry_over_a_merge() {
    let cfg = EngineConfig {
        early: Some(5.0 * S),
        ..sessions(1_000.0, f64::INFINITY, Accumulation::Retracting)
    };
    let mut p = Processor::new(cfg, 0.0);
    let mut out = Output::default();
    p.step(&ev(0.0, 0.0, 0), &mut out); // [0, 30), early timer due at 5 s
    p.step(&ev(10.0, 1.0, 0), &mut out); // [0, 40): replaces [0, 30), timer still at 5 s
    p.step(&ev(5.0, 2.0, 0), &mut out); // [5, 35) is inside [0, 40): no new session
    assert_eq!(p.open_windows(), 1);
    assert_eq!(
        p.cell(cell(0, 40, 0)).map(|c| (c.value, c.timer)),
        Some((3, Some(5.0 * S)))
    );
    assert!(out.panes.is_empty());
    p.step(&ev(100.0, 6.0, 1), &mut out); // processing time 6 s: the timer fires
    let early: Vec<_> = out
        .panes
        .iter()
        .map(|p| (p.cell, p.timing, p.value))
        .collect();
    assert_eq!(early, vec![(cell(0, 40, 0), Timing::Early, 3)]);
    out.clear();
    // Extending the session replaces the cell: its early pane is retracted at once.
    p.step(&ev(39.0, 7.0, 0), &mut out);
    let panes: Vec<_> = out
        .panes
        .iter()
        .map(|p| (p.cell, p.timing, p.value, p.retraction))
        .collect();
    assert_eq!(panes, vec![(cell(0, 40, 0), Timing::Early, 0, Some(3))]);
    assert_eq!(p.cell(cell(0, 69, 0)).map(|c| c.value), Some(4));
}

#[test]
fn the_score_counts_the_true_sessions_a_run_missed() {
    let s = stream(vec![
        ev(0.0, 0.0, 0),
        ev(20.0, 20.0, 0),
        ev(100.0, 100.0, 0),
        ev(10.0, 101.0, 0), // dropped: the run's session is [0, 50) with 2, the truth's 3
    ]);
    let cfg = sessions(0.0, 0.0, Accumulation::Accumulating);
    let truth = Oracle::true_counts(&s, &cfg.window);
    assert_eq!(truth[&cell(0, 50, 0)], 3);
    let r = Processor::run(&s, cfg, false);
    assert_eq!(r.counters.dropped, 1);
    let score = Score::of(&r.finals, &truth);
    assert_eq!(
        (score.wrong_windows, score.events_lost, score.max_error),
        (1, 1, 1)
    );
    // Split: the run holds [0, 30) and [20, 50) apart from the true [0, 50); one event lost
    // is not the whole session.
    let split = BTreeMap::from([
        (cell(0, 30, 0), 1),
        (cell(20, 50, 0), 1),
        (cell(100, 130, 0), 1),
    ]);
    let score = Score::of(&split, &truth);
    assert_eq!(
        (score.wrong_windows, score.events_lost, score.max_error),
        (1, 1, 1)
    );
}

/// Events at whole seconds (ties included) over three keys, in a random processing order.
fn arb_shuffled() -> impl Strategy<Value = Stream> {
    prop::collection::vec((0i64..300, 0u32..3), 1..60)
        .prop_flat_map(|v| {
            let n = v.len();
            (Just(v), Just((0..n).collect::<Vec<_>>()).prop_shuffle())
        })
        .prop_map(|(v, order)| {
            let events = v
                .iter()
                .zip(order)
                .map(|(&(et, key), at)| Event {
                    event_time: et as f64 * S,
                    proc_time: at as f64 * S,
                    key,
                })
                .collect();
            stream(events)
        })
}

fn arb_sessions() -> impl Strategy<Value = EngineConfig> {
    (
        1i64..60_000,
        prop_oneof![
            Just(WatermarkKind::Perfect),
            (0.0f64..30_000.0).prop_map(|lag| WatermarkKind::Fixed { lag }),
            (0.0f64..1.0, 1usize..50).prop_map(|(q, n)| WatermarkKind::Heuristic { q, n }),
            (0.0f64..30_000.0).prop_map(|bound| WatermarkKind::Bounded { bound }),
        ],
        prop_oneof![Just(0.0), 0.0f64..60_000.0, Just(f64::INFINITY)],
        prop::option::of(500.0f64..20_000.0),
        prop::sample::select(Accumulation::ALL.to_vec()),
    )
        .prop_map(
            |(gap, watermark, grace, early, accumulation)| EngineConfig {
                window: WindowFn::session(gap).unwrap(),
                watermark,
                grace,
                early,
                accumulation,
                conventions: Default::default(),
                empty_panes: Default::default(),
            },
        )
}

/// The panes of each cell, in order.
fn by_cell(panes: &[Pane]) -> BTreeMap<CellId, Vec<Pane>> {
    let mut cells: BTreeMap<CellId, Vec<Pane>> = BTreeMap::new();
    for p in panes {
        cells.entry(p.cell).or_default().push(*p);
    }
    cells
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn with_infinite_grace_the_sessions_are_the_oracles_in_any_arrival_order(
        s in arb_shuffled(),
        cfg in arb_sessions(),
    ) {
        let cfg = EngineConfig { grace: f64::INFINITY, ..cfg };
        let r = Processor::run(&s, cfg, false);
        let truth = Oracle::true_counts(&s, &cfg.window);
        prop_assert_eq!(r.counters.dropped, 0);
        prop_assert_eq!(&r.finals, &truth);
        let score = Score::of(&r.finals, &truth);
        prop_assert_eq!((score.wrong_windows, score.events_lost), (0, 0));
    }

    #[test]
    fn every_event_is_kept_or_dropped_once_and_kept_sessions_lie_inside_true_ones(
        s in prop_oneof![arb_shuffled(), arb_stream(300, 4)],
        cfg in arb_sessions(),
    ) {
        let r = Processor::run(&s, cfg, true);
        let c = r.counters;
        prop_assert_eq!(c.events as usize, s.len());
        prop_assert_eq!(c.on_time + c.late + c.dropped, c.events);
        prop_assert_eq!(r.output.dropped.len() as u64, c.dropped);
        prop_assert_eq!(r.finals.values().sum::<u64>(), c.on_time + c.late);
        let truth = Oracle::true_counts(&s, &cfg.window);
        prop_assert_eq!(truth.values().sum::<u64>(), c.events);
        for (cell, v) in &r.finals {
            let holder = truth.iter().find(|(t, _)| {
                t.key == cell.key
                    && t.window.start_ms() <= cell.window.start_ms()
                    && cell.window.end_ms() <= t.window.end_ms()
            });
            prop_assert!(holder.is_some_and(|(_, &t)| *v <= t), "{:?} {}", cell, v);
        }
        let score = Score::of(&r.finals, &truth);
        prop_assert_eq!(score.events_lost, c.dropped as i64);
        if cfg.watermark == WatermarkKind::Perfect {
            prop_assert_eq!(&r.finals, &truth);
        }
    }

    #[test]
    fn watermarks_never_regress(s in prop_oneof![arb_shuffled(), arb_stream(300, 4)], cfg in arb_sessions()) {
        let mut p = Processor::for_stream(cfg, &s);
        let mut out = Output::default();
        let mut last = f64::NEG_INFINITY;
        for e in &s.events {
            let a = p.step(e, &mut out);
            prop_assert!(a.watermark >= last, "watermark fell from {} to {}", last, a.watermark);
            last = a.watermark;
            for pane in &out.panes {
                prop_assert!(pane.watermark <= a.watermark);
            }
            out.clear();
        }
    }

    #[test]
    fn panes_are_ordered_and_add_up_in_every_mode(
        s in prop_oneof![arb_shuffled(), arb_stream(300, 4)],
        cfg in arb_sessions(),
    ) {
        let r = Processor::run(&s, cfg, true);
        let cells = by_cell(&r.output.panes);
        let phase = |t: Timing| match t { Timing::Early => 0, Timing::OnTime => 1, Timing::Late => 2 };
        for (cell, panes) in &cells {
            for (i, p) in panes.iter().enumerate() {
                prop_assert_eq!(p.index as usize, i, "{:?}", cell);
                if i > 0 {
                    prop_assert!(phase(panes[i - 1].timing) <= phase(p.timing), "{:?}", cell);
                    prop_assert!(panes[i - 1].proc_time <= p.proc_time);
                }
            }
        }
        prop_assert!(r.finals.keys().all(|c| cells.contains_key(c)));
        match cfg.accumulation {
            // Each final session's last pane is its value; replaced sessions' panes stand.
            Accumulation::Accumulating => {
                for (cell, v) in &r.finals {
                    prop_assert_eq!(cells[cell].last().unwrap().value, *v as i64);
                }
            }
            // Every pane carries what no pane before it had: together, the events kept.
            Accumulation::Discarding => {
                let all: i64 = r.output.panes.iter().map(|p| p.value).sum();
                prop_assert_eq!(all, r.finals.values().sum::<u64>() as i64);
            }
            // Each cell's panes fold to its final value, and replaced sessions' to 0.
            Accumulation::Retracting => {
                for (cell, panes) in &cells {
                    let folded: i64 = panes.iter().map(|p| p.value - p.retraction.unwrap_or(0)).sum();
                    prop_assert_eq!(folded, r.finals.get(cell).copied().unwrap_or(0) as i64, "{:?}", cell);
                }
            }
        }
    }

    #[test]
    fn the_sweep_equals_one_engine_run_per_point(
        s in prop_oneof![arb_shuffled(), arb_stream(300, 4)],
        gap in 1i64..60_000,
        lags in prop::collection::vec(prop_oneof![(0u32..40).prop_map(|s| s as f64 * 500.0), 0.0f64..20_000.0], 1..4),
        graces in prop::collection::vec(prop_oneof![(0u32..40).prop_map(|s| s as f64 * 500.0), 0.0f64..20_000.0, Just(f64::INFINITY)], 1..4),
    ) {
        let base = EngineConfig { window: WindowFn::session(gap).unwrap(), ..EngineConfig::fixed(0.0, 0.0) };
        let truth = Oracle::true_counts(&s, &base.window);
        let swept = FrontierPoint::sweep(&s, base, &lags, &graces);
        let mut i = 0;
        for &lag in &lags {
            for &grace in &graces {
                prop_assert_eq!(swept[i], FrontierPoint::run(&s, &truth, base, lag, grace));
                i += 1;
            }
        }
    }
}

fn arb_pipeline() -> impl Strategy<Value = PipelineConfig> {
    arb_pipeline_of(arb_sessions(), 4)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn the_pipeline_keeps_exactly_once_sinks_under_any_crash_schedule(
        s in arb_stream(400, 5),
        cfg in arb_pipeline(),
        crashes in prop::collection::vec((0.0f64..1.1, prop::option::of(0usize..3)), 1..4),
    ) {
        let (clean, _crashed) = crash_and_compare(&s, cfg, &crashes)?;
        // One partition and one operator: the single processor's sessions.
        if cfg.partitions == 1 && cfg.parallelism == 1 {
            prop_assert_eq!(clean.finals(), &Processor::run(&s, cfg.engine, false).finals);
        }
        if cfg.engine.grace.is_infinite() {
            prop_assert_eq!(clean.finals(), &Oracle::true_counts(&s, &cfg.engine.window));
        }
    }
}
