//! The read-only picture of the pipeline for drawing: the [`Topology`] and the views of its
//! sources, channels, operators and sink, which `topology.rs` builds from the pipeline's state.

use super::addressing::Addressing;
use crate::channel::Node;
use crate::checkpoint::SinkKind;
use crate::processor::Counters;
use crate::stream::KeyId;

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
