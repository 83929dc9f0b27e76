//! Property tests of the parallel checkpointing pipeline over random streams, schedule seeds,
//! parallelism, partitions, checkpoint intervals and crash schedules: with one partition and one
//! operator it computes exactly what the single processor does; the same seed replays the same
//! run; after crashes the idempotent and transactional sinks equal the clean run and the
//! additive sink over-counts by exactly the panes it received again; aligned and unaligned
//! barriers put every record either in a checkpoint (an operator's state or the in-flight data)
//! or in the replay after it, never both and never neither, and at-least-once barriers do not; the
//! reference's five-crash schedule gives 40 groups and 20 000 events, identical; what each
//! crash adds to the additive sink ([`CrashExcess`]) adds up to its excess under every barrier
//! mode, at-least-once too, and is the panes received again where barriers are exact, whatever
//! the accumulation (the figure `CrashExcess::of` answers with from the records there).

use std::collections::BTreeMap;

use proptest::prelude::*;
use twoclocks::engine::checkpoint::ScheduleStep;
use twoclocks::engine::pipeline::{
    CheckpointMode, CrashExcess, CrashTarget, Pipeline, PipelineConfig,
};
use twoclocks::engine::Oracle;
use twoclocks::engine::Processor;
use twoclocks::engine::StreamParams;
use twoclocks::engine::{CellId, EngineConfig, SinkKind, Stream, WatermarkKind, WindowFn};

use crate::common::{
    arb_accumulation, arb_grace, arb_pipeline_of, arb_pipeline_watermark, arb_stream,
    crash_schedule, plus, run_with_crashes,
};

fn arb_engine() -> impl Strategy<Value = EngineConfig> {
    (
        prop_oneof![
            (1_000i64..60_000).prop_map(|size| WindowFn::Tumbling { size, offset: 0 }),
            (2_000i64..60_000, 1i64..4).prop_map(|(size, k)| WindowFn::Sliding {
                size,
                slide: (size / (k + 1)).max(1),
                offset: 0,
            }),
        ],
        arb_pipeline_watermark(),
        arb_grace(),
        prop::option::of(1_000.0f64..20_000.0),
        arb_accumulation(),
    )
        .prop_map(
            |(window, watermark, grace, early, accumulation)| EngineConfig {
                window,
                watermark,
                grace,
                early,
                accumulation,
                conventions: Default::default(),
                empty_panes: Default::default(),
            },
        )
}

fn arb_pipeline() -> impl Strategy<Value = PipelineConfig> {
    arb_pipeline_of(arb_engine(), 5).prop_map(|mut cfg| {
        cfg.audit = true;
        cfg
    })
}

/// Crash times as fractions of the stream's processing-time span, and whom they hit.
fn arb_crashes() -> impl Strategy<Value = Vec<(f64, Option<usize>)>> {
    prop::collection::vec((0.0f64..1.1, prop::option::of(0usize..4)), 1..4)
}

fn clean(stream: &Stream, cfg: PipelineConfig) -> Pipeline<&Stream> {
    let mut p = Pipeline::new(stream, cfg).expect("valid dials");
    p.run_to_end();
    assert!(p.is_finished());
    p
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn one_partition_one_operator_is_the_processor(
        stream in arb_stream(600, 5),
        cfg in arb_pipeline(),
    ) {
        let cfg = PipelineConfig { partitions: 1, parallelism: 1, ..cfg };
        let p = clean(&stream, cfg);
        let r = Processor::run(&stream, cfg.engine, false);
        prop_assert_eq!(p.finals(), &r.finals);
        let (a, b) = (p.counters(), r.counters);
        prop_assert_eq!((a.events, a.on_time, a.late, a.dropped), (b.events, b.on_time, b.late, b.dropped));
    }

    #[test]
    fn instant_channels_emit_the_processors_panes(stream in arb_stream(600, 5), cfg in arb_pipeline()) {
        let cfg = PipelineConfig { partitions: 1, parallelism: 1, transit: 0.0, keep_outputs: true, ..cfg };
        let p = clean(&stream, cfg);
        let r = Processor::run(&stream, cfg.engine, true);
        prop_assert_eq!(p.panes(), &r.output.panes[..]);
    }

    #[test]
    fn the_same_seed_replays_the_same_run(
        stream in arb_stream(600, 5),
        cfg in arb_pipeline(),
        crashes in arb_crashes(),
    ) {
        let a = run_with_crashes(&stream, cfg, &crashes);
        assert!(a.is_finished());
        let b = run_with_crashes(&stream, cfg, &crashes);
        assert!(b.is_finished());
        prop_assert_eq!(a.steps(), b.steps());
        prop_assert_eq!(a.crashes(), b.crashes());
        for kind in SinkKind::ALL {
            prop_assert_eq!(a.sink_output(kind), b.sink_output(kind));
        }
    }

    #[test]
    fn what_each_crash_adds_to_the_additive_sink_adds_up_to_its_excess(
        stream in arb_stream(600, 5),
        cfg in arb_pipeline(),
        mode in prop_oneof![
            Just(CheckpointMode::ExactlyOnce),
            Just(CheckpointMode::Unaligned),
            Just(CheckpointMode::AtLeastOnce),
        ],
        crashes in arb_crashes(),
    ) {
        // Discarding panes under infinite grace without early firings: without a crash the
        // additive sink's total is the true total, so all its excess is the crashes'.
        let mut cfg = PipelineConfig { mode, audit: false, ..cfg };
        cfg.engine.grace = f64::INFINITY;
        cfg.engine.early = None;
        cfg.engine.accumulation = twoclocks::engine::Accumulation::Discarding;
        let x = run_with_crashes(&stream, cfg, &crashes);
        let schedule = crash_schedule(&stream, &cfg, &crashes);
        let job = Pipeline::new(&stream, cfg).expect("valid dials");
        let excess = CrashExcess::by_rerun(&job, &schedule);
        prop_assert_eq!(&CrashExcess::of(&job, &schedule), &excess);
        let truth = Oracle::true_counts(&stream, &cfg.engine.window);
        let truth: i64 = truth.values().map(|&v| v as i64).sum();
        let additive: i64 = x.sink_output(SinkKind::Additive).values().sum();
        prop_assert_eq!(excess.per_crash.len(), x.crashes().len());
        prop_assert_eq!(excess.without_crashes, truth);
        prop_assert_eq!(excess.total(), additive - truth);
        if mode != CheckpointMode::AtLeastOnce {
            for (added, crash) in excess.per_crash.iter().zip(x.crashes()) {
                prop_assert_eq!(*added, crash.overcount_total());
            }
        }
    }

    /// Whatever the accumulation, grace and early firings, the crash records' figures `of`
    /// answers with under exact barriers are what running the job on finds.
    #[test]
    fn what_each_crash_adds_is_found_alike_from_its_record_and_by_running_on(
        stream in arb_stream(400, 4),
        cfg in arb_pipeline(),
        mode in prop_oneof![
            Just(CheckpointMode::ExactlyOnce),
            Just(CheckpointMode::Unaligned),
            Just(CheckpointMode::AtLeastOnce),
        ],
        crashes in arb_crashes(),
    ) {
        let cfg = PipelineConfig { mode, audit: false, ..cfg };
        let schedule = crash_schedule(&stream, &cfg, &crashes);
        let job = Pipeline::new(&stream, cfg).expect("valid dials");
        prop_assert_eq!(CrashExcess::of(&job, &schedule), CrashExcess::by_rerun(&job, &schedule));
    }

    #[test]
    fn exactly_once_sinks_survive_crashes_and_additive_overcounts_by_the_replay(
        stream in arb_stream(600, 5),
        cfg in arb_pipeline(),
        crashes in arb_crashes(),
    ) {
        let c = clean(&stream, cfg);
        let x = run_with_crashes(&stream, cfg, &crashes);
        assert!(x.is_finished());
        prop_assert_eq!(c.finals(), x.finals());
        prop_assert_eq!(c.counters(), x.counters());
        for kind in [SinkKind::Idempotent, SinkKind::Transactional] {
            prop_assert_eq!(c.sink_output(kind), x.sink_output(kind), "{}", kind);
        }
        let mut over = BTreeMap::new();
        for crash in x.crashes() {
            over = plus(&over, &crash.overcount);
        }
        let additive = x.sink_output(SinkKind::Additive);
        prop_assert_eq!(&additive, &plus(&c.sink_output(SinkKind::Additive), &over));
        if over.values().any(|&v| v != 0) {
            prop_assert_ne!(additive, c.sink_output(SinkKind::Additive));
        }
    }

    #[test]
    fn exactly_once_barriers_cut_every_record_exactly_once(
        stream in arb_stream(600, 5),
        cfg in arb_pipeline(),
        crashes in arb_crashes(),
    ) {
        let x = run_with_crashes(&stream, cfg, &crashes);
        assert!(x.is_finished());
        for ck in x.checkpoints() {
            let a = x.audit(ck).expect("audit run");
            prop_assert!(a.is_exact(), "checkpoint #{}: {:?}", ck.id, a);
        }
        let a = x.audit_now().expect("audit run");
        prop_assert!(a.is_exact(), "final state: {:?}", a);
        prop_assert_eq!(x.counters().events as usize, stream.len());
    }
}

#[test]
fn barrier_modes_differ_in_what_a_checkpoint_holds() {
    let stream = Stream::generate(&StreamParams {
        events: 4000,
        ..Default::default()
    })
    .unwrap();
    let mut cfg = PipelineConfig::new(EngineConfig::fixed(20_000.0, 0.0));
    cfg.partitions = 4;
    cfg.parallelism = 2;
    cfg.checkpoint_every = Some(5_000.0);
    cfg.transit = 2_000.0;
    cfg.audit = true;
    // At-least-once: records a faster input delivered after its barrier are in the snapshot,
    // and the sources will replay them.
    cfg.mode = CheckpointMode::AtLeastOnce;
    let p = clean(&stream, cfg);
    let after_cut: usize = p
        .checkpoints()
        .iter()
        .map(|ck| p.audit(ck).unwrap().after_cut)
        .sum();
    assert!(after_cut > 0);
    // Aligned: operators wait for the slowest barrier and store no in-flight data.
    cfg.mode = CheckpointMode::ExactlyOnce;
    let p = clean(&stream, cfg);
    assert!(p.checkpoints().iter().all(|ck| ck.in_flight == 0));
    assert!(p
        .checkpoints()
        .iter()
        .any(|ck| ck.alignment.iter().any(|&a| a > 0.0)));
    for ck in p.checkpoints() {
        assert!(p.audit(ck).unwrap().is_exact());
    }
    // Unaligned: no waiting; what arrives before the late barriers is stored instead.
    cfg.mode = CheckpointMode::Unaligned;
    let p = clean(&stream, cfg);
    assert!(p
        .checkpoints()
        .iter()
        .all(|ck| ck.alignment.iter().all(|&a| a == 0.0)));
    assert!(p.checkpoints().iter().any(|ck| ck.in_flight > 0));
    for ck in p.checkpoints() {
        assert!(p.audit(ck).unwrap().is_exact());
    }
}

/// The reference's schedule, by events emitted: five times, run to `n·i/6`, take a checkpoint,
/// run 800 events on, crash.
#[test]
fn the_reference_five_crash_schedule_is_identical() {
    let stream = Stream::classroom();
    let cfg = PipelineConfig {
        partitions: 3,
        parallelism: 4,
        ..PipelineConfig::new(EngineConfig {
            watermark: WatermarkKind::Perfect,
            ..EngineConfig::fixed(0.0, 0.0)
        })
    };
    let truth = Oracle::true_counts(&stream, &cfg.engine.window);
    let mut p = Pipeline::new(&stream, cfg).unwrap();
    for step in ScheduleStep::reference_schedule(stream.len()) {
        let at = match step {
            ScheduleStep::Checkpoint { at } | ScheduleStep::Crash { at } => at,
        };
        while p.emitted() < at && p.step().is_some() {}
        match step {
            ScheduleStep::Checkpoint { .. } => {
                p.checkpoint_now().expect("sources are live");
            }
            ScheduleStep::Crash { .. } => {
                p.crash_now(CrashTarget::Job).expect("the job is running");
            }
        }
    }
    p.run_to_end();
    let replayed: Vec<usize> = p.crashes().iter().map(|c| c.replayed).collect();
    assert_eq!(replayed, vec![800; 5]);
    let finals = p.finals();
    assert_eq!(finals.len(), 40);
    assert_eq!(finals.values().sum::<u64>(), 20_000);
    let c = clean(&stream, cfg);
    assert_eq!(finals, c.finals());
    assert_eq!(finals, &truth);
    assert_eq!(finals, &Processor::run(&stream, cfg.engine, false).finals);
    for kind in [SinkKind::Idempotent, SinkKind::Transactional] {
        let out: BTreeMap<CellId, u64> = p
            .sink_output(kind)
            .into_iter()
            .map(|(c, v)| (c, v as u64))
            .collect();
        assert_eq!(out, truth, "{kind}");
    }
    assert!(p.sink_output(SinkKind::Additive).values().sum::<i64>() > 20_000);
}
