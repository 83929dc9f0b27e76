//! The engine against a plain implementation of the same rules (benches/plain: a `HashMap` of
//! cells and `BinaryHeap`s of window ends), side by side on the same million events: 60 s
//! tumbling windows, `fixed:20s`, no grace, accumulating, without an early trigger and with
//! one every 15 s. Both keep nothing but counters; tests/engine/engine_baseline.rs checks that
//! they emit the same panes. The baseline runs twice: with std's `HashMap` as it comes
//! (SipHash, `baseline`) and with the engine's own hasher (`baseline fxhash`), so the engine's
//! gain is seen apart from the hasher's. Read the ratio of the times in each group.

#[path = "plain/mod.rs"]
mod plain;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use plain::Plain;
use rustc_hash::FxBuildHasher;
use std::hash::{BuildHasher, RandomState};
use std::hint::black_box;
use twoclocks::engine::StreamParams;
use twoclocks::engine::{EngineConfig, Output, Processor, Stream};

fn million() -> Stream {
    Stream::generate(&StreamParams {
        events: 1_000_000,
        span: 30_000_000.0,
        ..Default::default()
    })
    .expect("valid parameters")
}

/// Steps every event through the engine, keeping nothing but counters.
fn engine(stream: &Stream, cfg: EngineConfig) -> u64 {
    let mut p = Processor::for_stream(cfg, stream);
    let mut out = Output::default();
    for e in &stream.events {
        p.step(e, &mut out);
        out.clear();
    }
    p.finish(&mut out);
    p.counters().panes()
}

/// The same through the plain baseline, its maps hashed by `S`.
fn baseline<S: BuildHasher + Default>(stream: &Stream, cfg: EngineConfig) -> u64 {
    let mut p = Plain::<S>::new(cfg);
    let mut out = Output::default();
    for e in &stream.events {
        p.step(e, &mut out);
        out.clear();
    }
    p.finish(&mut out);
    p.counters().panes()
}

fn versus(c: &mut Criterion) {
    let big = million();
    for (name, early) in [("no early", None), ("early 15s", Some(15_000.0))] {
        let cfg = EngineConfig {
            early,
            ..EngineConfig::fixed(20_000.0, 0.0)
        };
        let mut g = c.benchmark_group(format!("1M tumbling 60s fixed 20s, {name}"));
        g.sample_size(10);
        g.throughput(Throughput::Elements(big.len() as u64));
        g.bench_function("engine", |b| b.iter(|| engine(black_box(&big), cfg)));
        g.bench_function("baseline", |b| {
            b.iter(|| baseline::<RandomState>(black_box(&big), cfg))
        });
        g.bench_function("baseline fxhash", |b| {
            b.iter(|| baseline::<FxBuildHasher>(black_box(&big), cfg))
        });
        g.finish();
    }
}

criterion_group!(benches, versus);
criterion_main!(benches);
