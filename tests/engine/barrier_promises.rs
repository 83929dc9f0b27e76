//! What the at-least-once barrier mode promises, as the guide states it
//! (`docs/jobs-and-crashes.md`) next to the aligned and unaligned modes' exactly-once: after
//! crashes a window's final value may be over the clean run's, never under it.

use proptest::prelude::*;
use twoclocks::engine::pipeline::{CheckpointMode, PipelineConfig};
use twoclocks::engine::{Accumulation, EngineConfig, SinkKind, WatermarkKind, WindowFn};

use crate::common::{arb_grace, arb_stream, run_with_crashes};

fn arb_config() -> impl Strategy<Value = PipelineConfig> {
    (
        1_000i64..60_000,
        prop_oneof![
            (0.0f64..30_000.0).prop_map(|lag| WatermarkKind::Fixed { lag }),
            (0.0f64..30_000.0).prop_map(|bound| WatermarkKind::Bounded { bound }),
        ],
        arb_grace(),
        1usize..5,
        1usize..5,
        2_000.0f64..30_000.0,
        any::<u64>(),
        1.0f64..2_000.0,
    )
        .prop_map(
            |(size, watermark, grace, partitions, parallelism, every, seed, transit)| {
                let mut cfg = PipelineConfig::new(EngineConfig {
                    window: WindowFn::Tumbling { size, offset: 0 },
                    watermark,
                    grace,
                    early: None,
                    accumulation: Accumulation::Accumulating,
                    conventions: Default::default(),
                    empty_panes: Default::default(),
                });
                cfg.partitions = partitions;
                cfg.parallelism = parallelism;
                cfg.checkpoint_every = Some(every);
                cfg.seed = seed;
                cfg.transit = transit;
                cfg.mode = CheckpointMode::AtLeastOnce;
                cfg
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn at_least_once_over_counts_after_crashes_and_never_under_counts(
        stream in arb_stream(600, 5),
        cfg in arb_config(),
        crashes in prop::collection::vec((0.0f64..1.1, prop::option::of(0usize..4)), 1..4),
    ) {
        let clean = run_with_crashes(&stream, cfg, &[]);
        let crashed = run_with_crashes(&stream, cfg, &crashes);
        for (cell, &v) in clean.finals() {
            let got = crashed.finals().get(cell).copied().unwrap_or(0);
            prop_assert!(got >= v, "{:?}: {} after crashes, {} clean", cell, got, v);
        }
        for kind in [SinkKind::Idempotent, SinkKind::Transactional] {
            let (c, x) = (clean.sink_output(kind), crashed.sink_output(kind));
            for (cell, &v) in &c {
                let got = x.get(cell).copied().unwrap_or(0);
                prop_assert!(got >= v, "{} {:?}: {} after crashes, {} clean", kind, cell, got, v);
            }
        }
    }
}
