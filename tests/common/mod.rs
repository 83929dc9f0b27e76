//! What the property tests share: random generator streams, and random pipelines over an
//! engine strategy.

use proptest::prelude::*;
use twoclocks::engine::pipeline::{CheckpointMode, PipelineConfig};
use twoclocks::engine::stream::{generate, StreamParams};
use twoclocks::engine::{EngineConfig, Stream};

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
