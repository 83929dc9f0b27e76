//! The pipeline seen one step at a time, as a topology panel would draw it: barriers travel in
//! the channels at known positions, an aligning operator holds back exactly the inputs that
//! delivered the barrier, snapshots precede completion, a crash rolls the counters back and the
//! replayed records are flagged as they are emitted a second time.

use twoclocks::engine::pipeline::{
    CrashTarget, Outcome, Pipeline, PipelineConfig, StepEvent, Topology,
};
use twoclocks::engine::pipeline::{MessageKind, Node};
use twoclocks::engine::EngineConfig;
use twoclocks::engine::{Stream, StreamParams};

fn pipeline_config() -> PipelineConfig {
    PipelineConfig {
        partitions: 3,
        parallelism: 2,
        checkpoint_every: Some(10_000.0),
        transit: 500.0,
        ..PipelineConfig::new(EngineConfig::fixed(20_000.0, 0.0))
    }
}

fn stream() -> Stream {
    Stream::generate(&StreamParams {
        events: 3000,
        span: 120_000.0,
        ..Default::default()
    })
    .unwrap()
}

#[test]
fn the_topology_shows_barriers_in_flight_and_alignment() {
    let stream = stream();
    let mut p = Pipeline::new(&stream, pipeline_config()).unwrap();
    let t = p.topology();
    assert_eq!(t.sources.len(), 3);
    assert_eq!(t.operators.len(), 2);
    assert_eq!(t.channels.len(), 3 * 2 + 2);
    assert_eq!(t.sources[0].next_barrier, Some(10_000.0));
    let mut saw_barrier = false;
    let mut saw_blocked = false;
    let mut snapshots = Vec::new();
    while let Some(step) = p.step() {
        let t: Topology = p.topology();
        for ch in &t.channels {
            for b in &ch.barriers {
                saw_barrier = true;
                assert!(b.position < ch.len);
                assert!(t.pending_checkpoints.contains(&b.checkpoint));
            }
        }
        for op in &t.operators {
            if let Some((k, arrived, _)) = &op.aligning {
                assert!(t.pending_checkpoints.contains(k));
                // Exactly-once mode holds back the inputs whose barrier has arrived.
                assert_eq!(&op.blocked_inputs, arrived);
                for &input in arrived {
                    let ch = &t.channels[input * 2 + op.instance];
                    assert!(ch.blocked);
                    saw_blocked = true;
                }
            }
        }
        if let StepEvent::Delivered { to, outcome, .. } = step.event {
            match outcome {
                Outcome::Snapshot { checkpoint, bytes } => {
                    assert!(matches!(to, Node::Operator(_)));
                    assert!(bytes > 0);
                    snapshots.push(checkpoint);
                }
                Outcome::CheckpointCompleted { checkpoint } => {
                    assert_eq!(to, Node::Sink);
                    // Both operators snapshotted before the sink could complete it.
                    assert_eq!(snapshots.iter().filter(|&&k| k == checkpoint).count(), 2);
                    assert_eq!(t.last_completed, Some(checkpoint));
                }
                _ => {}
            }
        }
        if p.checkpoints().len() >= 3 {
            break;
        }
    }
    assert!(saw_barrier && saw_blocked);
    let ck = p.last_completed().unwrap();
    assert_eq!(ck.id, 3);
    assert_eq!(ck.time, 30_000.0);
    assert_eq!(ck.offsets.len(), 3);
    assert!(ck.completed_at > ck.time);
}

#[test]
fn a_crash_rolls_back_and_the_replay_is_flagged() {
    let stream = stream();
    let mut p = Pipeline::new(&stream, pipeline_config()).unwrap();
    while p.now() < 55_000.0 {
        p.step().unwrap();
    }
    let before = p.counters().events;
    let crash = p.crash_now(CrashTarget::Operator(1)).unwrap().clone();
    assert_eq!(crash.restored, Some(5));
    assert_eq!(p.now(), 50_000.0);
    assert!(p.counters().events < before);
    assert_eq!(p.emitted(), crash.offsets.iter().sum::<usize>());
    let msg = crash.to_string();
    assert!(
        msg.starts_with("operator 1 crashed at 55.0 s; restored checkpoint #5 (taken at 50.0 s, source offsets "),
        "{msg}"
    );
    assert!(msg.ends_with(&format!("replaying {} events", crash.replayed)));
    assert!(p.is_replaying());
    assert!(p.topology().channels.iter().all(|c| c.len == 0));
    let (mut replayed, mut redelivered) = (0, 0);
    while let Some(step) = p.step() {
        match step.event {
            StepEvent::Emitted { replayed: true, .. } => replayed += 1,
            StepEvent::Delivered {
                kind: MessageKind::Record,
                outcome: Outcome::Record { replayed: true, .. },
                ..
            } => redelivered += 1,
            _ => {}
        }
    }
    assert_eq!(redelivered, crash.replayed);
    assert_eq!(replayed, crash.replayed);
    assert!(!p.is_replaying());
    assert!(p.is_finished());
    assert_eq!(p.counters().events as usize, stream.len());
    assert!(p.crash_now(CrashTarget::Job).is_none());
}

#[test]
fn frames_in_processing_time_reach_the_same_end() {
    let stream = stream();
    let mut whole = Pipeline::new(&stream, pipeline_config()).unwrap();
    whole.schedule_crash(61_000.0, CrashTarget::Job).unwrap();
    whole.run_to_end();
    let mut framed = Pipeline::new(&stream, pipeline_config()).unwrap();
    framed.schedule_crash(61_000.0, CrashTarget::Job).unwrap();
    let mut frame = 0.0;
    while framed.next_time().is_some() {
        frame += 1_000.0;
        framed.run_until(frame);
        assert!(!matches!(framed.next_time(), Some(t) if t <= frame));
    }
    assert_eq!(framed.steps(), whole.steps());
    assert_eq!(framed.crashes(), whole.crashes());
    assert_eq!(framed.finals(), whole.finals());
}

#[test]
fn the_jobs_window_values_roll_back_with_a_crash_and_end_at_the_clean_values() {
    use twoclocks::engine::CellId;
    let stream = stream();
    let mut p = Pipeline::new(&stream, pipeline_config()).unwrap();
    while p.now() < 55_000.0 {
        p.step().unwrap();
    }
    // Window 0 (0–60 s) is open at 55 s in every key's operator.
    let cells: Vec<CellId> = (0..stream.keys.len() as u32)
        .map(|key| CellId {
            window: pipeline_config().engine.window.at_index(0),
            key,
        })
        .collect();
    let before: Vec<u64> = cells.iter().map(|c| p.job_value(*c).unwrap_or(0)).collect();
    p.crash_now(CrashTarget::Job).unwrap();
    let after: Vec<u64> = cells.iter().map(|c| p.job_value(*c).unwrap_or(0)).collect();
    assert!(after.iter().zip(&before).all(|(a, b)| a <= b));
    assert!(after.iter().sum::<u64>() < before.iter().sum::<u64>());
    p.run_to_end();
    let mut clean = Pipeline::new(&stream, pipeline_config()).unwrap();
    clean.run_to_end();
    for c in &cells {
        assert_eq!(p.job_value(*c), clean.finals().get(c).copied());
    }
}

#[test]
fn an_idle_gap_in_the_input_takes_no_checkpoints() {
    use twoclocks::engine::Event;
    // Two bursts a year apart: checkpoints every 10 s must not fill the year in between.
    let year = 365.0 * 24.0 * 3_600_000.0;
    let events = (0..40)
        .map(|i| {
            let t = if i < 20 {
                i as f64 * 1_000.0
            } else {
                year + i as f64 * 1_000.0
            };
            Event {
                event_time: t,
                proc_time: t + 500.0,
                key: (i % 2) as u32,
            }
        })
        .collect();
    let stream = Stream::from_unordered(events, vec!["a".into(), "b".into()]);
    let mut p = Pipeline::new(&stream, pipeline_config()).unwrap();
    p.run_to_end();
    assert!(p.is_finished());
    assert!(
        p.checkpoints().len() < 20,
        "{} checkpoints",
        p.checkpoints().len()
    );
    assert_eq!(p.finals().values().sum::<u64>(), 40);
}
