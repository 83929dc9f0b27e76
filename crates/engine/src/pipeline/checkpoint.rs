//! Checkpoints of the pipeline: injecting barriers, the checkpoints in progress, their
//! completion (the transactional sink commits) and the completed checkpoints' records and the
//! one restore point held whole; unaligned checkpoints' in-flight data, held once for all the
//! checkpoints that store it ([`InFlightLog`]).

use std::collections::{BTreeMap, VecDeque};
use std::ops::Range;

use super::audit::Audit;
use super::nodes::{OperatorSnapshot, SinkState, SourceSnapshot};
use crate::channel::InFlight;

#[derive(Debug, Clone)]
pub(super) struct PendingCheckpoint {
    pub(super) id: u32,
    pub(super) time: f64,
    pub(super) next_tick: f64,
    pub(super) sources: Vec<SourceSnapshot>,
    pub(super) operators: Vec<Option<OperatorSnapshot>>,
    pub(super) alignment: Vec<f64>,
    /// Unaligned: per channel, the messages its receiver took from its first barrier of this
    /// checkpoint until the barrier came on that channel, as numbers in the [`InFlightLog`]
    /// (the end is `None` until the barrier comes).
    pub(super) channel_state: BTreeMap<usize, (usize, Option<usize>)>,
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
    /// Unaligned: per channel, the in-flight messages stored, as numbers in the
    /// [`InFlightLog`].
    pub(super) channel_state: BTreeMap<usize, Range<usize>>,
    pub(super) sources: Vec<SourceSnapshot>,
    pub(super) operators: Vec<OperatorSnapshot>,
    pub(super) sink: SinkState,
}

impl RestorePoint {
    pub(super) fn offsets(&self) -> Vec<usize> {
        self.sources.iter().map(|s| s.source.offset).collect()
    }
}

impl RestorePoint {
    /// In-flight messages stored with it.
    pub(super) fn in_flight(&self) -> usize {
        self.channel_state.values().map(|r| r.len()).sum()
    }
}

/// Unaligned checkpoints' in-flight data: per channel, the messages its receiver took while
/// some checkpoint aligning there had not had its barrier on that channel, in order and
/// numbered from the channel's first. A checkpoint keeps per channel a range of numbers, so a
/// message stored with many checkpoints in progress (a long transit and a short interval
/// keep thousands in progress) is held once, and storing it costs one push whatever their
/// number. Messages no checkpoint in progress nor the restore point refers to are let go.
#[derive(Debug, Clone, Default)]
pub(super) struct InFlightLog {
    channels: Vec<ChannelLog>,
}

#[derive(Debug, Clone, Default)]
struct ChannelLog {
    /// The number of the first message held.
    first: usize,
    taken: VecDeque<InFlight>,
}

impl InFlightLog {
    /// An empty log over `channels` channels.
    pub(super) fn new(channels: usize) -> Self {
        InFlightLog {
            channels: vec![ChannelLog::default(); channels],
        }
    }

    /// The number the next message taken from channel `c` gets.
    pub(super) fn next(&self, c: usize) -> usize {
        let ch = &self.channels[c];
        ch.first + ch.taken.len()
    }

    /// Keeps message `m`, taken from channel `c`.
    pub(super) fn push(&mut self, c: usize, m: InFlight) {
        self.channels[c].taken.push_back(m);
    }

    /// The messages numbered `r` on channel `c`, in order.
    pub(super) fn range(&self, c: usize, r: Range<usize>) -> impl Iterator<Item = &InFlight> {
        let ch = &self.channels[c];
        let from = r.start.saturating_sub(ch.first);
        let to = r.end.saturating_sub(ch.first);
        ch.taken.range(from.min(to)..to.min(ch.taken.len()))
    }

    /// Lets go of channel `c`'s messages numbered below `n`.
    pub(super) fn release_before(&mut self, c: usize, n: usize) {
        let ch = &mut self.channels[c];
        let drop = n.saturating_sub(ch.first).min(ch.taken.len());
        ch.taken.drain(..drop);
        ch.first += drop;
    }

    /// How many channels it has.
    pub(super) fn channels(&self) -> usize {
        self.channels.len()
    }
}
