//! Checkpoints across parallel operators: P source partitions → N keyed window operators → one
//! sink, joined by FIFO [`Channel`]s, simulated one delivery at a time.
//!
//! - **Partitioning.** Event `i` of the stream (processing order) goes to source partition
//!   `i mod P` (round-robin). A source emits its events at their processing times, each
//!   carrying the partition's watermark just after it; every `watermark_every` ms of processing
//!   time it also sends its watermark on the channels no record carried it on.
//! - **Keying.** A key goes to operator `fnv1a64(key name) mod N` ([`operator_for`]): stable
//!   across runs and platforms.
//! - **Schedule.** Each channel draws its messages' transit times from a generator seeded by
//!   the schedule seed and the channel's number, and keeps them FIFO. The simulation takes the
//!   earliest thing due (checkpoint trigger, source emission, operator or sink delivery; ties in
//!   that order, then by index); an operator or the sink takes, among its unblocked inputs, the
//!   head with the earliest arrival. Processing time is the simulation's clock.
//! - **Watermarks.** An operator's watermark is the smallest of its inputs' watermarks (an ended
//!   input counts as +∞), held monotone; it is given to [`Processor::step_with_watermark`].
//! - **Barriers.** Every `checkpoint_every` ms of processing time, and on demand, every live
//!   source snapshots its state (offset, watermark generator, channel links) and sends a barrier
//!   on each of its channels. Exactly-once mode aligns: an operator blocks each input that has
//!   delivered barrier `n` until all have, then snapshots and forwards the barrier. The sink
//!   aligns likewise; when it has barrier `n` from every operator the checkpoint is complete (it
//!   holds the source offsets, every operator's state and the sink's pending output) and the
//!   transactional sink commits. Unaligned mode does not block either: an operator snapshots
//!   at the first barrier and forwards it at once, and what its other inputs deliver before
//!   their barrier is stored with the checkpoint as in-flight data (delivered again on restore);
//!   the sink pre-commits its transaction at the first barrier, and the checkpoint completes
//!   when the sink has every barrier and every operator has stored its in-flight data.
//!   At-least-once mode does not block and stores nothing in flight: an operator snapshots when
//!   the last barrier arrives, so records a faster input delivered after its barrier are both in
//!   the snapshot and replayed.
//! - **Crash.** The whole job or one operator instance fails; either way every instance restarts
//!   from the last completed checkpoint (or the start): sources rewind to its offsets, channels
//!   lose what was in flight, the clock goes back to the checkpoint's time and the events
//!   replay. A source's records are a log: they keep their processing times, and the links keep
//!   their drawn transit times, so the replay takes the same course as the first time. The
//!   sinks are the outside world and are not rolled back: the additive sink counts the replayed
//!   panes again, the idempotent sink overwrites them, the transactional sink loses what it had
//!   staged and commits it again later.
//! - **Memory.** A crash only ever restores the latest completed checkpoint, so that one alone is
//!   held whole ([`Pipeline::snapshots_held`]); every earlier one is kept as its small
//!   [`CompletedCheckpoint`] record. Memory follows the state and the checkpoints in progress,
//!   not how many checkpoints were taken.
//!
//! Drawing it: [`Pipeline::step`] (or [`Pipeline::run_until`] a processing time) moves the
//! simulation on and says what happened ([`Step`], [`StepEvent`], [`Outcome`]);
//! [`Pipeline::topology`] is a read-only [`Topology`] of sources ([`SourceView`]: offset, next
//! barrier, replaying), channels ([`ChannelView`]: records, watermarks and panes in flight,
//! [`BarrierInFlight`] with their queue positions, blocked), operator instances
//! ([`OperatorView`]: aligning on which checkpoint, which inputs blocked, last snapshot) and the
//! sink ([`SinkView`]: the three sinks' totals); [`Pipeline::checkpoints`] and
//! [`Pipeline::crashes`] are the logs ([`CrashRecord`] displays as the sentence a screen shows).

use std::borrow::Borrow;
use std::collections::BTreeMap;
use std::fmt;

use super::channel::{Channel, Channels, InFlight, Link, Message, MessageKind, Node};
use super::checkpoint::{Sink, SinkKind};
use super::lateness::{Dropped, Fate};
use super::processor::{Counters, EngineConfig, Output, Processor};
use super::stream::{Event, KeyId, Stream};
use super::trigger::Pane;
use super::watermark::Watermark;
use super::window::{CellId, WindowId};

/// At most this many source partitions and operator instances.
pub const MAX_WIDTH: usize = 64;

/// Whether operators align barriers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CheckpointMode {
    /// Aligned barriers: each record is in a snapshot or replayed after it, never both.
    #[default]
    ExactlyOnce,
    /// Unaligned barriers: an operator snapshots at the first barrier and forwards it at once;
    /// what its other inputs deliver before their barrier is stored in the checkpoint as
    /// in-flight data and delivered again on restore. The sink pre-commits at the first barrier.
    Unaligned,
    /// Barriers are not aligned: faster inputs keep flowing, and what they deliver before the
    /// last barrier is in the snapshot and replayed too.
    AtLeastOnce,
}

impl CheckpointMode {
    pub fn name(&self) -> &'static str {
        match self {
            CheckpointMode::ExactlyOnce => "aligned",
            CheckpointMode::Unaligned => "unaligned",
            CheckpointMode::AtLeastOnce => "at-least-once",
        }
    }
}

/// The dials of a pipeline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PipelineConfig {
    pub engine: EngineConfig,
    /// Source partitions, P.
    pub partitions: usize,
    /// Operator instances, N.
    pub parallelism: usize,
    /// Checkpoint interval in processing time, ms (`None`: only on demand).
    pub checkpoint_every: Option<f64>,
    pub mode: CheckpointMode,
    /// Seed of the channels' transit times.
    pub seed: u64,
    /// Mean transit time of a channel, ms (0: instant, in order).
    pub transit: f64,
    /// How often a source sends its watermark on channels no record carried it on, ms.
    pub watermark_every: f64,
    /// Keep every pane the sink received and every dropped event (for output listings).
    pub keep_outputs: bool,
    /// Keep, in every operator's state, which records it has absorbed (for checking alignment).
    pub audit: bool,
}

impl PipelineConfig {
    /// One partition, one operator, no periodic checkpoint, 200 ms mean transit, seed 1.
    pub fn new(engine: EngineConfig) -> Self {
        PipelineConfig {
            engine,
            partitions: 1,
            parallelism: 1,
            checkpoint_every: None,
            mode: CheckpointMode::ExactlyOnce,
            seed: 1,
            transit: 200.0,
            watermark_every: 1_000.0,
            keep_outputs: false,
            audit: false,
        }
    }

    pub fn validate(&self) -> Result<(), PipelineError> {
        if !(1..=MAX_WIDTH).contains(&self.partitions) {
            return Err(PipelineError::Partitions(self.partitions));
        }
        if !(1..=MAX_WIDTH).contains(&self.parallelism) {
            return Err(PipelineError::Parallelism(self.parallelism));
        }
        if let Some(every) = self.checkpoint_every {
            if !every.is_finite() || every <= 0.0 {
                return Err(PipelineError::Interval(every));
            }
        }
        if !self.transit.is_finite() || self.transit < 0.0 {
            return Err(PipelineError::Transit(self.transit));
        }
        if !self.watermark_every.is_finite() || self.watermark_every <= 0.0 {
            return Err(PipelineError::WatermarkEvery(self.watermark_every));
        }
        Ok(())
    }
}

/// Why pipeline dials were refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PipelineError {
    #[error("--partitions must be between 1 and {MAX_WIDTH}, got {0}")]
    Partitions(usize),
    #[error("--parallelism must be between 1 and {MAX_WIDTH}, got {0}")]
    Parallelism(usize),
    #[error("--checkpoint-every must be a finite duration greater than 0, got {0} ms")]
    Interval(f64),
    #[error("--transit must be a finite duration ≥ 0, got {0} ms")]
    Transit(f64),
    #[error("the watermark interval must be a finite duration greater than 0, got {0} ms")]
    WatermarkEvery(f64),
    #[error("operator {0} does not exist (parallelism {1})")]
    NoSuchOperator(usize, usize),
}

/// FNV-1a, 64 bits, of a key's name: the same on every run and platform.
pub fn key_hash(name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The operator instance that owns a key.
pub fn operator_for(name: &str, parallelism: usize) -> usize {
    (key_hash(name) % parallelism.max(1) as u64) as usize
}

fn bit(i: usize) -> u64 {
    1u64 << i
}

fn full(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

fn bits(mask: u64) -> Vec<usize> {
    (0..64).filter(|&i| mask & bit(i) != 0).collect()
}

/// Which records (by stream offset) an operator's state has absorbed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ledger {
    words: Vec<u64>,
}

impl Ledger {
    fn new(n: usize) -> Self {
        Ledger {
            words: vec![0; n.div_ceil(64)],
        }
    }

    fn insert(&mut self, i: usize) {
        if let Some(w) = self.words.get_mut(i / 64) {
            *w |= 1 << (i % 64);
        }
    }

    pub fn contains(&self, i: usize) -> bool {
        self.words
            .get(i / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
}

/// A source partition's state.
#[derive(Debug, Clone)]
struct Source {
    /// Events of the partition emitted so far: the offset to resume from.
    offset: usize,
    ended: bool,
    watermark: Watermark,
    /// The last watermark sent on each of its channels.
    sent_watermark: Vec<f64>,
    next_watermark_tick: f64,
}

#[derive(Debug, Clone)]
struct SourceSnapshot {
    source: Source,
    links: Vec<Link>,
}

/// An operator instance's state.
#[derive(Debug, Clone)]
struct Operator {
    processor: Processor,
    /// The latest watermark received on each input.
    input_watermark: Vec<f64>,
    ended: u64,
    blocked: u64,
    /// Checkpoints whose barriers have arrived on some inputs: id and those inputs.
    aligning: Vec<(u32, u64)>,
    aligning_since: f64,
    last_snapshot: Option<u32>,
    finished: bool,
    /// The latest processing time it has seen.
    clock: f64,
    ledger: Option<Ledger>,
}

impl Operator {
    fn watermark_in(&self) -> f64 {
        let mut wm = f64::INFINITY;
        for (p, &w) in self.input_watermark.iter().enumerate() {
            if self.ended & bit(p) == 0 && w < wm {
                wm = w;
            }
        }
        wm
    }

    fn state_bytes(&self) -> usize {
        self.processor.state_bytes() + self.input_watermark.len() * 8 + 48
    }
}

#[derive(Debug, Clone)]
struct OperatorSnapshot {
    operator: Operator,
    link: Link,
}

/// The sink's own bookkeeping (what a checkpoint restores; the sinks' contents are the world).
#[derive(Debug, Clone, Default)]
struct SinkState {
    ended: u64,
    blocked: u64,
    aligning: Vec<(u32, u64)>,
    finished: bool,
    clock: f64,
}

#[derive(Debug, Clone)]
struct SinkNode {
    state: SinkState,
    sinks: Vec<Sink>,
    /// Final values by cell, upserted (a replayed finalisation overwrites itself).
    finals: BTreeMap<CellId, u64>,
    /// Panes applied since the last completed checkpoint's cut: what a crash makes the sinks
    /// receive again.
    since_commit: Vec<(CellId, i64)>,
    /// How many panes were dropped from the front of `since_commit` so far.
    since_base: usize,
    /// The transactional sink's open transaction.
    open: Vec<Pane>,
    /// Transactions pre-committed at a checkpoint's barrier, committed when it completes.
    precommitted: Vec<(u32, Vec<Pane>)>,
    received: u64,
    log: Vec<Pane>,
}

#[derive(Debug, Clone)]
struct PendingCheckpoint {
    id: u32,
    time: f64,
    next_tick: f64,
    sources: Vec<SourceSnapshot>,
    operators: Vec<Option<OperatorSnapshot>>,
    alignment: Vec<f64>,
    /// Unaligned: messages the receivers took before the barrier came on their input.
    channel_state: Vec<(usize, InFlight)>,
    /// The sink's state at the cut (unaligned: its first barrier; aligned: its last), and
    /// where its applied panes then stood.
    sink: Option<(SinkState, usize)>,
    /// The sink has the barrier from every live operator.
    sink_done: bool,
    /// Operators that have snapshotted and stored their in-flight data.
    acked: u64,
}

/// A completed checkpoint, as its record: when it was taken and completed, its source offsets
/// and what it cost. The state it holds is kept apart, for the latest one only
/// ([`RestorePoint`]).
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
    /// Estimated bytes of each operator's snapshot.
    pub operator_bytes: Vec<usize>,
    /// Panes the transactional sink had staged and committed on completion.
    pub sink_pending: usize,
    /// Per operator, how long it aligned: from its first barrier to its snapshot, ms.
    pub alignment: Vec<f64>,
    /// Unaligned: in-flight messages stored with the checkpoint.
    pub in_flight: usize,
    /// Audit runs: how exactly its cut held every record, measured when it completed.
    audit: Option<Audit>,
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
struct RestorePoint {
    /// 0 for the start of the stream.
    id: u32,
    time: f64,
    next_tick: f64,
    channel_state: Vec<(usize, InFlight)>,
    sources: Vec<SourceSnapshot>,
    operators: Vec<OperatorSnapshot>,
    sink: SinkState,
}

impl RestorePoint {
    fn offsets(&self) -> Vec<usize> {
        self.sources.iter().map(|s| s.source.offset).collect()
    }
}

/// What fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrashTarget {
    /// The whole job.
    Job,
    /// One operator instance (the others restart with it: every channel crosses it).
    Operator(usize),
}

/// What a crash did.
#[derive(Debug, Clone, PartialEq)]
pub struct CrashRecord {
    /// Processing time of the crash.
    pub time: f64,
    pub target: CrashTarget,
    /// The checkpoint restored (`None`: none had completed; the job restarted from the start).
    pub restored: Option<u32>,
    /// Processing time of the restored checkpoint (the start of the stream without one).
    pub restored_time: f64,
    /// Source offsets restored, per partition.
    pub offsets: Vec<usize>,
    /// Events the sources had emitted past those offsets: they replay.
    pub replayed: usize,
    /// Panes the sink had applied since the restored checkpoint: the replay delivers them again.
    pub duplicate_panes: usize,
    /// By how much each cell's additive total goes over: the values of those panes (exact with
    /// aligned and unaligned barriers; at-least-once replays more than this).
    pub overcount: BTreeMap<CellId, i64>,
    /// Panes the transactional sink had staged and lost.
    pub staged_lost: usize,
    /// Checkpoints in progress, abandoned.
    pub abandoned: Vec<u32>,
}

impl CrashRecord {
    /// The additive sink's total over-count from this crash.
    pub fn overcount_total(&self) -> i64 {
        self.overcount.values().sum()
    }
}

fn secs(ms: f64) -> String {
    format!("{:.1} s", ms / 1000.0)
}

impl fmt::Display for CrashRecord {
    /// `crashed at 212.4 s; restored checkpoint #7 (taken at 200.0 s, source offsets 1667/1666);
    /// replaying 843 events`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let CrashTarget::Operator(i) = self.target {
            write!(f, "operator {i} ")?;
        }
        write!(f, "crashed at {}; ", secs(self.time))?;
        let offsets = self
            .offsets
            .iter()
            .map(|o| o.to_string())
            .collect::<Vec<_>>()
            .join("/");
        match self.restored {
            Some(id) => write!(
                f,
                "restored checkpoint #{id} (taken at {}, source offsets {offsets}); ",
                secs(self.restored_time)
            )?,
            None => write!(f, "no checkpoint yet, restarted from the start; ")?,
        }
        write!(f, "replaying {} events", self.replayed)
    }
}

/// What a delivery did at its receiver.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Outcome {
    /// An operator placed a record in its windows.
    Record {
        stream_offset: usize,
        fate: Fate,
        replayed: bool,
        /// Panes the arrival emitted.
        panes: usize,
    },
    /// An operator took a watermark in; its own watermark is now this.
    Watermark { watermark: f64 },
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

/// Alignment measured against a checkpoint: every record before the source offsets must be in
/// exactly one operator's snapshot, and none after them in any.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Audit {
    /// Records before the offsets that no snapshot holds.
    pub missing: usize,
    /// Records held by more than one snapshot.
    pub duplicated: usize,
    /// Records after the offsets (they replay) that a snapshot holds too.
    pub after_cut: usize,
}

impl Audit {
    pub fn is_exact(&self) -> bool {
        *self == Audit::default()
    }
}

/// What a step will do next.
#[derive(Debug, Clone, Copy)]
enum Next {
    Trigger,
    Source(usize),
    Operator(usize, usize),
    Sink(usize),
}

/// The simulated parallel job over a stream.
#[derive(Debug, Clone)]
pub struct Pipeline<S: Borrow<Stream>> {
    stream: S,
    cfg: PipelineConfig,
    /// Stream offsets of each partition's events.
    partitions: Vec<Vec<u32>>,
    /// Operator instance of each key.
    route: Vec<usize>,
    sources: Vec<Source>,
    operators: Vec<Operator>,
    sink: SinkNode,
    /// P·N source → operator channels (`p·N + i`), then N operator → sink channels.
    channels: Channels,
    /// Per receiver (operators, then the sink), its earliest unblocked head: arrival, channel.
    heads: Vec<(f64, usize)>,
    now: f64,
    next_tick: f64,
    next_id: u32,
    pending: Vec<PendingCheckpoint>,
    completed: Vec<CompletedCheckpoint>,
    /// The latest completed checkpoint's state, or the start's before the first.
    restore: RestorePoint,
    crashes: Vec<CrashRecord>,
    /// Scheduled crashes, latest first.
    scheduled: Vec<(f64, CrashTarget)>,
    /// Per partition, the furthest offset ever emitted (a crash does not undo it).
    high_water: Vec<usize>,
    out: Output,
    dropped: BTreeMap<(usize, WindowId), Dropped>,
    /// Records emitted, replays included.
    pub emitted_total: u64,
    /// Steps taken.
    pub steps: u64,
}

impl<S: Borrow<Stream>> Pipeline<S> {
    /// A pipeline before its first event.
    pub fn new(stream: S, cfg: PipelineConfig) -> Result<Self, PipelineError> {
        cfg.validate()?;
        let s: &Stream = stream.borrow();
        let (np, nn) = (cfg.partitions, cfg.parallelism);
        let max_delay = s.max_delay();
        let mut partitions = vec![Vec::new(); np];
        for i in 0..s.len() {
            partitions[i % np].push(i as u32);
        }
        let nkeys = s
            .events
            .iter()
            .map(|e| e.key as usize + 1)
            .max()
            .unwrap_or(0)
            .max(s.keys.len());
        let route = (0..nkeys)
            .map(|k| match s.keys.get(k) {
                Some(name) => operator_for(name, nn),
                None => operator_for(&k.to_string(), nn),
            })
            .collect();
        let start = s.events.first().map_or(0.0, |e| e.proc_time);
        let mut channels = Channels::default();
        for p in 0..np {
            for i in 0..nn {
                let c = channels.len();
                channels.push(
                    Channel::new(
                        Node::Source(p),
                        Node::Operator(i),
                        Link::new(cfg.seed, c, cfg.transit),
                    ),
                    i,
                );
            }
        }
        for i in 0..nn {
            let c = channels.len();
            channels.push(
                Channel::new(
                    Node::Operator(i),
                    Node::Sink,
                    Link::new(cfg.seed, c, cfg.transit),
                ),
                nn,
            );
        }
        let sources = (0..np)
            .map(|_| Source {
                offset: 0,
                ended: false,
                watermark: Watermark::new(cfg.engine.watermark, max_delay),
                sent_watermark: vec![f64::NEG_INFINITY; nn],
                next_watermark_tick: f64::NEG_INFINITY,
            })
            .collect();
        let operators = (0..nn)
            .map(|_| Operator {
                processor: Processor::new(cfg.engine, max_delay),
                input_watermark: vec![f64::NEG_INFINITY; np],
                ended: 0,
                blocked: 0,
                aligning: Vec::new(),
                aligning_since: f64::NEG_INFINITY,
                last_snapshot: None,
                finished: false,
                clock: f64::NEG_INFINITY,
                ledger: cfg.audit.then(|| Ledger::new(s.len())),
            })
            .collect();
        let sink = SinkNode {
            state: SinkState {
                clock: f64::NEG_INFINITY,
                ..SinkState::default()
            },
            sinks: SinkKind::ALL
                .iter()
                .map(|&k| Sink::new(k, cfg.engine.accumulation))
                .collect(),
            finals: BTreeMap::new(),
            since_commit: Vec::new(),
            since_base: 0,
            open: Vec::new(),
            precommitted: Vec::new(),
            received: 0,
            log: Vec::new(),
        };
        let next_tick = match cfg.checkpoint_every {
            Some(every) => ((start / every).floor() + 1.0) * every,
            None => f64::INFINITY,
        };
        let mut pipeline = Pipeline {
            stream,
            cfg,
            partitions,
            route,
            sources,
            operators,
            sink,
            channels,
            heads: vec![(f64::INFINITY, usize::MAX); nn + 1],
            now: start,
            next_tick,
            next_id: 1,
            pending: Vec::new(),
            completed: Vec::new(),
            restore: RestorePoint {
                id: 0,
                time: start,
                channel_state: Vec::new(),
                next_tick,
                sources: Vec::new(),
                operators: Vec::new(),
                sink: SinkState::default(),
            },
            crashes: Vec::new(),
            scheduled: Vec::new(),
            high_water: vec![0; np],
            out: Output::default(),
            dropped: BTreeMap::new(),
            emitted_total: 0,
            steps: 0,
        };
        pipeline.restore.sources = pipeline.source_snapshots();
        pipeline.restore.operators = (0..nn).map(|i| pipeline.operator_snapshot(i)).collect();
        pipeline.restore.sink = pipeline.sink.state.clone();
        Ok(pipeline)
    }

    pub fn stream(&self) -> &Stream {
        self.stream.borrow()
    }

    pub fn config(&self) -> &PipelineConfig {
        &self.cfg
    }

    /// The simulation's processing-time clock, ms.
    pub fn now(&self) -> f64 {
        self.now
    }

    /// The operator instance of a key.
    pub fn operator_of(&self, key: KeyId) -> usize {
        self.route.get(key as usize).copied().unwrap_or(0)
    }

    /// Events the sources have emitted in the current timeline (Σ of their offsets).
    pub fn emitted(&self) -> usize {
        self.sources.iter().map(|s| s.offset).sum()
    }

    /// Source offsets now, per partition.
    pub fn offsets(&self) -> Vec<usize> {
        self.sources.iter().map(|s| s.offset).collect()
    }

    /// The sink has had the end of input from every operator.
    pub fn is_finished(&self) -> bool {
        self.sink.state.finished
    }

    /// Completed checkpoints, in order.
    pub fn checkpoints(&self) -> &[CompletedCheckpoint] {
        &self.completed
    }

    pub fn last_completed(&self) -> Option<&CompletedCheckpoint> {
        self.completed.last()
    }

    /// Completed checkpoints whose whole state (operators, sources, in-flight data) is held in
    /// memory to be restored: the latest one only (none before the first).
    pub fn snapshots_held(&self) -> usize {
        usize::from(self.restore.id > 0)
    }

    /// Checkpoints whose barriers are still travelling.
    pub fn pending_checkpoints(&self) -> Vec<u32> {
        self.pending.iter().map(|c| c.id).collect()
    }

    pub fn crashes(&self) -> &[CrashRecord] {
        &self.crashes
    }

    /// Crashes scheduled and not yet reached, earliest first.
    pub fn scheduled_crashes(&self) -> Vec<(f64, CrashTarget)> {
        self.scheduled.iter().rev().copied().collect()
    }

    /// The sink of a kind. The transactional one is handed each transaction when it commits;
    /// [`Pipeline::staged`] counts what is not committed yet.
    pub fn sink(&self, kind: SinkKind) -> &Sink {
        let i = SinkKind::ALL.iter().position(|&k| k == kind).unwrap_or(0);
        &self.sink.sinks[i]
    }

    /// The value of every cell as the sink of `kind` holds it now.
    pub fn sink_output(&self, kind: SinkKind) -> BTreeMap<CellId, i64> {
        self.sink(kind).output()
    }

    /// Final values as the sink received them.
    pub fn finals(&self) -> &BTreeMap<CellId, u64> {
        &self.sink.finals
    }

    /// The job's own value of a cell now: the live count in the operator that owns its key
    /// while the window is open there, else its final value. It rolls back with a crash,
    /// where the sinks (the outside world) do not.
    pub fn job_value(&self, cell: CellId) -> Option<u64> {
        let live = self
            .operators
            .get(self.operator_of(cell.key))
            .and_then(|op| op.processor.cell(cell))
            .map(|c| c.value);
        live.or_else(|| self.sink.finals.get(&cell).copied())
    }

    /// Panes the sink received, replays included (kept with `keep_outputs`).
    pub fn panes(&self) -> &[Pane] {
        &self.sink.log
    }

    /// Panes the sink received, replays included.
    pub fn panes_received(&self) -> u64 {
        self.sink.received
    }

    /// Events dropped in the current timeline's operators (kept with `keep_outputs`), by
    /// stream offset; `offset` is the stream offset.
    pub fn dropped(&self) -> impl Iterator<Item = &Dropped> + '_ {
        self.dropped.values()
    }

    /// The operators' counters, summed (they roll back with a crash).
    pub fn counters(&self) -> Counters {
        let mut c = Counters::default();
        for op in &self.operators {
            let o = op.processor.counters();
            c.events += o.events;
            c.on_time += o.on_time;
            c.late += o.late;
            c.dropped += o.dropped;
            c.early_panes += o.early_panes;
            c.on_time_panes += o.on_time_panes;
            c.late_panes += o.late_panes;
            c.windows_finalised += o.windows_finalised;
        }
        c
    }

    /// Some source is re-emitting events it had emitted before a crash.
    pub fn is_replaying(&self) -> bool {
        self.sources
            .iter()
            .zip(&self.high_water)
            .any(|(s, &h)| s.offset < h)
    }

    /// Schedules a crash at processing time `time` (applied once, when the clock reaches it;
    /// ignored if the job has finished by then).
    pub fn schedule_crash(&mut self, time: f64, target: CrashTarget) -> Result<(), PipelineError> {
        if let CrashTarget::Operator(i) = target {
            if i >= self.cfg.parallelism {
                return Err(PipelineError::NoSuchOperator(i, self.cfg.parallelism));
            }
        }
        self.scheduled.push((time, target));
        self.scheduled.sort_by(|a, b| b.0.total_cmp(&a.0));
        Ok(())
    }

    fn source_snapshots(&self) -> Vec<SourceSnapshot> {
        let nn = self.cfg.parallelism;
        self.sources
            .iter()
            .enumerate()
            .map(|(p, s)| SourceSnapshot {
                source: s.clone(),
                links: (0..nn)
                    .map(|i| self.channels[p * nn + i].link.clone())
                    .collect(),
            })
            .collect()
    }

    fn operator_snapshot(&self, i: usize) -> OperatorSnapshot {
        let out = self.cfg.partitions * self.cfg.parallelism + i;
        OperatorSnapshot {
            operator: self.operators[i].clone(),
            link: self.channels[out].link.clone(),
        }
    }

    /// Recomputes the earliest unblocked head of every receiver whose inputs changed.
    fn refresh_heads(&mut self) {
        let (np, nn) = (self.cfg.partitions, self.cfg.parallelism);
        let dirty = self.channels.take_dirty();
        for r in 0..=nn {
            if dirty & (1 << r) == 0 {
                continue;
            }
            let (blocked, done, inputs) = if r < nn {
                let op = &self.operators[r];
                (op.blocked, op.finished, np)
            } else {
                (self.sink.state.blocked, self.sink.state.finished, nn)
            };
            let mut head = (f64::INFINITY, usize::MAX);
            if !done {
                for k in 0..inputs {
                    if blocked & bit(k) != 0 {
                        continue;
                    }
                    let c = if r < nn { k * nn + r } else { np * nn + k };
                    let a = self.channels.head_arrival(c);
                    if a < head.0 {
                        head = (a, c);
                    }
                }
            }
            self.heads[r] = head;
        }
    }

    fn next_action(&self) -> Option<(f64, Next)> {
        self.next_action_with(true)
    }

    /// The next action; without the checkpoint trigger when `trigger` is false (to find how
    /// long the job will be idle).
    fn next_action_with(&self, trigger: bool) -> Option<(f64, Next)> {
        let nn = self.cfg.parallelism;
        let mut best: Option<(f64, Next)> = None;
        let consider = |t: f64, n: Next, best: &mut Option<(f64, Next)>| {
            if !matches!(best, Some((bt, _)) if t >= *bt) {
                *best = Some((t, n));
            }
        };
        let stream: &Stream = self.stream.borrow();
        let live = self.sources.iter().any(|s| !s.ended);
        if trigger && live && self.next_tick.is_finite() {
            consider(self.next_tick.max(self.now), Next::Trigger, &mut best);
        }
        for (p, s) in self.sources.iter().enumerate() {
            if s.ended {
                continue;
            }
            let t = match self.partitions[p].get(s.offset) {
                Some(&idx) => stream.events[idx as usize].proc_time,
                None => self.now,
            };
            consider(t.max(self.now), Next::Source(p), &mut best);
        }
        for (r, &(a, c)) in self.heads.iter().enumerate() {
            if a < f64::INFINITY {
                let next = if r < nn {
                    Next::Operator(r, c)
                } else {
                    Next::Sink(c)
                };
                consider(a.max(self.now), next, &mut best);
            }
        }
        best
    }

    /// Takes the next step: a scheduled crash, a checkpoint trigger, a source emission or one
    /// channel delivery. `None` once the job has finished.
    pub fn step(&mut self) -> Option<Step> {
        self.refresh_heads();
        let (t, next) = self.next_action()?;
        if let Some(&(c, target)) = self.scheduled.last() {
            if c <= t {
                self.scheduled.pop();
                self.now = self.now.max(c);
                let time = self.now;
                self.crash_now(target);
                self.steps += 1;
                return Some(Step {
                    time,
                    event: StepEvent::Crashed,
                });
            }
        }
        self.now = t;
        self.steps += 1;
        let event = match next {
            Next::Trigger => {
                let every = self.cfg.checkpoint_every.unwrap_or(f64::INFINITY);
                self.next_tick = next_tick_after(self.next_tick, t, every);
                // No checkpoints while nothing happens: across an idle gap in the input (a
                // log with hours between records) the next tick is the first one at or after
                // the job's next piece of work.
                if let Some((work, _)) = self.next_action_with(false) {
                    if work > self.next_tick {
                        self.next_tick = next_tick_after(self.next_tick, work, every);
                        if self.next_tick - every >= work {
                            self.next_tick -= every;
                        }
                    }
                }
                match self.checkpoint_now() {
                    Some(checkpoint) => StepEvent::CheckpointTriggered { checkpoint },
                    None => return self.step(),
                }
            }
            Next::Source(p) => self.emit(p),
            Next::Operator(i, c) => self.deliver_to_operator(i, c),
            Next::Sink(c) => self.deliver_to_sink(c),
        };
        Some(Step { time: t, event })
    }

    /// When the next step will happen (a scheduled crash included), `None` once finished.
    pub fn next_time(&mut self) -> Option<f64> {
        self.refresh_heads();
        let (t, _) = self.next_action()?;
        Some(match self.scheduled.last() {
            Some(&(c, _)) if c <= t => self.now.max(c),
            _ => t,
        })
    }

    /// Steps while the next step is due by processing time `t` (an animation frame); returns
    /// the steps taken. The clock may go back on the way, if a crash restores a checkpoint.
    pub fn run_until(&mut self, t: f64) -> u64 {
        let before = self.steps;
        while self.next_time().is_some_and(|n| n <= t) {
            self.step();
        }
        self.steps - before
    }

    /// Steps until the job has finished; returns the steps taken.
    pub fn run_to_end(&mut self) -> u64 {
        let before = self.steps;
        while self.step().is_some() {}
        self.scheduled.clear();
        self.steps - before
    }

    /// Injects a checkpoint's barriers at every live source now. `None` when every source has
    /// ended (nothing left to checkpoint).
    pub fn checkpoint_now(&mut self) -> Option<u32> {
        if self.sources.iter().all(|s| s.ended) {
            return None;
        }
        let id = self.next_id;
        self.next_id += 1;
        let nn = self.cfg.parallelism;
        for p in 0..self.cfg.partitions {
            if self.sources[p].ended {
                continue;
            }
            for i in 0..nn {
                self.channels
                    .send(p * nn + i, self.now, Message::Barrier { checkpoint: id });
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

    fn emit(&mut self, p: usize) -> StepEvent {
        let nn = self.cfg.parallelism;
        let now = self.now;
        let offset = self.sources[p].offset;
        let Some(&idx) = self.partitions[p].get(offset) else {
            let src = &mut self.sources[p];
            src.ended = true;
            for i in 0..nn {
                self.channels.send(p * nn + i, now, Message::End);
            }
            return StepEvent::PartitionEnded { partition: p };
        };
        let stream: &Stream = self.stream.borrow();
        let e = stream.events[idx as usize];
        let target = self.route.get(e.key as usize).copied().unwrap_or(0);
        let replayed = offset < self.high_water[p];
        self.high_water[p] = self.high_water[p].max(offset + 1);
        let src = &mut self.sources[p];
        let wm = src.watermark.observe(&e);
        src.offset += 1;
        src.sent_watermark[target] = wm;
        self.channels.send(
            p * nn + target,
            now,
            Message::Record {
                event: e,
                stream_offset: idx as usize,
                watermark: wm,
                replayed,
            },
        );
        if e.proc_time >= src.next_watermark_tick {
            let every = self.cfg.watermark_every;
            src.next_watermark_tick = ((e.proc_time / every).floor() + 1.0) * every;
            for i in 0..nn {
                if src.sent_watermark[i] < wm {
                    src.sent_watermark[i] = wm;
                    self.channels
                        .send(p * nn + i, now, Message::Watermark { watermark: wm });
                }
            }
        }
        self.emitted_total += 1;
        StepEvent::Emitted {
            partition: p,
            offset,
            stream_offset: idx as usize,
            operator: target,
            replayed,
        }
    }

    /// Sends what the operator's processor emitted on towards the sink.
    fn forward(&mut self, i: usize) {
        let c = self.cfg.partitions * self.cfg.parallelism + i;
        let now = self.now;
        for pane in &self.out.panes {
            self.channels.send(c, now, Message::Pane(*pane));
        }
        for f in &self.out.finals {
            self.channels.send(c, now, Message::Final(*f));
        }
        self.out.clear();
    }

    fn deliver_to_operator(&mut self, i: usize, c: usize) -> StepEvent {
        let (np, nn) = (self.cfg.partitions, self.cfg.parallelism);
        let p = c / nn;
        let Some(m) = self.channels.pop(c) else {
            return StepEvent::Delivered {
                channel: c,
                to: Node::Operator(i),
                kind: MessageKind::End,
                outcome: Outcome::InputEnded,
            };
        };
        let pt = m.arrival;
        let kind = m.message.kind();
        if self.cfg.mode == CheckpointMode::Unaligned && kind != MessageKind::Barrier {
            self.store_in_flight(&self.operators[i].aligning.clone(), p, c, m);
        }
        let op = &mut self.operators[i];
        op.clock = op.clock.max(pt);
        let outcome = match m.message {
            Message::Record {
                event,
                stream_offset,
                watermark,
                replayed,
            } => {
                op.input_watermark[p] = op.input_watermark[p].max(watermark);
                let wm = op.watermark_in();
                let ev = Event {
                    proc_time: pt,
                    ..event
                };
                let arrival = op.processor.step_with_watermark(&ev, wm, &mut self.out);
                if let Some(l) = op.ledger.as_mut() {
                    l.insert(stream_offset);
                }
                if self.cfg.keep_outputs {
                    for d in &self.out.dropped {
                        self.dropped.insert(
                            (stream_offset, d.window),
                            Dropped {
                                offset: stream_offset,
                                event,
                                ..*d
                            },
                        );
                    }
                }
                self.out.dropped.clear();
                let panes = self.out.panes.len();
                self.forward(i);
                Outcome::Record {
                    stream_offset,
                    fate: arrival.fate,
                    replayed,
                    panes,
                }
            }
            Message::Watermark { watermark } => {
                op.input_watermark[p] = op.input_watermark[p].max(watermark);
                let wm = op.watermark_in();
                op.processor.advance(wm, pt, &mut self.out);
                let watermark = op.processor.watermark();
                self.out.dropped.clear();
                self.forward(i);
                Outcome::Watermark { watermark }
            }
            Message::Barrier { checkpoint } => {
                if self.cfg.mode == CheckpointMode::ExactlyOnce {
                    op.blocked |= bit(p);
                }
                let mut first = false;
                match op.aligning.iter_mut().find(|(k, _)| *k == checkpoint) {
                    Some((_, mask)) => *mask |= bit(p),
                    None => {
                        if op.aligning.is_empty() {
                            op.aligning_since = self.now;
                        }
                        op.aligning.push((checkpoint, bit(p)));
                        first = true;
                    }
                }
                let snap = if self.cfg.mode == CheckpointMode::Unaligned {
                    let snap = first.then(|| self.snapshot_operator(i, checkpoint));
                    let settled = self.settle(i);
                    snap.or(settled)
                } else {
                    self.settle(i)
                };
                snap.unwrap_or_else(|| {
                    let op = &self.operators[i];
                    let mask = op
                        .aligning
                        .iter()
                        .find(|(k, _)| *k == checkpoint)
                        .map_or(full(np), |(_, m)| *m);
                    Outcome::Aligning {
                        checkpoint,
                        waiting: (full(np) & !(mask | op.ended)).count_ones() as usize,
                    }
                })
            }
            Message::End => {
                op.ended |= bit(p);
                op.blocked &= !bit(p);
                if op.ended & full(np) == full(np) {
                    let snap = self.settle(i);
                    let op = &mut self.operators[i];
                    op.processor.finish(&mut self.out);
                    op.finished = true;
                    self.out.dropped.clear();
                    self.forward(i);
                    let out = np * nn + i;
                    self.channels.send(out, self.now, Message::End);
                    snap.unwrap_or(Outcome::Finished)
                } else {
                    let wm = op.watermark_in();
                    op.processor.advance(wm, pt, &mut self.out);
                    self.out.dropped.clear();
                    self.forward(i);
                    self.settle(i).unwrap_or(Outcome::InputEnded)
                }
            }
            Message::Pane(_) | Message::Final(_) => Outcome::InputEnded,
        };
        StepEvent::Delivered {
            channel: c,
            to: Node::Operator(i),
            kind,
            outcome,
        }
    }

    /// Stores a message a receiver took from input `input` (channel `c`) with every unaligned
    /// checkpoint whose barrier has not yet come on that input.
    fn store_in_flight(&mut self, aligning: &[(u32, u64)], input: usize, c: usize, m: InFlight) {
        for &(k, mask) in aligning {
            if mask & bit(input) == 0 {
                if let Some(pc) = self.pending.iter_mut().find(|pc| pc.id == k) {
                    pc.channel_state.push((c, m));
                }
            }
        }
    }

    /// Settles operator `i`'s barriers: aligned and at-least-once modes snapshot for every
    /// checkpoint whose barrier it now has on all live inputs; unaligned mode, which snapshotted
    /// at the first barrier, stops storing in-flight data for them.
    fn settle(&mut self, i: usize) -> Option<Outcome> {
        let np = self.cfg.partitions;
        let mut done = None;
        loop {
            let op = &mut self.operators[i];
            let Some(&(k, mask)) = op.aligning.first() else {
                break;
            };
            if (mask | op.ended) & full(np) != full(np) {
                break;
            }
            op.aligning.remove(0);
            if op.aligning.is_empty() {
                op.blocked = 0;
            }
            if self.cfg.mode != CheckpointMode::Unaligned {
                done = Some(self.snapshot_operator(i, k));
            }
            if let Some(pc) = self.pending.iter_mut().find(|pc| pc.id == k) {
                pc.acked |= bit(i);
            }
            if let Some(c) = self.complete_ready() {
                done = Some(c);
            }
        }
        done
    }

    /// Operator `i` snapshots for checkpoint `k` and forwards its barrier.
    fn snapshot_operator(&mut self, i: usize, k: u32) -> Outcome {
        let (np, nn) = (self.cfg.partitions, self.cfg.parallelism);
        let op = &mut self.operators[i];
        op.last_snapshot = Some(k);
        let waited = if self.cfg.mode == CheckpointMode::Unaligned {
            0.0
        } else {
            (self.now - op.aligning_since).max(0.0)
        };
        op.aligning_since = self.now;
        let out = np * nn + i;
        self.channels
            .send(out, self.now, Message::Barrier { checkpoint: k });
        let mut snap = self.operator_snapshot(i);
        snap.operator.aligning.clear();
        snap.operator.blocked = 0;
        let bytes = snap.operator.state_bytes();
        if let Some(pc) = self.pending.iter_mut().find(|pc| pc.id == k) {
            pc.operators[i] = Some(snap);
            pc.alignment[i] = waited;
        }
        Outcome::Snapshot {
            checkpoint: k,
            bytes,
        }
    }

    /// Hands a transaction to the transactional sink and commits it.
    fn commit(&mut self, panes: &[Pane]) {
        for s in &mut self.sink.sinks {
            if s.kind() == SinkKind::Transactional {
                for pane in panes {
                    s.deliver(pane);
                }
            }
            s.commit();
        }
    }

    fn deliver_to_sink(&mut self, c: usize) -> StepEvent {
        let nn = self.cfg.parallelism;
        let i = c - self.cfg.partitions * nn;
        let Some(m) = self.channels.pop(c) else {
            return StepEvent::Delivered {
                channel: c,
                to: Node::Sink,
                kind: MessageKind::End,
                outcome: Outcome::InputEnded,
            };
        };
        let kind = m.message.kind();
        if self.cfg.mode == CheckpointMode::Unaligned && kind != MessageKind::Barrier {
            self.store_in_flight(&self.sink.state.aligning.clone(), i, c, m);
        }
        let sink = &mut self.sink;
        sink.state.clock = sink.state.clock.max(m.arrival);
        let outcome = match m.message {
            Message::Pane(pane) => {
                for s in &mut sink.sinks {
                    if s.kind() != SinkKind::Transactional {
                        s.deliver(&pane);
                    }
                }
                sink.open.push(pane);
                sink.received += 1;
                sink.since_commit.push((pane.cell, pane.value));
                if self.cfg.keep_outputs {
                    sink.log.push(pane);
                }
                Outcome::Pane {
                    cell: pane.cell,
                    value: pane.value,
                }
            }
            Message::Final(f) => {
                sink.finals.insert(f.cell, f.value);
                Outcome::Final {
                    cell: f.cell,
                    value: f.value,
                }
            }
            Message::Barrier { checkpoint } => {
                if self.cfg.mode == CheckpointMode::ExactlyOnce {
                    sink.state.blocked |= bit(i);
                }
                match sink
                    .state
                    .aligning
                    .iter_mut()
                    .find(|(k, _)| *k == checkpoint)
                {
                    Some((_, mask)) => *mask |= bit(i),
                    None => {
                        sink.state.aligning.push((checkpoint, bit(i)));
                        if self.cfg.mode == CheckpointMode::Unaligned {
                            // Pre-commit: the open transaction belongs to this checkpoint.
                            let txn = std::mem::take(&mut sink.open);
                            sink.precommitted.push((checkpoint, txn));
                            let mut state = sink.state.clone();
                            state.aligning.clear();
                            let mark = sink.since_base + sink.since_commit.len();
                            if let Some(pc) = self.pending.iter_mut().find(|pc| pc.id == checkpoint)
                            {
                                pc.sink = Some((state, mark));
                            }
                        }
                    }
                }
                self.try_complete().unwrap_or_else(|| {
                    let st = &self.sink.state;
                    let mask = st
                        .aligning
                        .iter()
                        .find(|(k, _)| *k == checkpoint)
                        .map_or(0, |(_, m)| *m);
                    Outcome::Aligning {
                        checkpoint,
                        waiting: (full(nn) & !(mask | st.ended)).count_ones() as usize,
                    }
                })
            }
            Message::End => {
                sink.state.ended |= bit(i);
                sink.state.blocked &= !bit(i);
                let done = self.try_complete();
                if self.sink.state.ended & full(nn) == full(nn) {
                    let mut txn: Vec<Pane> = Vec::new();
                    for (_, t) in std::mem::take(&mut self.sink.precommitted) {
                        txn.extend(t);
                    }
                    txn.append(&mut self.sink.open);
                    self.commit(&txn);
                    let sink = &mut self.sink;
                    sink.since_base += sink.since_commit.len();
                    sink.since_commit.clear();
                    sink.state.finished = true;
                    self.pending.clear();
                    done.unwrap_or(Outcome::Finished)
                } else {
                    done.unwrap_or(Outcome::InputEnded)
                }
            }
            Message::Record { .. } | Message::Watermark { .. } => Outcome::InputEnded,
        };
        StepEvent::Delivered {
            channel: c,
            to: Node::Sink,
            kind,
            outcome,
        }
    }

    /// Settles the sink's barriers: a checkpoint whose barrier the sink now has from every live
    /// operator is done at the sink (aligned modes pre-commit its transaction now); then every
    /// checkpoint done at the sink and acknowledged by every operator completes.
    fn try_complete(&mut self) -> Option<Outcome> {
        let nn = self.cfg.parallelism;
        loop {
            let st = &mut self.sink.state;
            let Some(&(k, mask)) = st.aligning.first() else {
                break;
            };
            if (mask | st.ended) & full(nn) != full(nn) {
                break;
            }
            st.aligning.remove(0);
            if st.aligning.is_empty() {
                st.blocked = 0;
            }
            let unaligned = self.cfg.mode == CheckpointMode::Unaligned;
            let sink = &mut self.sink;
            let Some(pc) = self.pending.iter_mut().find(|pc| pc.id == k) else {
                continue;
            };
            if !unaligned {
                let txn = std::mem::take(&mut sink.open);
                sink.precommitted.push((k, txn));
                let mut state = sink.state.clone();
                state.aligning.clear();
                state.blocked = 0;
                pc.sink = Some((state, sink.since_base + sink.since_commit.len()));
            }
            pc.sink_done = true;
        }
        self.complete_ready()
    }

    /// Completes, in order, the checkpoints done at the sink and acknowledged by every operator.
    fn complete_ready(&mut self) -> Option<Outcome> {
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
            let txn = match sink.precommitted.iter().position(|(id, _)| *id == k) {
                Some(at) => sink.precommitted.remove(at).1,
                None => Vec::new(),
            };
            // What the sink took after the cut is delivered again on restore.
            let drop = mark
                .saturating_sub(sink.since_base)
                .min(sink.since_commit.len());
            sink.since_commit.drain(..drop);
            sink.since_base += drop;
            let staged = txn.len();
            self.commit(&txn);
            let operator_bytes: Vec<usize> =
                operators.iter().map(|s| s.operator.state_bytes()).collect();
            let source_bytes: usize = pc
                .sources
                .iter()
                .map(|s| 16 + s.source.sent_watermark.len() * 8)
                .sum();
            let bytes = operator_bytes.iter().sum::<usize>()
                + source_bytes
                + staged * std::mem::size_of::<Pane>()
                + pc.channel_state.len() * std::mem::size_of::<InFlight>();
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
            self.completed.push(CompletedCheckpoint {
                id: k,
                time: pc.time,
                completed_at: self.now,
                offsets,
                bytes,
                operator_bytes,
                sink_pending: staged,
                alignment: pc.alignment,
                in_flight: restore.channel_state.len(),
                audit,
            });
            // The one a crash restores from now on: the previous one's state is freed.
            self.restore = restore;
            done = Some(Outcome::CheckpointCompleted { checkpoint: k });
        }
        done
    }

    /// Fails now: every instance restarts from the last completed checkpoint (or the start).
    /// `None` if the job had already finished.
    pub fn crash_now(&mut self, target: CrashTarget) -> Option<&CrashRecord> {
        if self.sink.state.finished {
            return None;
        }
        if let CrashTarget::Operator(i) = target {
            if i >= self.cfg.parallelism {
                return None;
            }
        }
        let ck = self.restore.clone();
        let ck_offsets = ck.offsets();
        let nn = self.cfg.parallelism;
        let now_offsets = self.offsets();
        let replayed = now_offsets
            .iter()
            .zip(&ck_offsets)
            .map(|(a, b)| a.saturating_sub(*b))
            .sum();
        let mut overcount = BTreeMap::new();
        for &(cell, v) in &self.sink.since_commit {
            *overcount.entry(cell).or_insert(0) += v;
        }
        let duplicate_panes = self.sink.since_commit.len();
        let staged_lost = self.staged();
        for s in &mut self.sink.sinks {
            s.abort();
        }
        self.sink.open.clear();
        self.sink.precommitted.clear();
        self.sink.since_base += self.sink.since_commit.len();
        self.sink.since_commit.clear();
        self.channels.clear();
        for (p, snap) in ck.sources.into_iter().enumerate() {
            self.sources[p] = snap.source;
            for (i, link) in snap.links.into_iter().enumerate() {
                self.channels.set_link(p * nn + i, link);
            }
        }
        let base = self.cfg.partitions * nn;
        for (i, snap) in ck.operators.into_iter().enumerate() {
            self.operators[i] = snap.operator;
            self.channels.set_link(base + i, snap.link);
        }
        self.sink.state = ck.sink;
        for &(c, m) in &ck.channel_state {
            self.channels.restore(c, m);
        }
        let abandoned = self.pending.drain(..).map(|pc| pc.id).collect();
        let time = self.now;
        self.now = ck.time;
        self.next_tick = ck.next_tick;
        self.crashes.push(CrashRecord {
            time,
            target,
            restored: (ck.id > 0).then_some(ck.id),
            restored_time: ck.time,
            offsets: ck_offsets,
            replayed,
            duplicate_panes,
            overcount,
            staged_lost,
            abandoned,
        });
        self.crashes.last()
    }

    /// Alignment against a completed checkpoint (audit runs only), as measured when it
    /// completed.
    pub fn audit(&self, ck: &CompletedCheckpoint) -> Option<Audit> {
        ck.audit
    }

    /// Alignment of a checkpoint's state against its source offsets (audit runs only).
    fn audit_restore_point(&self, ck: &RestorePoint, offsets: &[usize]) -> Option<Audit> {
        let ledgers: Option<Vec<&Ledger>> = ck
            .operators
            .iter()
            .map(|s| s.operator.ledger.as_ref())
            .collect();
        let stored: Vec<usize> = ck
            .channel_state
            .iter()
            .filter_map(|(_, m)| match m.message {
                Message::Record { stream_offset, .. } => Some(stream_offset),
                _ => None,
            })
            .collect();
        Some(self.audit_ledgers(&ledgers?, &stored, offsets))
    }

    /// Every record's effect in the operators' states now: after the end, each must be there
    /// exactly once (audit runs only).
    pub fn audit_now(&self) -> Option<Audit> {
        let ledgers: Option<Vec<&Ledger>> =
            self.operators.iter().map(|o| o.ledger.as_ref()).collect();
        Some(self.audit_ledgers(&ledgers?, &[], &self.offsets()))
    }

    fn audit_ledgers(&self, ledgers: &[&Ledger], stored: &[usize], offsets: &[usize]) -> Audit {
        let mut a = Audit::default();
        let mut in_flight: BTreeMap<usize, usize> = BTreeMap::new();
        for &i in stored {
            *in_flight.entry(i).or_insert(0) += 1;
        }
        for (p, part) in self.partitions.iter().enumerate() {
            for (j, &idx) in part.iter().enumerate() {
                let n = ledgers.iter().filter(|l| l.contains(idx as usize)).count()
                    + in_flight.get(&(idx as usize)).copied().unwrap_or(0);
                if j < offsets[p] {
                    if n == 0 {
                        a.missing += 1;
                    } else if n > 1 {
                        a.duplicated += 1;
                    }
                } else if n > 0 {
                    a.after_cut += 1;
                }
            }
        }
        a
    }

    /// Panes the transactional sink holds uncommitted: its open transaction and the
    /// pre-committed ones.
    pub fn staged(&self) -> usize {
        self.sink.open.len()
            + self
                .sink
                .precommitted
                .iter()
                .map(|(_, t)| t.len())
                .sum::<usize>()
    }

    /// The simulation now, for drawing.
    pub fn topology(&self) -> Topology {
        Topology {
            now: self.now,
            sources: self.source_views(),
            channels: self.channel_views(),
            operators: self.operator_views(),
            sink: self.sink_view(),
            pending_checkpoints: self.pending_checkpoints(),
            last_completed: self.completed.last().map(|c| c.id),
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
            })
            .collect()
    }

    pub fn channel_views(&self) -> Vec<ChannelView> {
        let (np, nn) = (self.cfg.partitions, self.cfg.parallelism);
        self.channels
            .iter()
            .enumerate()
            .map(|(index, ch)| {
                let (mut records, mut watermarks, mut panes) = (0, 0, 0);
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
                        Message::End => {}
                    }
                }
                let blocked = if index < np * nn {
                    self.operators[index % nn].blocked & bit(index / nn) != 0
                } else {
                    self.sink.state.blocked & bit(index - np * nn) != 0
                };
                ChannelView {
                    index,
                    from: ch.from,
                    to: ch.to,
                    len: ch.len(),
                    records,
                    watermarks,
                    panes,
                    barriers,
                    blocked,
                    delivered: ch.delivered,
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
                clock: op.clock,
                aligning: op
                    .aligning
                    .first()
                    .map(|&(k, mask)| (k, bits(mask), op.aligning_since)),
                blocked_inputs: bits(op.blocked),
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
                        staged: if s.kind() == SinkKind::Transactional {
                            self.staged()
                        } else {
                            s.staged()
                        },
                    }
                })
                .collect(),
            received: self.sink.received,
            aligning: st.aligning.first().map(|&(k, mask)| (k, bits(mask))),
            blocked_inputs: bits(st.blocked),
            since_checkpoint: self.sink.since_commit.len(),
            finished: st.finished,
        }
    }
}

/// The first tick of the series `tick + k·every` (k ≥ 0) that is later than `t`, computed
/// without stepping through every interval in between.
fn next_tick_after(tick: f64, t: f64, every: f64) -> f64 {
    if tick > t || !every.is_finite() || every <= 0.0 {
        return if tick > t { tick } else { f64::INFINITY };
    }
    let mut k = ((t - tick) / every).floor() + 1.0;
    let mut next = tick + k * every;
    while next <= t {
        k += 1.0;
        next = tick + k * every;
    }
    next
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::processor::run;
    use crate::engine::stream::{generate, StreamParams};

    #[test]
    fn key_routing_is_stable() {
        let r: Vec<usize> = ["a", "b", "c", "d"]
            .iter()
            .map(|k| operator_for(k, 4))
            .collect();
        assert_eq!(r, vec![0, 1, 2, 3]);
        assert_eq!(key_hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(key_hash("a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn one_partition_one_operator_equals_the_processor() {
        let stream = generate(&StreamParams {
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
        assert_eq!(p.finals(), &run(&stream, engine, false).finals);
        assert!(!p.checkpoints().is_empty());
    }

    #[test]
    fn a_crash_restores_and_says_so() {
        let stream = generate(&StreamParams {
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
        let stream = generate(&StreamParams {
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
}
