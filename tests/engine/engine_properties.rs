//! Property tests of the engine's invariants over random streams and dials: watermarks never
//! regress; every placement is kept or dropped; final values never exceed the oracle; panes
//! follow EARLY* ON_TIME? LATE* and add up to the final value in every accumulation mode;
//! under any crash schedule the idempotent and transactional sinks equal the clean run and the
//! additive sink over-counts by exactly the replayed panes.

use std::collections::BTreeMap;

use proptest::prelude::*;
use twoclocks::engine::checkpoint::ScheduleStep;
use twoclocks::engine::Conventions;
use twoclocks::engine::FrontierPoint;
use twoclocks::engine::{
    Accumulation, CellId, EngineConfig, Event, Job, Oracle, Output, Processor, SinkKind, Stream,
    Timing, WatermarkFamily, WatermarkKind, WindowFn,
};

use crate::common::arb_stream;

/// Hand-made events: negative times, ties and zero delays included.
fn arb_raw_stream() -> impl Strategy<Value = Stream> {
    prop::collection::vec((-50i64..200, 0i64..80, 0u32..3), 1..120).prop_map(|v| {
        let events = v
            .into_iter()
            .map(|(et, d, key)| Event {
                event_time: et as f64 * 100.0,
                proc_time: (et + d) as f64 * 100.0,
                key,
            })
            .collect();
        Stream::from_unordered(events, vec!["a".into(), "b".into(), "c".into()])
    })
}

/// Every watermark kind the engine has, each equally likely, with random parameters: the kind
/// is drawn from the engine's list of them, and the match names each one, so a kind added to
/// the engine does not compile here until its parameters are drawn.
fn arb_watermark() -> impl Strategy<Value = WatermarkKind> {
    prop::sample::select(WatermarkFamily::ALL.to_vec()).prop_flat_map(|family| match family {
        WatermarkFamily::Perfect => Just(WatermarkKind::Perfect).boxed(),
        WatermarkFamily::Fixed => (0.0f64..30_000.0)
            .prop_map(|lag| WatermarkKind::Fixed { lag })
            .boxed(),
        WatermarkFamily::Heuristic => (0.0f64..1.0, 1usize..200)
            .prop_map(|(q, n)| WatermarkKind::Heuristic { q, n })
            .boxed(),
        WatermarkFamily::Bounded => (0.0f64..30_000.0)
            .prop_map(|bound| WatermarkKind::Bounded { bound })
            .boxed(),
    })
}

fn arb_window() -> impl Strategy<Value = WindowFn> {
    // On the epoch's grid, or moved off it by any offset (taken modulo the slide).
    let offset = prop_oneof![2 => Just(0i64), 1 => -120_000i64..120_000];
    prop_oneof![
        (1i64..60, offset.clone()).prop_map(|(s, o)| WindowFn::tumbling(s * 1_000)
            .unwrap()
            .with_offset(o)
            .unwrap()),
        (2i64..60, 1i64..4, offset).prop_map(|(s, k, o)| {
            WindowFn::sliding(s * 1_000, (s * 1_000 / k).max(1))
                .unwrap()
                .with_offset(o)
                .unwrap()
        }),
    ]
}

fn arb_config() -> impl Strategy<Value = EngineConfig> {
    (
        arb_window(),
        arb_watermark(),
        prop_oneof![Just(0.0), 0.0f64..40_000.0, Just(f64::INFINITY)],
        prop::option::of(500.0f64..20_000.0),
        prop::sample::select(Accumulation::ALL.to_vec()),
        // Beam Java's rules half the time, each of the others a sixth.
        prop_oneof![
            3 => Just(Conventions::Beam),
            1 => Just(Conventions::BeamPython),
            1 => Just(Conventions::Flink),
            1 => Just(Conventions::KafkaStreams),
        ],
    )
        .prop_map(
            |(window, watermark, grace, early, accumulation, conventions)| EngineConfig {
                window,
                watermark,
                grace,
                early,
                accumulation,
                conventions,
                empty_panes: Default::default(),
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn watermarks_never_regress(stream in prop_oneof![arb_stream(400, 4), arb_raw_stream()], cfg in arb_config()) {
        let mut p = Processor::for_stream(cfg, &stream);
        let mut out = Output::default();
        let mut last = f64::NEG_INFINITY;
        for e in &stream.events {
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
    fn every_placement_is_kept_or_dropped_and_never_exceeds_the_oracle(
        stream in prop_oneof![arb_stream(400, 4), arb_raw_stream()], cfg in arb_config()
    ) {
        let r = Processor::run(&stream, cfg, true);
        let truth = Oracle::true_counts(&stream, &cfg.window);
        let placements: u64 = truth.values().sum();
        let c = r.counters;
        prop_assert_eq!(c.events as usize, stream.len());
        prop_assert_eq!(c.on_time + c.late + c.dropped, placements);
        if let WindowFn::Tumbling { .. } = cfg.window {
            prop_assert_eq!(c.on_time + c.late + c.dropped, c.events);
        }
        prop_assert_eq!(r.output.dropped.len() as u64, c.dropped);
        let kept: u64 = r.finals.values().sum();
        prop_assert_eq!(kept, c.on_time + c.late);
        for (cell, v) in &r.finals {
            prop_assert!(*v <= truth[cell], "{:?}: {} > {}", cell, v, truth[cell]);
        }
        // Kafka Streams has no watermark: a perfect one does not apply under its rules.
        let perfect = cfg.watermark == WatermarkKind::Perfect
            && cfg.conventions != Conventions::KafkaStreams;
        if cfg.grace.is_infinite() || perfect {
            prop_assert_eq!(c.dropped, 0);
            prop_assert_eq!(&r.finals, &truth);
        }
    }

    #[test]
    fn panes_are_ordered_and_add_up_to_the_final_value(
        stream in prop_oneof![arb_stream(400, 4), arb_raw_stream()], cfg in arb_config()
    ) {
        let r = Processor::run(&stream, cfg, true);
        let mut by_cell: BTreeMap<CellId, Vec<_>> = BTreeMap::new();
        for p in &r.output.panes {
            by_cell.entry(p.cell).or_default().push(*p);
        }
        prop_assert_eq!(by_cell.len(), r.finals.len());
        for (cell, panes) in &by_cell {
            let phase = |t: Timing| match t { Timing::Early => 0, Timing::OnTime => 1, Timing::Late => 2 };
            for (i, p) in panes.iter().enumerate() {
                prop_assert_eq!(p.index as usize, i);
                if i > 0 {
                    prop_assert!(phase(panes[i - 1].timing) <= phase(p.timing));
                    prop_assert!(!(p.timing == Timing::OnTime && panes[i - 1].timing == Timing::OnTime));
                    prop_assert!(panes[i - 1].proc_time <= p.proc_time);
                }
            }
            let fin = r.finals[cell] as i64;
            let folded: i64 = match cfg.accumulation {
                Accumulation::Accumulating => panes.last().unwrap().value,
                Accumulation::Discarding => panes.iter().map(|p| p.value).sum(),
                Accumulation::Retracting => panes.iter().map(|p| p.value - p.retraction.unwrap_or(0)).sum(),
            };
            prop_assert_eq!(folded, fin, "{:?}", cell);
            // Kafka Streams' windows emit once, as they close.
            if cfg.conventions == Conventions::KafkaStreams {
                prop_assert_eq!(panes.len(), 1, "{:?}", cell);
                prop_assert_eq!(panes[0].timing, Timing::OnTime);
            }
        }
    }

    #[test]
    fn exactly_once_under_any_crash_schedule(
        stream in arb_stream(400, 4),
        cfg in arb_config(),
        steps in prop::collection::vec((any::<bool>(), 0.0f64..1.2), 0..8),
    ) {
        let n = stream.len();
        let schedule: Vec<ScheduleStep> = steps
            .iter()
            .map(|&(ck, at)| {
                let at = (at * n as f64) as usize;
                if ck { ScheduleStep::Checkpoint { at } } else { ScheduleStep::Crash { at } }
            })
            .collect();
        let mut clean = Job::new(&stream, cfg, &SinkKind::ALL);
        clean.finish();
        let mut crashed = Job::new(&stream, cfg, &SinkKind::ALL);
        crashed.run_schedule(&schedule);
        prop_assert_eq!(clean.finals(), crashed.finals());
        for kind in [SinkKind::Idempotent, SinkKind::Transactional] {
            prop_assert_eq!(clean.sink(kind).unwrap().output(), crashed.sink(kind).unwrap().output());
        }
        // The panes each arrival emits in a clean run, to know what a replay re-delivers.
        let mut p = Processor::for_stream(cfg, &stream);
        let mut out = Output::default();
        let mut emitted: Vec<Vec<(CellId, i64)>> = Vec::with_capacity(n);
        for e in &stream.events {
            p.step(e, &mut out);
            emitted.push(out.panes.iter().map(|p| (p.cell, p.value)).collect());
            out.clear();
        }
        let mut expect = clean.sink(SinkKind::Additive).unwrap().output();
        let mut replayed_nonzero = false;
        for c in crashed.crashes() {
            for panes in &emitted[c.restored_offset()..c.offset()] {
                for &(cell, v) in panes {
                    *expect.entry(cell).or_insert(0) += v;
                    replayed_nonzero |= v != 0;
                }
            }
        }
        let additive = crashed.sink(SinkKind::Additive).unwrap().output();
        prop_assert_eq!(&additive, &expect);
        if replayed_nonzero {
            prop_assert_ne!(&additive, &clean.sink(SinkKind::Additive).unwrap().output());
        }
    }

    #[test]
    fn the_sweep_equals_one_engine_run_per_point(
        stream in prop_oneof![arb_stream(400, 4), arb_raw_stream()],
        window in arb_window(),
        bounded in any::<bool>(),
        lags in prop::collection::vec(prop_oneof![(0u32..40).prop_map(|s| s as f64 * 500.0), 0.0f64..20_000.0], 1..5),
        graces in prop::collection::vec(prop_oneof![(0u32..40).prop_map(|s| s as f64 * 500.0), 0.0f64..20_000.0, Just(f64::INFINITY)], 1..5),
    ) {
        let base = EngineConfig {
            window,
            watermark: if bounded { WatermarkKind::Bounded { bound: 0.0 } } else { WatermarkKind::Fixed { lag: 0.0 } },
            ..EngineConfig::fixed(0.0, 0.0)
        };
        let truth = Oracle::true_counts(&stream, &window);
        let swept = FrontierPoint::sweep(&stream, base, &lags, &graces);
        let mut i = 0;
        for &lag in &lags {
            for &grace in &graces {
                prop_assert_eq!(swept[i], FrontierPoint::run(&stream, &truth, base, lag, grace));
                i += 1;
            }
        }
    }
}
