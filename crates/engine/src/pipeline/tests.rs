//! Unit tests of the pipeline: key routing, one operator against the processor, a crash's
//! record, and memory held by checkpoints.

use super::addressing::key_hash;
use super::*;
use crate::processor::{EngineConfig, Processor};
use crate::stream::{Stream, StreamParams};

#[test]
fn key_routing_is_stable() {
    let r: Vec<usize> = ["a", "b", "c", "d"]
        .iter()
        .map(|k| PipelineConfig::operator_for(k, 4))
        .collect();
    assert_eq!(r, vec![0, 1, 2, 3]);
    assert_eq!(key_hash(""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(key_hash("a"), 0xaf63_dc4c_8601_ec8c);
}

/// By index, event i goes to partition i mod P, the partition's (i div P)-th.
#[test]
fn by_index_event_i_goes_to_partition_i_mod_p() {
    let stream = Stream::generate(&StreamParams {
        events: 1001,
        ..Default::default()
    })
    .unwrap();
    let cfg = PipelineConfig {
        partitions: 3,
        parallelism: 2,
        ..PipelineConfig::new(EngineConfig::fixed(20_000.0, 0.0))
    };
    let mut p = Pipeline::new(&stream, cfg).unwrap();
    let mut emitted = 0;
    while let Some(step) = p.step() {
        if let StepEvent::Emitted {
            partition,
            offset,
            stream_offset,
            ..
        } = step.event
        {
            assert_eq!((partition, offset), (stream_offset % 3, stream_offset / 3));
            emitted += 1;
        }
    }
    assert_eq!(emitted, 1001);
    let lens: Vec<usize> = p.partitions().iter().map(|v| v.len).collect();
    assert_eq!(lens, [334, 334, 333]);
}

#[test]
fn one_partition_one_operator_equals_the_processor() {
    let stream = Stream::generate(&StreamParams {
        events: 2000,
        ..Default::default()
    })
    .unwrap();
    let engine = EngineConfig::fixed(20_000.0, 0.0);
    let mut cfg = PipelineConfig::new(engine);
    cfg.checkpoint_every = Some(10_000.0);
    let mut p = Pipeline::new(&stream, cfg).unwrap();
    p.run_to_end();
    assert!(p.is_finished());
    assert_eq!(p.finals(), &Processor::run(&stream, engine, false).finals);
    assert!(!p.checkpoints().is_empty());
}

#[test]
fn a_crash_restores_and_says_so() {
    let stream = Stream::generate(&StreamParams {
        events: 3000,
        ..Default::default()
    })
    .unwrap();
    let mut cfg = PipelineConfig::new(EngineConfig::fixed(20_000.0, 0.0));
    cfg.partitions = 2;
    cfg.parallelism = 3;
    cfg.checkpoint_every = Some(10_000.0);
    let mut p = Pipeline::new(&stream, cfg).unwrap();
    p.schedule_crash(45_000.0, CrashTarget::Operator(1))
        .unwrap();
    p.run_to_end();
    let c = &p.crashes()[0];
    assert_eq!(c.restored, Some(4));
    assert_eq!(c.restored_time, 40_000.0);
    let s = c.to_string();
    assert!(
        s.starts_with("operator 1 crashed at 45.0 s; restored checkpoint #4 (taken at 40.0 s"),
        "{s}"
    );
    assert!(c.replayed > 0);
}

/// Memory follows the state, not the number of checkpoints: of thousands of completed
/// checkpoints only the latest is held whole, and crashes still restore it exactly.
#[test]
fn only_the_latest_checkpoint_is_held_whole() {
    let stream = Stream::generate(&StreamParams {
        events: 3000,
        ..Default::default()
    })
    .unwrap();
    let mut cfg = PipelineConfig::new(EngineConfig::fixed(20_000.0, 0.0));
    cfg.partitions = 4;
    cfg.parallelism = 4;
    cfg.checkpoint_every = Some(100.0);
    let mut clean = Pipeline::new(&stream, cfg).unwrap();
    clean.run_to_end();
    let mut p = Pipeline::new(&stream, cfg).unwrap();
    for t in [150_000.0, 151_000.0, 330_000.0] {
        p.schedule_crash(t, CrashTarget::Job).unwrap();
    }
    let mut most = 0;
    while p.step().is_some() {
        most = most.max(p.snapshots_held());
    }
    assert!(p.checkpoints().len() > 1000, "{}", p.checkpoints().len());
    assert!(most <= 1, "{most} checkpoints held whole");
    let ids: Vec<Option<u32>> = p.crashes().iter().map(|c| c.restored).collect();
    assert!(ids.iter().all(Option::is_some), "{ids:?}");
    assert_eq!(p.finals(), clean.finals());
    for kind in [SinkKind::Idempotent, SinkKind::Transactional] {
        assert_eq!(p.sink_output(kind), clean.sink_output(kind), "{kind}");
    }
}

/// Driven by source offsets at width one with instant channels, the pipeline takes each step
/// of the reference's schedule where a single processor reading the stream in order would:
/// each crash replays the events since its checkpoint, the additive sink receives again the
/// panes the processor emits for them, and the other sinks and the finals equal a clean run.
#[test]
fn a_schedule_by_offsets_replays_what_the_processor_emitted() {
    let stream = Stream::generate(&StreamParams {
        events: 3000,
        ..Default::default()
    })
    .unwrap();
    let engine = EngineConfig::fixed(5_000.0, 10_000.0);
    let cfg = PipelineConfig {
        transit: 0.0,
        ..PipelineConfig::new(engine)
    };
    let mut clean = Pipeline::new(&stream, cfg).unwrap();
    clean.run_to_end();
    let mut p = Pipeline::new(&stream, cfg).unwrap();
    let schedule = crate::checkpoint::ScheduleStep::reference_schedule(stream.len());
    p.run_schedule(&schedule);
    let at: Vec<(usize, usize)> = p
        .crashes()
        .iter()
        .map(|c| (c.restored_offset(), c.offset()))
        .collect();
    assert_eq!(
        at,
        vec![
            (500, 1300),
            (1000, 1800),
            (1500, 2300),
            (2000, 2800),
            (2500, 3000)
        ]
    );
    assert_eq!(p.finals(), clean.finals());
    assert_eq!(p.finals(), &Processor::run(&stream, engine, false).finals);
    for kind in [SinkKind::Idempotent, SinkKind::Transactional] {
        assert_eq!(p.sink_output(kind), clean.sink_output(kind), "{kind}");
    }
    let mut processor = crate::processor::Processor::for_stream(engine, &stream);
    let mut out = Output::default();
    let mut emitted = Vec::new();
    for e in &stream.events {
        processor.step(e, &mut out);
        emitted.push(std::mem::take(&mut out.panes));
        out.clear();
    }
    let mut expect = clean.sink_output(SinkKind::Additive);
    for &(from, to) in &at {
        for pane in emitted[from..to].iter().flatten() {
            *expect.entry(pane.cell).or_insert(0) += pane.value;
        }
    }
    assert_eq!(p.sink_output(SinkKind::Additive), expect);
    assert_ne!(
        p.sink_output(SinkKind::Additive),
        clean.sink_output(SinkKind::Additive)
    );
}
