//! The plain baseline of the speed benchmark (benches/plain) answers exactly as the engine
//! does: the same panes, drops and final values in the same order and the same counters, on
//! the classroom stream and on the benchmark's million events, with and without an early
//! trigger, tumbling and sliding; and on random hand-made streams (ties, negative and
//! fractional times, keys past the dense slots). Without this the speed ratio would compare
//! unlike work, and the engine's fast path for calm arrivals is checked against rules written
//! plainly.
use twoclocks::engine::StreamParams;

use crate::common::arb_accumulation;

#[path = "../../benches/plain/mod.rs"]
mod plain;

use plain::Plain;
use proptest::prelude::*;
use twoclocks::engine::{
    Accumulation, Counters, EngineConfig, Event, Output, Processor, Stream, WatermarkKind, WindowFn,
};

/// Everything a whole run emits, with the counters at the end.
fn engine(stream: &Stream, cfg: EngineConfig) -> (Output, Counters) {
    let mut p = Processor::for_stream(cfg, stream);
    let mut out = Output::default();
    for e in &stream.events {
        p.step(e, &mut out);
    }
    p.finish(&mut out);
    (out, *p.counters())
}

fn baseline(stream: &Stream, cfg: EngineConfig) -> (Output, Counters) {
    let mut p: Plain = Plain::new(cfg);
    let mut out = Output::default();
    for e in &stream.events {
        p.step(e, &mut out);
    }
    p.finish(&mut out);
    (out, *p.counters())
}

fn assert_same(stream: &Stream, cfg: EngineConfig) {
    let (a, ca) = engine(stream, cfg);
    let (b, cb) = baseline(stream, cfg);
    assert_eq!(ca, cb, "counters under {cfg:?}");
    if a.panes != b.panes {
        assert_eq!(a.panes.len(), b.panes.len(), "panes under {cfg:?}");
        for (i, (x, y)) in a.panes.iter().zip(&b.panes).enumerate() {
            assert_eq!(x, y, "pane {i} under {cfg:?}");
        }
    }
    assert_eq!(a.dropped, b.dropped, "drops under {cfg:?}");
    assert_eq!(a.finals, b.finals, "finals under {cfg:?}");
}

fn configs() -> Vec<EngineConfig> {
    let mut all = Vec::new();
    for window in [
        WindowFn::tumbling(60_000).unwrap(),
        WindowFn::sliding(60_000, 20_000).unwrap(),
    ] {
        for (lag, grace) in [(0.0, 0.0), (20_000.0, 0.0), (5_000.0, 30_000.0)] {
            for early in [None, Some(15_000.0)] {
                all.push(EngineConfig {
                    window,
                    watermark: WatermarkKind::Fixed { lag },
                    grace,
                    early,
                    accumulation: Accumulation::Accumulating,
                    conventions: Default::default(),
                    empty_panes: Default::default(),
                });
            }
        }
    }
    all
}

#[test]
fn the_baseline_answers_as_the_engine_on_the_classroom_stream() {
    let stream = Stream::classroom();
    for cfg in configs() {
        assert_same(&stream, cfg);
    }
    for accumulation in [Accumulation::Discarding, Accumulation::Retracting] {
        let cfg = EngineConfig {
            early: Some(10_000.0),
            accumulation,
            ..EngineConfig::fixed(10_000.0, 20_000.0)
        };
        assert_same(&stream, cfg);
    }
}

#[test]
fn the_baseline_answers_as_the_engine_on_the_benchmark_million() {
    // The stream and dials of benches/baseline.rs.
    let stream = Stream::generate(&StreamParams {
        events: 1_000_000,
        span: 30_000_000.0,
        ..Default::default()
    })
    .expect("valid parameters");
    for early in [None, Some(15_000.0)] {
        let cfg = EngineConfig {
            early,
            ..EngineConfig::fixed(20_000.0, 0.0)
        };
        assert_same(&stream, cfg);
    }
}

/// Hand-made events: negative and fractional times, ties, zero delays, up to 70 keys (the
/// engine holds keys from 64 on outside its dense slots).
fn arb_stream() -> impl Strategy<Value = Stream> {
    let keys = prop_oneof![Just(3u32), Just(70u32)];
    (
        keys,
        prop::collection::vec((-50i64..300, 0i64..120, 0u32..70, 0u8..4), 1..300),
    )
        .prop_map(|(nkeys, v)| {
            let events = v
                .into_iter()
                .map(|(et, d, key, frac)| Event {
                    event_time: et as f64 * 100.0 + f64::from(frac) * 0.25,
                    proc_time: (et + d) as f64 * 100.0,
                    key: key % nkeys,
                })
                .collect();
            Stream::from_unordered(events, (0..nkeys).map(|k| format!("k{k}")).collect())
        })
}

fn arb_config() -> impl Strategy<Value = EngineConfig> {
    let window = prop_oneof![
        (1i64..40).prop_map(|s| WindowFn::tumbling(s * 100).unwrap()),
        (1i64..10, 1i64..4).prop_map(|(n, k)| WindowFn::sliding(n * k * 100, n * 100).unwrap()),
    ];
    let grace = prop_oneof![Just(0.0), 0.0f64..5_000.0, Just(f64::INFINITY)];
    let early = prop_oneof![Just(None), (100.0f64..3_000.0).prop_map(Some)];
    let mode = arb_accumulation();
    (window, 0.0f64..4_000.0, grace, early, mode).prop_map(
        |(window, lag, grace, early, accumulation)| EngineConfig {
            window,
            watermark: WatermarkKind::Fixed { lag },
            grace,
            early,
            accumulation,
            conventions: Default::default(),
            empty_panes: Default::default(),
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn the_baseline_answers_as_the_engine_on_random_streams(
        stream in arb_stream(), cfg in arb_config()
    ) {
        assert_same(&stream, cfg);
    }
}
