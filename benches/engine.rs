//! Engine speed: one run of the classroom stream, a million events with and without early
//! triggers, the heuristic watermark, the 13 × 13 lag × grace frontier, and session windows
//! that merge often (16 keys, a gap near the keys' mean spacing).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use twoclocks::engine::FrontierPoint;
use twoclocks::engine::Stream;
use twoclocks::engine::StreamParams;
use twoclocks::engine::{EngineConfig, Output, Processor, WatermarkKind, WindowFn};

fn million() -> twoclocks::engine::Stream {
    Stream::generate(&StreamParams {
        events: 1_000_000,
        span: 30_000_000.0,
        ..Default::default()
    })
    .expect("valid parameters")
}

/// Steps every event through a processor, keeping nothing but counters.
fn step_all(stream: &twoclocks::engine::Stream, cfg: EngineConfig) -> u64 {
    let mut p = Processor::for_stream(cfg, stream);
    let mut out = Output::default();
    for e in &stream.events {
        p.step(e, &mut out);
        out.clear();
    }
    p.finish(&mut out);
    p.counters().dropped
}

fn engine(c: &mut Criterion) {
    let classroom = Stream::classroom();
    let mut g = c.benchmark_group("classroom");
    g.throughput(Throughput::Elements(classroom.len() as u64));
    g.bench_function("run fixed 20s", |b| {
        b.iter(|| step_all(black_box(&classroom), EngineConfig::fixed(20_000.0, 0.0)))
    });
    g.bench_function("run with finals (batch answer)", |b| {
        b.iter(|| {
            Processor::run(
                black_box(&classroom),
                EngineConfig::fixed(20_000.0, 0.0),
                false,
            )
        })
    });
    g.bench_function("run heuristic 0.95/2000", |b| {
        let cfg = EngineConfig {
            watermark: WatermarkKind::Heuristic { q: 0.95, n: 2000 },
            ..EngineConfig::fixed(0.0, 0.0)
        };
        b.iter(|| step_all(black_box(&classroom), cfg))
    });
    g.bench_function("frontier 13x13", |b| {
        let lags: Vec<f64> = (0..13).map(|i| i as f64 * 10_000.0).collect();
        b.iter(|| {
            FrontierPoint::sweep(
                black_box(&classroom),
                EngineConfig::fixed(0.0, 0.0),
                &lags,
                &lags,
            )
        })
    });
    g.finish();

    let big = million();
    let mut g = c.benchmark_group("million");
    g.sample_size(10);
    g.throughput(Throughput::Elements(big.len() as u64));
    for (name, early) in [
        ("fixed 20s", None),
        ("fixed 20s + early 15s", Some(15_000.0)),
    ] {
        let cfg = EngineConfig {
            early,
            ..EngineConfig::fixed(20_000.0, 0.0)
        };
        g.bench_with_input(BenchmarkId::new("step", name), &cfg, |b, cfg| {
            b.iter(|| step_all(black_box(&big), *cfg))
        });
    }
    g.finish();

    // 200 000 events over 30 000 s on 16 keys: a key's events come every 2.4 s on average, so
    // 2 s sessions open, merge and close all the time.
    let sparse = Stream::generate(&StreamParams {
        events: 200_000,
        span: 30_000_000.0,
        keys: "abcdefghijklmnop".to_string(),
        ..Default::default()
    })
    .expect("valid parameters");
    let mut g = c.benchmark_group("sessions");
    g.sample_size(10);
    g.throughput(Throughput::Elements(sparse.len() as u64));
    let cfg = EngineConfig {
        window: WindowFn::session(2_000).expect("a valid gap"),
        ..EngineConfig::fixed(20_000.0, 10_000.0)
    };
    g.bench_function("step 200k, 16 keys, gap 2s", |b| {
        b.iter(|| step_all(black_box(&sparse), cfg))
    });
    g.finish();
}

criterion_group!(benches, engine);
criterion_main!(benches);
