//! Checkpoints of the pipeline: injecting barriers, the checkpoints in progress, their
//! completion (the transactional sink commits) and the completed checkpoints' records and the
//! one restore point held whole.

use super::super::channel::InFlight;
use super::audit::Audit;
use super::nodes::{OperatorSnapshot, SinkState, SourceSnapshot};

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
