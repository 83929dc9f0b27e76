//! Checkpoints of the pipeline: injecting barriers, the checkpoints in progress, their
//! completion (the transactional sink commits) and the completed checkpoints' records and the
//! one restore point held whole.

use std::borrow::Borrow;

use super::super::channel::{InFlight, Message};
use super::super::stream::Stream;
use super::super::trigger::Pane;
use super::addressing::full;
use super::audit::Audit;
use super::operator::OperatorSnapshot;
use super::sink::SinkState;
use super::source::SourceSnapshot;
use super::trace::Outcome;
use super::Pipeline;

#[derive(Debug, Clone)]
pub(super) struct PendingCheckpoint {
    pub(super) id: u32,
    pub(super) time: f64,
    pub(super) next_tick: f64,
    pub(super) sources: Vec<SourceSnapshot>,
    pub(super) operators: Vec<Option<OperatorSnapshot>>,
    pub(super) alignment: Vec<f64>,
    /// Unaligned: messages the receivers took before the barrier came on their input.
    pub(super) channel_state: Vec<(usize, InFlight)>,
    /// The sink's state at the cut (unaligned: its first barrier; aligned: its last), and
    /// where its applied panes then stood.
    pub(super) sink: Option<(SinkState, usize)>,
    /// The sink has the barrier from every live operator.
    pub(super) sink_done: bool,
    /// Operators that have snapshotted and stored their in-flight data.
    pub(super) acked: u64,
}

/// A completed checkpoint, as its record: when it was taken and completed, its source offsets
/// and what it cost. The state it holds is kept apart, for the latest one only
/// (`RestorePoint`).
#[derive(Debug, Clone)]
pub struct CompletedCheckpoint {
    /// 1 for the first checkpoint; ids keep growing across crashes.
    pub id: u32,
    /// Processing time its barriers were injected at.
    pub time: f64,
    /// Processing time the sink had its barrier from every operator.
    pub completed_at: f64,
    /// Per source partition, the events emitted before the barrier.
    pub offsets: Vec<usize>,
    /// Estimated bytes copied: operator states, source positions, the sink's pending panes.
    pub bytes: usize,
    /// Panes the transactional sink had staged and committed on completion.
    pub sink_pending: usize,
    /// Per operator, how long it aligned: from its first barrier to its snapshot, ms.
    pub alignment: Vec<f64>,
    /// Unaligned: in-flight messages stored with the checkpoint.
    pub in_flight: usize,
    /// Audit runs: how exactly its cut held every record, measured when it completed.
    pub(super) audit: Option<Audit>,
}

impl CompletedCheckpoint {
    /// Events the sources had emitted before the barrier.
    pub fn events(&self) -> usize {
        self.offsets.iter().sum()
    }
}

/// What a crash restores: the latest completed checkpoint's whole state (or the start's), the
/// source offsets, every operator's state, the sink's bookkeeping and, unaligned, the stored
/// in-flight data.
#[derive(Debug, Clone)]
pub(super) struct RestorePoint {
    /// 0 for the start of the stream.
    pub(super) id: u32,
    pub(super) time: f64,
    pub(super) next_tick: f64,
    pub(super) channel_state: Vec<(usize, InFlight)>,
    pub(super) sources: Vec<SourceSnapshot>,
    pub(super) operators: Vec<OperatorSnapshot>,
    pub(super) sink: SinkState,
}

impl RestorePoint {
    pub(super) fn offsets(&self) -> Vec<usize> {
        self.sources.iter().map(|s| s.source.offset).collect()
    }
}

impl<S: Borrow<Stream>> Pipeline<S> {
    /// Injects a checkpoint's barriers at every live source now. `None` when every source has
    /// ended (nothing left to checkpoint).
    pub fn checkpoint_now(&mut self) -> Option<u32> {
        if self.sources.iter().all(|s| s.ended) {
            return None;
        }
        let id = self.next_id;
        self.next_id += 1;
        let nn = self.cfg.parallelism;
        let addressing = self.addressing();
        for p in 0..self.cfg.partitions {
            if self.sources[p].ended {
                continue;
            }
            for i in 0..nn {
                self.channels.send(
                    addressing.source_to_operator(p, i),
                    self.now,
                    Message::Barrier { checkpoint: id },
                );
            }
        }
        let sources = self.source_snapshots();
        self.pending.push(PendingCheckpoint {
            id,
            time: self.now,
            next_tick: self.next_tick,
            sources,
            operators: vec![None; nn],
            alignment: vec![0.0; nn],
            channel_state: Vec::new(),
            sink: None,
            sink_done: false,
            acked: 0,
        });
        Some(id)
    }

    /// Completes, in order, the checkpoints done at the sink and acknowledged by every operator.
    pub(super) fn complete_ready(&mut self) -> Option<Outcome> {
        let nn = self.cfg.parallelism;
        let mut done = None;
        while let Some(pc) = self.pending.first() {
            if !pc.sink_done || pc.acked & full(nn) != full(nn) {
                break;
            }
            let pc = self.pending.remove(0);
            let k = pc.id;
            let Some(operators) = pc.operators.into_iter().collect::<Option<Vec<_>>>() else {
                continue;
            };
            let Some((state, mark)) = pc.sink else {
                continue;
            };
            let sink = &mut self.sink;
            // What the sink took after the cut is delivered again on restore.
            let drop = mark
                .saturating_sub(sink.since_base)
                .min(sink.since_commit.len());
            sink.since_commit.drain(..drop);
            sink.since_base += drop;
            let mut staged = 0;
            for s in &mut sink.sinks {
                staged += s.commit_checkpoint(k);
            }
            sink.commit_outbox(k);
            let operator_bytes: usize = operators.iter().map(|s| s.operator.state_bytes()).sum();
            let source_bytes: usize = pc
                .sources
                .iter()
                .map(|s| 16 + s.source.sent_watermark.len() * 8)
                .sum();
            let bytes = operator_bytes
                + source_bytes
                + staged * Pane::CHECKPOINT_BYTES
                + pc.channel_state.len() * InFlight::CHECKPOINT_BYTES;
            let restore = RestorePoint {
                id: k,
                time: pc.time,
                next_tick: pc.next_tick,
                channel_state: pc.channel_state,
                sources: pc.sources,
                operators,
                sink: state,
            };
            let offsets = restore.offsets();
            let audit = self.audit_restore_point(&restore, &offsets);
            let in_flight = restore.channel_state.len();
            // The one a crash restores from now on: the previous one's state is freed.
            self.checkpoints.complete(
                CompletedCheckpoint {
                    id: k,
                    time: pc.time,
                    completed_at: self.now,
                    offsets,
                    bytes,
                    sink_pending: staged,
                    alignment: pc.alignment,
                    in_flight,
                    audit,
                },
                restore,
            );
            done = Some(Outcome::CheckpointCompleted { checkpoint: k });
        }
        done
    }
}
