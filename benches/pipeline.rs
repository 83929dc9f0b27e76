//! Pipeline speed: a full re-run of the classroom stream through the parallel pipeline
//! (N = 4 operators, a checkpoint every 10 s), with and without crashes, with a partition
//! silent for 90 s and idleness after 10 s, and the size of what a checkpoint copies (printed
//! once before the measurements); unaligned barriers with a 40 s transit and a checkpoint
//! every millisecond (thousands in progress at once, each storing what is in flight), P = N =
//! 8 over 5 000 events, with crashes.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use twoclocks::engine::pipeline::{CheckpointMode, CrashTarget, Outage, Pipeline, PipelineConfig};
use twoclocks::engine::StreamParams;
use twoclocks::engine::{EngineConfig, Stream};

fn config(partitions: usize) -> PipelineConfig {
    PipelineConfig {
        partitions,
        parallelism: 4,
        checkpoint_every: Some(10_000.0),
        ..PipelineConfig::new(EngineConfig::fixed(20_000.0, 0.0))
    }
}

fn rerun(stream: &Stream, cfg: PipelineConfig, crashes: &[f64]) -> u64 {
    rerun_with(stream, cfg, crashes, Vec::new())
}

fn rerun_with(stream: &Stream, cfg: PipelineConfig, crashes: &[f64], outages: Vec<Outage>) -> u64 {
    let mut p = Pipeline::new(stream, cfg)
        .expect("valid dials")
        .with_outages(outages)
        .expect("valid outages");
    for &t in crashes {
        p.schedule_crash(t, CrashTarget::Job).expect("a job crash");
    }
    p.run_to_end();
    p.panes_received()
}

fn report_checkpoint_cost(stream: &Stream) {
    for partitions in [1, 4] {
        let mut p = Pipeline::new(stream, config(partitions)).expect("valid dials");
        p.run_to_end();
        let cks = p.checkpoints();
        let bytes: Vec<usize> = cks.iter().map(|c| c.bytes).collect();
        let total: usize = bytes.iter().sum();
        let aligned: Vec<f64> = cks
            .iter()
            .flat_map(|c| c.alignment.iter().copied())
            .collect();
        let mean_alignment = aligned.iter().sum::<f64>() / aligned.len().max(1) as f64;
        println!(
            "P = {partitions}, N = 4, every 10 s: {} checkpoints, bytes copied per checkpoint \
             min {} / mean {} / max {}, total {total}; mean alignment {mean_alignment:.0} ms; \
             {} steps",
            cks.len(),
            bytes.iter().min().unwrap_or(&0),
            total / cks.len().max(1),
            bytes.iter().max().unwrap_or(&0),
            p.steps()
        );
    }
}

fn pipeline(c: &mut Criterion) {
    let stream = Stream::classroom();
    report_checkpoint_cost(&stream);
    let mut g = c.benchmark_group("pipeline classroom N=4 every 10s");
    g.throughput(Throughput::Elements(stream.len() as u64));
    for partitions in [1, 4] {
        g.bench_function(format!("re-run P={partitions}"), |b| {
            b.iter(|| rerun(black_box(&stream), config(partitions), &[]))
        });
    }
    g.bench_function("re-run P=4 with crashes at 120s, 300s", |b| {
        b.iter(|| rerun(black_box(&stream), config(4), &[120_000.0, 300_000.0]))
    });
    let silent = || {
        vec![Outage {
            partition: 1,
            from: 200_000.0,
            until: 290_000.0,
        }]
    };
    let idle = PipelineConfig {
        idle_timeout: Some(10_000.0),
        ..config(4)
    };
    g.bench_function(
        "re-run P=4 with partition 1 out 200s+90s, idle after 10s",
        |b| b.iter(|| rerun_with(black_box(&stream), idle, &[], silent())),
    );
    g.finish();
    let few = Stream::generate(&StreamParams {
        events: 5_000,
        ..StreamParams::default()
    })
    .expect("valid dials");
    let unaligned = PipelineConfig {
        partitions: 8,
        parallelism: 8,
        checkpoint_every: Some(1.0),
        transit: 40_000.0,
        mode: CheckpointMode::Unaligned,
        ..PipelineConfig::new(EngineConfig::fixed(20_000.0, 0.0))
    };
    let mut g = c.benchmark_group("pipeline 5000 events P=N=8 unaligned transit 40s every 1ms");
    g.sample_size(10);
    g.throughput(Throughput::Elements(few.len() as u64));
    g.bench_function("re-run with crashes at 120s, 300s", |b| {
        b.iter(|| rerun(black_box(&few), unaligned, &[120_000.0, 300_000.0]))
    });
    g.finish();
}

criterion_group!(benches, pipeline);
criterion_main!(benches);
