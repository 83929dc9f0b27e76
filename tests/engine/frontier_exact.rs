//! The frontier stays exact: a sweep over lags × graces equals one engine run per point, for
//! random small streams (generated, or with whole, fractional, negative and tied times, in
//! processing order or not), every window function, every watermark family, any lag and grace
//! (infinite and negative ones included), whichever path the sweep takes (search or runs).

use proptest::prelude::*;
use twoclocks::engine::window::{Ttl, TtlTime};
use twoclocks::engine::Event;
use twoclocks::engine::FrontierPoint;
use twoclocks::engine::Oracle;
use twoclocks::engine::{Accumulation, EngineConfig, Stream, WatermarkKind, WindowFn};

use crate::common::arb_stream;

/// Streams with whole or fractional times, ties, negative event times, events arriving
/// before they happen, and, unless `sorted`, not in processing order.
fn arb_raw_stream() -> impl Strategy<Value = Stream> {
    (
        prop::collection::vec((-50i64..200, -5i64..80, 0u32..3, 0.0f64..1.0), 1..150),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(v, fractional, sorted)| {
            let events = v
                .into_iter()
                .map(|(et, d, key, f)| {
                    let f = if fractional { f } else { 0.0 };
                    Event {
                        event_time: (et as f64 + f) * 100.0,
                        proc_time: ((et + d) as f64 + f / 3.0) * 100.0,
                        key,
                    }
                })
                .collect();
            let keys = vec!["a".into(), "b".into(), "c".into()];
            if sorted {
                Stream::from_unordered(events, keys)
            } else {
                Stream {
                    events,
                    keys,
                    ..Default::default()
                }
            }
        })
}

fn arb_window() -> impl Strategy<Value = WindowFn> {
    let ttl = (1i64..30_000, any::<bool>()).prop_map(|(ms, event)| Ttl {
        ms,
        time: if event {
            TtlTime::Event
        } else {
            TtlTime::Processing
        },
    });
    // Tumbling and sliding windows on the epoch's grid or moved off it (as a zone's hours
    // and days are), by any offset: it is taken modulo the slide.
    let offset = prop_oneof![2 => Just(0i64), 1 => -120_000i64..120_000];
    prop_oneof![
        4 => (1i64..60, offset.clone())
            .prop_map(|(s, o)| WindowFn::tumbling(s * 1_000).unwrap().with_offset(o).unwrap()),
        3 => (2i64..60_000, 1i64..5, offset).prop_map(|(s, k, o)| {
            WindowFn::sliding(s, (s / k).max(1)).unwrap().with_offset(o).unwrap()
        }),
        1 => (1i64..30_000).prop_map(|g| WindowFn::session(g).unwrap()),
        1 => prop::option::of(ttl).prop_map(|t| WindowFn::global(t).unwrap()),
    ]
}

fn arb_watermark() -> impl Strategy<Value = WatermarkKind> {
    prop_oneof![
        3 => Just(WatermarkKind::Fixed { lag: 0.0 }),
        3 => Just(WatermarkKind::Bounded { bound: 0.0 }),
        1 => Just(WatermarkKind::Perfect),
        1 => (0.0f64..1.0, 1usize..50).prop_map(|(q, n)| WatermarkKind::Heuristic { q, n }),
    ]
}

fn arb_dial() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(0.0),
        (0u32..40).prop_map(|s| s as f64 * 500.0),
        0.0f64..20_000.0,
        -3_000.0f64..0.0,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn the_sweep_equals_one_engine_run_per_point(
        stream in prop_oneof![arb_stream(300, 4), arb_raw_stream()],
        window in arb_window(),
        watermark in arb_watermark(),
        accumulation in prop::sample::select(Accumulation::ALL.to_vec()),
        early in prop::option::of(500.0f64..20_000.0),
        lags in prop::collection::vec(arb_dial(), 1..5),
        graces in prop::collection::vec(prop_oneof![
            4 => arb_dial(),
            1 => Just(f64::INFINITY),
            1 => Just(f64::NEG_INFINITY),
        ], 1..6),
    ) {
        let base = EngineConfig { window, watermark, grace: 0.0, early, accumulation, conventions: Default::default(), empty_panes: Default::default() };
        let truth = Oracle::true_counts(&stream, &window);
        let swept = FrontierPoint::sweep(&stream, base, &lags, &graces);
        prop_assert_eq!(swept.len(), lags.len() * graces.len());
        let mut i = 0;
        for &lag in &lags {
            for &grace in &graces {
                let point = FrontierPoint::run(&stream, &truth, base, lag, grace);
                prop_assert_eq!(swept[i], point, "lag {} grace {}", lag, grace);
                i += 1;
            }
        }
    }
}

#[test]
fn a_sweep_of_nothing_is_empty() {
    let s = twoclocks::engine::Stream::classroom();
    let base = EngineConfig::fixed(0.0, 0.0);
    assert!(FrontierPoint::sweep(&s, base, &[], &[0.0]).is_empty());
    assert!(FrontierPoint::sweep(&s, base, &[0.0], &[]).is_empty());
    let empty = Stream::default();
    let p = FrontierPoint::sweep(&empty, base, &[0.0], &[0.0]);
    assert_eq!(
        p,
        vec![FrontierPoint::run(
            &empty,
            &Oracle::true_counts(&empty, &base.window),
            base,
            0.0,
            0.0
        )]
    );
}

#[test]
fn an_event_time_ttl_is_swept_by_its_watermark() {
    // The same windows are past grace under both lags (the global window never is), yet the
    // state expires by the watermark: the lags must not share a run.
    let events = vec![
        Event {
            event_time: 258.9,
            proc_time: 259.4,
            key: 0,
        },
        Event {
            event_time: 844.4,
            proc_time: 844.9,
            key: 0,
        },
    ];
    let s = Stream {
        events,
        keys: vec!["a".into()],
        ..Default::default()
    };
    let ttl = Ttl {
        ms: 1,
        time: TtlTime::Event,
    };
    let base = EngineConfig {
        window: WindowFn::global(Some(ttl)).unwrap(),
        ..EngineConfig::fixed(0.0, 0.0)
    };
    let truth = Oracle::true_counts(&s, &base.window);
    let swept = FrontierPoint::sweep(&s, base, &[1_000.0, 0.0], &[0.0]);
    assert_eq!(swept[0], FrontierPoint::run(&s, &truth, base, 1_000.0, 0.0));
    assert_eq!(swept[1], FrontierPoint::run(&s, &truth, base, 0.0, 0.0));
    assert_ne!(swept[0].score, swept[1].score);
}

#[test]
fn a_sweep_shared_out_over_the_cores_equals_one_run_per_point() {
    // 8 000 cells × 3 lags: enough for the search to share the cells out over threads.
    let s = twoclocks::engine::Stream::generate(&twoclocks::engine::StreamParams {
        events: 30_000,
        span: 30_000_000.0,
        keys: "abcdefghijklmnop".to_string(),
        ..Default::default()
    })
    .unwrap();
    for window in [
        WindowFn::tumbling(60_000).unwrap(),
        WindowFn::sliding(60_000, 25_000).unwrap(),
    ] {
        for watermark in [
            WatermarkKind::Fixed { lag: 0.0 },
            WatermarkKind::Bounded { bound: 0.0 },
        ] {
            let base = EngineConfig {
                window,
                watermark,
                ..EngineConfig::fixed(0.0, 0.0)
            };
            let truth = Oracle::true_counts(&s, &window);
            let (lags, graces) = ([0.0, 7_500.0, 30_000.0], [0.0, 2_500.0, 60_000.0]);
            let swept = FrontierPoint::sweep(&s, base, &lags, &graces);
            let mut i = 0;
            for &lag in &lags {
                for &grace in &graces {
                    assert_eq!(swept[i], FrontierPoint::run(&s, &truth, base, lag, grace));
                    i += 1;
                }
            }
        }
    }
}
