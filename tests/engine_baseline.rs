//! The plain baseline of the speed benchmark (benches/plain) answers exactly as the engine
//! does: the same panes, drops and final values in the same order and the same counters, on
//! the classroom stream and on the benchmark's million events, with and without an early
//! trigger, tumbling and sliding. Without this the speed ratio would compare unlike work.

#[path = "../benches/plain/mod.rs"]
mod plain;

use plain::Plain;
use twoclocks::engine::stream::{classroom, generate, StreamParams};
use twoclocks::engine::{
    Accumulation, Counters, EngineConfig, Output, Processor, Stream, WatermarkKind, WindowFn,
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
    let mut p = Plain::new(cfg);
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
    assert_eq!(a.panes.len(), b.panes.len(), "panes under {cfg:?}");
    for (i, (x, y)) in a.panes.iter().zip(&b.panes).enumerate() {
        assert_eq!(x, y, "pane {i} under {cfg:?}");
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
                });
            }
        }
    }
    all
}

#[test]
fn the_baseline_answers_as_the_engine_on_the_classroom_stream() {
    let stream = classroom();
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
    let stream = generate(&StreamParams {
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
