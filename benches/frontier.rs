//! Frontier speed: a 25 × 25 lag × grace sweep over one million events against one engine run
//! over the same events, side by side, for the fixed and the bounded watermark, on a stream
//! of few cells (600 s, 4 keys: 40 cells of 25 000 events) and one of many (30 000 s, 16 keys:
//! 8 000 cells of 125 events); and on the second, 5 s and 30 s session windows.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use twoclocks::engine::FrontierPoint;
use twoclocks::engine::Processor;
use twoclocks::engine::StreamParams;
use twoclocks::engine::{EngineConfig, Stream, WatermarkKind};

/// 0 s to 120 s in steps of 5 s: 25 values.
fn dials() -> Vec<f64> {
    (0..25).map(|i| i as f64 * 5_000.0).collect()
}

fn million(span: f64, keys: &str) -> Stream {
    Stream::generate(&StreamParams {
        events: 1_000_000,
        span,
        keys: keys.to_string(),
        ..Default::default()
    })
    .expect("valid parameters")
}

fn frontier(c: &mut Criterion) {
    let dials = dials();
    for (name, stream) in [
        ("1m few cells", million(600_000.0, "abcd")),
        ("1m many cells", million(30_000_000.0, "abcdefghijklmnop")),
    ] {
        let mut g = c.benchmark_group(name);
        g.sample_size(10);
        g.throughput(Throughput::Elements(stream.len() as u64));
        for watermark in [
            WatermarkKind::Fixed { lag: 20_000.0 },
            WatermarkKind::Bounded { bound: 20_000.0 },
        ] {
            let cfg = EngineConfig {
                watermark,
                ..EngineConfig::fixed(0.0, 0.0)
            };
            let family = watermark.family();
            g.bench_with_input(BenchmarkId::new("one run", family), &cfg, |b, cfg| {
                b.iter(|| {
                    Processor::run(black_box(&stream), *cfg, false)
                        .counters
                        .dropped
                })
            });
            g.bench_with_input(BenchmarkId::new("sweep 25x25", family), &cfg, |b, cfg| {
                b.iter(|| FrontierPoint::sweep(black_box(&stream), *cfg, &dials, &dials).len())
            });
        }
        g.finish();
    }
    let stream = million(30_000_000.0, "abcdefghijklmnop");
    let mut g = c.benchmark_group("1m sessions");
    g.sample_size(10);
    g.throughput(Throughput::Elements(stream.len() as u64));
    for gap in [5_000, 30_000] {
        let cfg = EngineConfig {
            window: twoclocks::engine::WindowFn::session(gap).expect("a gap"),
            watermark: WatermarkKind::Fixed { lag: 20_000.0 },
            ..EngineConfig::fixed(0.0, 0.0)
        };
        let name = format!("gap {}s", gap / 1_000);
        g.bench_with_input(BenchmarkId::new("one run", &name), &cfg, |b, cfg| {
            b.iter(|| {
                Processor::run(black_box(&stream), *cfg, false)
                    .counters
                    .dropped
            })
        });
        g.bench_with_input(BenchmarkId::new("sweep 25x25", &name), &cfg, |b, cfg| {
            b.iter(|| FrontierPoint::sweep(black_box(&stream), *cfg, &dials, &dials).len())
        });
    }
    g.finish();
}

criterion_group!(benches, frontier);
criterion_main!(benches);
