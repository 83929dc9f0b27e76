//! What the property tests share: random generator streams, and random pipelines over an
//! engine strategy.

use proptest::prelude::*;
use twoclocks::engine::pipeline::{CheckpointMode, CrashTarget, Pipeline, PipelineConfig};
use twoclocks::engine::stream::{generate, StreamParams};
use twoclocks::engine::{EngineConfig, SinkKind, Stream};

/// Streams from the generator with random dials: up to `max_events` events, `max_keys` keys.
pub fn arb_stream(max_events: usize, max_keys: usize) -> impl Strategy<Value = Stream> {
    (
        0u64..10_000,
        1usize..max_events,
        1_000.0f64..200_000.0,
        0.0f64..0.5,
        1.0f64..5_000.0,
        0.0f64..60_000.0,
        1usize..max_keys + 1,
    )
        .prop_map(|(seed, events, span, tail, mean_delay, tail_max, nkeys)| {
            generate(&StreamParams {
                seed,
                events,
                span,
                tail,
                mean_delay,
                tail_max,
                keys: "abcdefgh"[..nkeys.min(8)].to_string(),
            })
            .expect("valid parameters")
        })
}

/// Pipelines running `engine`, with 1 to `max_width − 1` partitions and operators, a periodic
/// checkpoint or none, any schedule seed, instant or slow channels, and either barrier mode
/// that promises exactly-once.
#[allow(dead_code)] // not every test file sharing this module runs pipelines
pub fn arb_pipeline_of(
    engine: impl Strategy<Value = EngineConfig>,
    max_width: usize,
) -> impl Strategy<Value = PipelineConfig> {
    (
        engine,
        1usize..max_width,
        1usize..max_width,
        prop::option::of(2_000.0f64..30_000.0),
        any::<u64>(),
        prop_oneof![Just(0.0), 1.0f64..2_000.0],
        prop_oneof![
            Just(CheckpointMode::ExactlyOnce),
            Just(CheckpointMode::Unaligned)
        ],
    )
        .prop_map(
            |(engine, partitions, parallelism, every, seed, transit, mode)| {
                let mut cfg = PipelineConfig::new(engine);
                cfg.partitions = partitions;
                cfg.parallelism = parallelism;
                cfg.checkpoint_every = every;
                cfg.seed = seed;
                cfg.transit = transit;
                cfg.mode = mode;
                cfg
            },
        )
}

/// Runs `cfg` over `s` once cleanly and once with `crashes` (each a fraction of the stream's
/// processing-time span and an operator to hit, the whole job when none or out of range),
/// checks that both finish with the same finals and counters and that the exactly-once sinks
/// (idempotent, transactional) hold the same output, and gives back both runs.
#[allow(dead_code)] // not every test file sharing this module crashes pipelines
pub fn crash_and_compare<'a>(
    s: &'a Stream,
    cfg: PipelineConfig,
    crashes: &[(f64, Option<usize>)],
) -> Result<(Pipeline<&'a Stream>, Pipeline<&'a Stream>), TestCaseError> {
    let mut clean = Pipeline::new(s, cfg).expect("valid dials");
    clean.run_to_end();
    let mut crashed = Pipeline::new(s, cfg).expect("valid dials");
    let t0 = s.events.first().map_or(0.0, |e| e.proc_time);
    let t1 = s.events.last().map_or(0.0, |e| e.proc_time);
    for &(f, target) in crashes {
        let target = match target {
            Some(i) if i < cfg.parallelism => CrashTarget::Operator(i),
            _ => CrashTarget::Job,
        };
        crashed.schedule_crash(t0 + f * (t1 - t0), target).unwrap();
    }
    crashed.run_to_end();
    prop_assert!(clean.is_finished() && crashed.is_finished());
    prop_assert_eq!(clean.finals(), crashed.finals());
    prop_assert_eq!(clean.counters(), crashed.counters());
    for kind in [SinkKind::Idempotent, SinkKind::Transactional] {
        prop_assert_eq!(
            clean.sink_output(kind),
            crashed.sink_output(kind),
            "{}",
            kind
        );
    }
    Ok((clean, crashed))
}
