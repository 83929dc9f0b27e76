//! What the pipeline reports: what each step did ([`Step`], [`StepEvent`], [`Outcome`]) and
//! the read-only picture of the simulation for drawing ([`Topology`] and its views).

use super::addressing::Addressing;
use crate::channel::{MessageKind, Node};
use crate::checkpoint::SinkKind;
use crate::lateness::Fate;
use crate::processor::Counters;
use crate::stream::KeyId;
use crate::window::CellId;

/// What a delivery did at its receiver.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outcome {
    /// An operator placed a record in its windows.
    Record {
        /// The event's index in the whole stream (processing order): the same in every
        /// partition and every replay.
        stream_offset: usize,
        /// Its worst fate over its windows, under the operator's watermark after it.
        fate: Fate,
        /// The operator's watermark it was placed under (after taking it in).
        watermark: f64,
        /// The source had emitted it before, in a timeline a crash undid.
        replayed: bool,
        /// Panes the arrival emitted.
        panes: usize,
    },
    /// An operator took a watermark in; its own watermark is now this.
    Watermark {
        /// The operator's watermark after it: the smallest of its live inputs', held
        /// monotone; event time, ms.
        watermark: f64,
    },
    /// An input went idle and the operator left it out of its watermark, now this.
    InputIdle {
        /// The operator's watermark after leaving the idle input out; event time, ms.
        watermark: f64,
    },
    /// A barrier arrived: the receiver waits for it on `waiting` more inputs.
    Aligning {
        /// The checkpoint whose barrier arrived.
        checkpoint: u32,
        /// Live inputs that have not delivered that barrier yet.
        waiting: usize,
    },
    /// The last barrier arrived: the operator snapshotted and forwarded the barrier.
    Snapshot {
        /// The checkpoint it snapshotted for.
        checkpoint: u32,
        /// Estimated bytes of the operator's snapshot.
        bytes: usize,
    },
    /// The checkpoint is complete: the sink had the barrier from every operator (unaligned: and
    /// this delivery was the last operator's, after which it had stored its in-flight data).
    CheckpointCompleted {
        /// The checkpoint that completed (older pending ones completed before it).
        checkpoint: u32,
    },
    /// The sink applied a pane.
    Pane {
        /// The (window, key) cell that answered.
        cell: CellId,
        /// What the pane carries under the accumulation mode: events counted, in all or
        /// since the previous pane.
        value: i64,
    },
    /// The sink took a final value.
    Final {
        /// The (window, key) cell whose window an operator finalised.
        cell: CellId,
        /// Events the cell counted, for good.
        value: u64,
    },
    /// One input ended; others have not.
    InputEnded,
    /// The receiver's last input ended: it flushed everything and is done.
    Finished,
}

/// What one step of the simulation did.
#[derive(Debug, Clone, PartialEq)]
pub enum StepEvent {
    /// Barriers were injected at every live source.
    CheckpointTriggered {
        /// The new checkpoint's id: 1 for the first, growing across crashes.
        checkpoint: u32,
    },
    /// A source emitted a record towards an operator.
    Emitted {
        /// The source partition that emitted it.
        partition: usize,
        /// Its position in the partition: events the partition had emitted before it.
        offset: usize,
        /// Its index in the whole stream (processing order).
        stream_offset: usize,
        /// The operator instance that owns its key, where the record goes.
        operator: usize,
        /// The partition had emitted it before, in a timeline a crash undid.
        replayed: bool,
    },
    /// A source partition ran out of events.
    PartitionEnded {
        /// The partition that ended; its end of input went to every operator instance.
        partition: usize,
    },
    /// A source partition had emitted nothing for the idle timeout and marked itself idle.
    PartitionIdle {
        /// The partition that went idle; its idle mark went to every operator instance.
        partition: usize,
    },
    /// A channel delivered its head.
    Delivered {
        /// The channel's number: source → operator channels `p·N + i`, then operator → sink.
        channel: usize,
        /// The receiver: an operator instance or the sink.
        to: Node,
        /// What the message was: record, watermark, barrier, pane, final value or end.
        kind: MessageKind,
        /// What the receiver did with it.
        outcome: Outcome,
    },
    /// A scheduled crash happened (its record is the last of [`Pipeline::crashes`](super::Pipeline::crashes)).
    Crashed,
}

/// One step: when, and what.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// Processing time of the step, ms: the clock then (a crash's own time, before the clock
    /// goes back to the restored checkpoint's).
    pub time: f64,
    /// What happened.
    pub event: StepEvent,
}

/// A source partition, for drawing.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceView {
    /// Its number, 0 to P − 1: it reads the stream's events `i` with `i mod P` equal to it.
    pub partition: usize,
    /// Events of the partition emitted so far in the current timeline: where it resumes.
    pub offset: usize,
    /// Events in the partition, in all.
    pub len: usize,
    /// It has sent its end of input on every channel.
    pub ended: bool,
    /// The partition's watermark now: event time, ms (−∞ before its first event).
    pub watermark: f64,
    /// Processing time it emits its next event at, ms (`None` once it has emitted its last).
    pub next_event_time: Option<f64>,
    /// When the next periodic barrier is due (while the source is live).
    pub next_barrier: Option<f64>,
    /// It is re-emitting events it had emitted before a crash.
    pub replaying: bool,
    /// It is in an outage: it delivers nothing until the heal.
    pub out: bool,
    /// It has marked itself idle and not emitted since.
    pub idle: bool,
}

/// A barrier in a channel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BarrierInFlight {
    /// The checkpoint it belongs to.
    pub checkpoint: u32,
    /// Messages ahead of it (0: at the head).
    pub position: usize,
    /// Processing time it reaches the receiver, ms.
    pub arrival: f64,
}

/// A channel, for drawing.
#[derive(Debug, Clone, PartialEq)]
pub struct ChannelView {
    /// Its number: source → operator channels `p·N + i`, then operator → sink `P·N + i`.
    pub index: usize,
    /// The sending node.
    pub from: Node,
    /// The receiving node.
    pub to: Node,
    /// Messages in flight now, of every kind.
    pub len: usize,
    /// Records in flight now.
    pub records: usize,
    /// Watermark messages in flight now (not those a record carries).
    pub watermarks: usize,
    /// Panes and final values in flight now (operator → sink channels).
    pub panes: usize,
    /// Idle marks in flight.
    pub idle: usize,
    /// Barriers in flight now, head first.
    pub barriers: Vec<BarrierInFlight>,
    /// The receiver is aligning and holds this input back.
    pub blocked: bool,
    /// Messages its receiver has taken off so far, replays included (a crash does not reset it).
    pub delivered: u64,
}

/// An operator instance, for drawing.
#[derive(Debug, Clone, PartialEq)]
pub struct OperatorView {
    /// Its number, 0 to N − 1.
    pub instance: usize,
    /// The keys it owns, by id, ascending.
    pub keys: Vec<KeyId>,
    /// Its watermark now: the smallest of its live inputs', held monotone; event time, ms.
    pub watermark: f64,
    /// The latest watermark received on each input (input `p` from partition `p`).
    pub input_watermarks: Vec<f64>,
    /// Inputs idle, left out of its watermark.
    pub idle_inputs: Vec<usize>,
    /// Inputs active again but behind its watermark, left out until they reach it.
    pub behind_inputs: Vec<usize>,
    /// Inputs that have ended (they count as +∞).
    pub ended_inputs: Vec<usize>,
    /// The latest processing time it has seen (its latest delivery's arrival), ms.
    pub clock: f64,
    /// The checkpoint it is aligning on, the inputs that delivered its barrier, and since when.
    pub aligning: Option<(u32, Vec<usize>, f64)>,
    /// The inputs (source partitions) it holds back until a barrier has come on every input
    /// (exactly-once mode only).
    pub blocked_inputs: Vec<usize>,
    /// The latest checkpoint it snapshotted for, in the current timeline (`None`: none yet).
    pub last_snapshot: Option<u32>,
    /// Every input has ended: it fired and finalised every window and sent its end of input
    /// to the sink.
    pub finished: bool,
    /// (window, key) cells open in its windows now.
    pub open_cells: usize,
    /// Estimated bytes of its state now: what its snapshot would copy.
    pub state_bytes: usize,
    /// Its running totals so far (they roll back with a crash).
    pub counters: Counters,
}

/// One sink's totals.
#[derive(Debug, Clone, PartialEq)]
pub struct SinkTotal {
    /// Which sink: additive, idempotent or transactional.
    pub kind: SinkKind,
    /// Σ of the values it holds.
    pub total: i64,
    /// (window, key) cells it holds a value for.
    pub cells: usize,
    /// Panes staged, not yet committed (transactional).
    pub staged: usize,
}

/// The sink, for drawing.
#[derive(Debug, Clone, PartialEq)]
pub struct SinkView {
    /// Each sink's totals now: additive, idempotent, transactional.
    pub totals: Vec<SinkTotal>,
    /// Panes received so far, replays included (a crash does not reset it).
    pub received: u64,
    /// The oldest checkpoint it is aligning on, and the operator instances whose barrier for
    /// it has arrived.
    pub aligning: Option<(u32, Vec<usize>)>,
    /// The inputs (operator instances) it holds back until a barrier has come on every input
    /// (exactly-once mode only).
    pub blocked_inputs: Vec<usize>,
    /// Panes applied since the latest completed checkpoint's cut: what a crash now would make
    /// the sinks receive again.
    pub since_checkpoint: usize,
    /// It has had the end of input from every operator instance: the job is done.
    pub finished: bool,
}

/// The whole simulation at one moment, read-only.
#[derive(Debug, Clone, PartialEq)]
pub struct Topology {
    /// The simulation's processing-time clock, ms.
    pub now: f64,
    /// Every source partition, by number.
    pub sources: Vec<SourceView>,
    /// Every channel, by number.
    pub channels: Vec<ChannelView>,
    /// Every operator instance, by number.
    pub operators: Vec<OperatorView>,
    /// The one sink.
    pub sink: SinkView,
    /// Checkpoints whose barriers are still travelling, oldest first.
    pub pending_checkpoints: Vec<u32>,
    /// The latest completed checkpoint's id (`None`: none has completed).
    pub last_completed: Option<u32>,
}

impl Topology {
    fn addressing(&self) -> Addressing {
        Addressing::new(self.sources.len(), self.operators.len())
    }

    /// The channel from source partition `p` to operator instance `i`.
    pub fn source_to_operator(&self, p: usize, i: usize) -> Option<&ChannelView> {
        if p >= self.sources.len() || i >= self.operators.len() {
            return None;
        }
        self.channels
            .get(self.addressing().source_to_operator(p, i))
    }

    /// The channel from operator instance `i` to the sink.
    pub fn operator_to_sink(&self, i: usize) -> Option<&ChannelView> {
        if i >= self.operators.len() {
            return None;
        }
        self.channels.get(self.addressing().operator_to_sink(i))
    }
}
