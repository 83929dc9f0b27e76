//! What each step of the pipeline did: the [`Step`] log, each step's [`StepEvent`] and
//! what a delivery came to ([`Outcome`]).

use crate::channel::{MessageKind, Node};
use crate::lateness::Fate;
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
    /// A scheduled crash happened (its record is the last of
    /// [`Pipeline::crashes`](super::Pipeline::crashes)).
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
