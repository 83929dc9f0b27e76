//! What the pipeline reports: what each step did ([`Step`], [`StepEvent`], [`Outcome`]) and
//! the read-only picture of the simulation for drawing ([`Topology`] and its views).

use std::borrow::Borrow;

use super::super::channel::{Message, MessageKind, Node};
use super::super::checkpoint::SinkKind;
use super::super::lateness::Fate;
use super::super::processor::Counters;
use super::super::stream::{KeyId, Stream};
use super::super::window::CellId;
use super::addressing::{bits, Addressing, Receiver};
use super::Pipeline;

/// What a delivery did at its receiver.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outcome {
    /// An operator placed a record in its windows.
    Record {
        stream_offset: usize,
        fate: Fate,
        /// The operator's watermark it was placed under (after taking it in).
        watermark: f64,
        replayed: bool,
        /// Panes the arrival emitted.
        panes: usize,
    },
    /// An operator took a watermark in; its own watermark is now this.
    Watermark { watermark: f64 },
    /// An input went idle and the operator left it out of its watermark, now this.
    InputIdle { watermark: f64 },
    /// A barrier arrived: the receiver waits for it on `waiting` more inputs.
    Aligning { checkpoint: u32, waiting: usize },
    /// The last barrier arrived: the operator snapshotted and forwarded the barrier.
    Snapshot { checkpoint: u32, bytes: usize },
    /// The checkpoint is complete: the sink had the barrier from every operator (unaligned: and
    /// this delivery was the last operator's, after which it had stored its in-flight data).
    CheckpointCompleted { checkpoint: u32 },
    /// The sink applied a pane.
    Pane { cell: CellId, value: i64 },
    /// The sink took a final value.
    Final { cell: CellId, value: u64 },
    /// One input ended; others have not.
    InputEnded,
    /// The receiver's last input ended: it flushed everything and is done.
    Finished,
}

/// What one step of the simulation did.
#[derive(Debug, Clone, PartialEq)]
pub enum StepEvent {
    /// Barriers were injected at every live source.
    CheckpointTriggered { checkpoint: u32 },
    /// A source emitted a record towards an operator.
    Emitted {
        partition: usize,
        offset: usize,
        stream_offset: usize,
        operator: usize,
        replayed: bool,
    },
    /// A source partition ran out of events.
    PartitionEnded { partition: usize },
    /// A source partition had emitted nothing for the idle timeout and marked itself idle.
    PartitionIdle { partition: usize },
    /// A channel delivered its head.
    Delivered {
        channel: usize,
        to: Node,
        kind: MessageKind,
        outcome: Outcome,
    },
    /// A scheduled crash happened (its record is the last of [`Pipeline::crashes`]).
    Crashed,
}

/// One step: when, and what.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub time: f64,
    pub event: StepEvent,
}

/// A source partition, for drawing.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceView {
    pub partition: usize,
    pub offset: usize,
    pub len: usize,
    pub ended: bool,
    pub watermark: f64,
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
    pub checkpoint: u32,
    /// Messages ahead of it (0: at the head).
    pub position: usize,
    pub arrival: f64,
}

/// A channel, for drawing.
#[derive(Debug, Clone, PartialEq)]
pub struct ChannelView {
    pub index: usize,
    pub from: Node,
    pub to: Node,
    pub len: usize,
    pub records: usize,
    pub watermarks: usize,
    pub panes: usize,
    /// Idle marks in flight.
    pub idle: usize,
    pub barriers: Vec<BarrierInFlight>,
    /// The receiver is aligning and holds this input back.
    pub blocked: bool,
    pub delivered: u64,
}

/// An operator instance, for drawing.
#[derive(Debug, Clone, PartialEq)]
pub struct OperatorView {
    pub instance: usize,
    pub keys: Vec<KeyId>,
    pub watermark: f64,
    /// The latest watermark received on each input (input `p` from partition `p`).
    pub input_watermarks: Vec<f64>,
    /// Inputs idle, left out of its watermark.
    pub idle_inputs: Vec<usize>,
    /// Inputs active again but behind its watermark, left out until they reach it.
    pub behind_inputs: Vec<usize>,
    /// Inputs that have ended (they count as +∞).
    pub ended_inputs: Vec<usize>,
    pub clock: f64,
    /// The checkpoint it is aligning on, the inputs that delivered its barrier, and since when.
    pub aligning: Option<(u32, Vec<usize>, f64)>,
    pub blocked_inputs: Vec<usize>,
    pub last_snapshot: Option<u32>,
    pub finished: bool,
    pub open_cells: usize,
    pub state_bytes: usize,
    pub counters: Counters,
}

/// One sink's totals.
#[derive(Debug, Clone, PartialEq)]
pub struct SinkTotal {
    pub kind: SinkKind,
    /// Σ of the values it holds.
    pub total: i64,
    pub cells: usize,
    /// Panes staged, not yet committed (transactional).
    pub staged: usize,
}

/// The sink, for drawing.
#[derive(Debug, Clone, PartialEq)]
pub struct SinkView {
    pub totals: Vec<SinkTotal>,
    pub received: u64,
    pub aligning: Option<(u32, Vec<usize>)>,
    pub blocked_inputs: Vec<usize>,
    pub since_checkpoint: usize,
    pub finished: bool,
}

/// The whole simulation at one moment, read-only.
#[derive(Debug, Clone, PartialEq)]
pub struct Topology {
    pub now: f64,
    pub sources: Vec<SourceView>,
    pub channels: Vec<ChannelView>,
    pub operators: Vec<OperatorView>,
    pub sink: SinkView,
    pub pending_checkpoints: Vec<u32>,
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

impl<S: Borrow<Stream>> Pipeline<S> {
    /// The simulation now, for drawing.
    pub fn topology(&self) -> Topology {
        Topology {
            now: self.now,
            sources: self.source_views(),
            channels: self.channel_views(),
            operators: self.operator_views(),
            sink: self.sink_view(),
            pending_checkpoints: self.pending_checkpoints(),
            last_completed: self.checkpoints.last().map(|c| c.id),
        }
    }

    pub fn source_views(&self) -> Vec<SourceView> {
        let stream: &Stream = self.stream.borrow();
        self.sources
            .iter()
            .enumerate()
            .map(|(p, s)| SourceView {
                partition: p,
                offset: s.offset,
                len: self.partitions[p].len(),
                ended: s.ended,
                watermark: s.watermark.current(),
                next_event_time: self.partitions[p]
                    .get(s.offset)
                    .map(|&i| stream.events[i as usize].proc_time),
                next_barrier: (!s.ended && self.next_tick.is_finite()).then_some(self.next_tick),
                replaying: s.offset < self.high_water[p],
                out: !s.ended && self.outages.due(p, self.now) > self.now,
                idle: s.idle_since.is_some(),
            })
            .collect()
    }

    pub fn channel_views(&self) -> Vec<ChannelView> {
        let addressing = self.addressing();
        self.channels
            .iter()
            .enumerate()
            .map(|(index, ch)| {
                let (mut records, mut watermarks, mut panes, mut idle) = (0, 0, 0, 0);
                let mut barriers = Vec::new();
                for (position, m) in ch.in_flight().enumerate() {
                    match m.message {
                        Message::Record { .. } => records += 1,
                        Message::Watermark { .. } => watermarks += 1,
                        Message::Pane(_) | Message::Final(_) => panes += 1,
                        Message::Barrier { checkpoint } => barriers.push(BarrierInFlight {
                            checkpoint,
                            position,
                            arrival: m.arrival,
                        }),
                        Message::Idle => idle += 1,
                        Message::End => {}
                    }
                }
                let blocked = match addressing.receiver_of(index) {
                    (Receiver::Operator(i), p) => self.operators[i].alignment.is_blocked(p),
                    (Receiver::Sink, i) => self.sink.state.alignment.is_blocked(i),
                };
                ChannelView {
                    index,
                    from: ch.from(),
                    to: ch.to(),
                    len: ch.len(),
                    records,
                    watermarks,
                    panes,
                    idle,
                    barriers,
                    blocked,
                    delivered: ch.delivered(),
                }
            })
            .collect()
    }

    pub fn operator_views(&self) -> Vec<OperatorView> {
        self.operators
            .iter()
            .enumerate()
            .map(|(instance, op)| OperatorView {
                instance,
                keys: (0..self.route.len())
                    .filter(|&k| self.route[k] == instance)
                    .map(|k| k as KeyId)
                    .collect(),
                watermark: op.processor.watermark(),
                input_watermarks: op.input_watermark.clone(),
                idle_inputs: bits(op.idle),
                behind_inputs: bits(op.behind),
                ended_inputs: bits(op.alignment.ended()),
                clock: op.clock,
                aligning: op
                    .alignment
                    .current()
                    .map(|(k, mask)| (k, bits(mask), op.aligning_since)),
                blocked_inputs: bits(op.alignment.blocked()),
                last_snapshot: op.last_snapshot,
                finished: op.finished,
                open_cells: op.processor.open_cells(),
                state_bytes: op.state_bytes(),
                counters: *op.processor.counters(),
            })
            .collect()
    }

    pub fn sink_view(&self) -> SinkView {
        let st = &self.sink.state;
        SinkView {
            totals: self
                .sink
                .sinks
                .iter()
                .map(|s| {
                    let out = s.output();
                    SinkTotal {
                        kind: s.kind(),
                        total: out.values().sum(),
                        cells: out.len(),
                        staged: s.staged(),
                    }
                })
                .collect(),
            received: self.sink.received,
            aligning: st.alignment.current().map(|(k, mask)| (k, bits(mask))),
            blocked_inputs: bits(st.alignment.blocked()),
            since_checkpoint: self.sink.since_commit.len(),
            finished: st.finished,
        }
    }
}
