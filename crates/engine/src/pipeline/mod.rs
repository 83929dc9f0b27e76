//! Checkpoints across parallel operators: P source partitions → N keyed window operators → one
//! sink, joined by FIFO `Channel`s, simulated one delivery at a time.
//!
//! - **Partitioning.** By index (the default), event `i` of the stream (processing order) goes to
//!   source partition `i mod P` (round-robin); by key, a key's events all go to one partition,
//!   `fnv1a64("partitions" ++ key name)` mixed, `mod P`
//!   ([`partition_for`](PipelineConfig::partition_for)). A source emits its events at their
//!   processing times, each carrying the partition's watermark just after it; every
//!   `watermark_every` ms of processing time it also sends its watermark on the channels no record
//!   carried it on.
//! - **Outages and idleness** ([`Outage`], `partition`). An outage silences a partition for a
//!   span of processing time and emits what it held back at the heal; its watermark stays
//!   where its last record left it, and so does every operator's, the smallest of its
//!   inputs'. With an idle timeout a silent partition marks itself idle and operators leave it
//!   out of their watermark until it speaks again (Flink's `withIdleness` and
//!   `StatusWatermarkValve`, in `source` and `operator`). [`Pipeline::partitions`] and
//!   [`Pipeline::watermark_stats`] say what each partition did and how long the combined
//!   watermark stalled.
//! - **Keying.** A key goes to operator `fnv1a64(key name) mod N`
//!   ([`operator_for`](PipelineConfig::operator_for)): stable across runs and platforms.
//! - **Schedule.** Each channel draws its messages' transit times from a generator seeded by
//!   the schedule seed and the channel's number, and keeps them FIFO. The simulation takes the
//!   earliest thing due (checkpoint trigger, source emission, operator or sink delivery; ties in
//!   that order, then by index); an operator or the sink takes, among its unblocked inputs, the
//!   head with the earliest arrival; a partition's idle mark comes after an emission due at
//!   the same time. A checkpoint trigger is due only while some source has work to come (a
//!   partition cut off for good does not keep the job checkpointing), and skips its ticks
//!   while the sources are silent. It looks at the sources alone, never at what is in flight:
//!   a restore puts the sources back exactly, so a replay injects the same barriers, draws the
//!   same transit times and takes the first run's course. Processing time is the simulation's
//!   clock.
//! - **Watermarks.** An operator's watermark is the smallest of its inputs' watermarks (an ended
//!   input counts as +∞, an idle one is left out), held monotone; it is given to
//!   [`Processor::step_with_watermark`].
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
//!   the snapshot and replayed; replayed, they count again, but the watermark valve, which
//!   took them in before the snapshot, does not take them again.
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
//! - **By offsets.** [`Pipeline::run_to_offset`] runs until the sources have emitted a number
//!   of events and delivers what is in flight; [`Pipeline::run_schedule`] applies a schedule
//!   by offsets ([`ScheduleStep`](super::checkpoint::ScheduleStep)) that way. At one partition,
//!   one operator and instant channels, this is block 6's single job
//!   ([`Job`](super::checkpoint::Job)).
//!
//! Drawing it: [`Pipeline::step`] (or [`Pipeline::run_until`] a processing time) moves the
//! simulation on and says what happened ([`Step`], [`StepEvent`], [`Outcome`]);
//! [`Pipeline::topology`] is a read-only [`Topology`] of sources ([`SourceView`]: offset, next
//! barrier, replaying), channels ([`ChannelView`]: records, watermarks and panes in flight,
//! [`BarrierInFlight`] with their queue positions, blocked), operator instances
//! ([`OperatorView`]: aligning on which checkpoint, which inputs blocked, last snapshot) and the
//! sink ([`SinkView`]: the three sinks' totals); [`Pipeline::checkpoints`] and
//! [`Pipeline::crashes`] are the logs ([`CrashRecord`] displays as the sentence a screen shows).
//!
//! One file per concern: `config` (the dials), `addressing` (key routing and partitioning, channel
//! numbering), `schedule` (what is due next), `source` and `operator` (the nodes and their
//! deliveries), `alignment` (barriers, one routine for operators and the sink), `sink` (the three
//! sinks and the transactional staging), `checkpoint` (barriers injected, checkpoints completed),
//! `restore` (crashes), `excess` (what each crash added to the additive sink, from the job run to
//! the end with and without it), `offsets` (running to a source offset, schedules by offsets),
//! `audit` (the exactness of a cut), `partition` (outages, what each partition did, the combined
//! watermark's stalls and peak state), `steps` (what a step reports) and `views` (the pipeline as
//! drawn, which `topology` builds).

mod addressing;
mod alignment;
mod audit;
mod barriers;
mod checkpoint;
mod config;
mod excess;
mod nodes;
mod offsets;
mod operator;
mod outages;
mod partition;
mod restore;
mod schedule;
mod sink;
mod source;
mod steps;
#[cfg(test)]
mod tests;
mod topology;
mod views;

use std::borrow::Borrow;
use std::collections::BTreeMap;

use super::channel::{Channel, Channels, Link};
use super::checkpoint::{CheckpointLog, Sink, SinkKind};
use super::lateness::Dropped;
use super::processor::{Counters, Output, Processor};
use super::stream::{KeyId, Stream};
use super::trigger::Pane;
use super::watermark::Watermark;
use super::window::{CellId, WindowId};

pub use crate::channel::{MessageKind, Node};
pub(crate) use addressing::Addressing;
pub use audit::Audit;
pub(crate) use audit::Ledger;
pub use checkpoint::CompletedCheckpoint;
pub use config::{CheckpointMode, PartitionBy, PipelineConfig, PipelineError};
pub use excess::CrashExcess;
pub use nodes::SinkWrite;
pub use partition::{Outage, PartitionView, WatermarkStats};
pub use restore::{CrashRecord, CrashTarget};
pub use steps::{Outcome, Step, StepEvent};
pub use views::{
    BarrierInFlight, ChannelView, OperatorView, SinkTotal, SinkView, SourceView, Topology,
};

use alignment::Alignment;
use checkpoint::{InFlightLog, PendingCheckpoint, RestorePoint};
use nodes::{Operator, ReplayMarks, SinkNode, SinkState, Source, SourceDue};
use partition::{Outages, WatermarkTracker};

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
    /// What each source does next (its next event and when it is due, its end of input, or
    /// nothing), kept as the sources move.
    due: Vec<SourceDue>,
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
    /// Unaligned checkpoints' in-flight data, held once for every checkpoint storing it.
    in_flight: InFlightLog,
    /// Completed checkpoints; a crash restores the latest one's state, or the start's before
    /// the first.
    checkpoints: CheckpointLog<CompletedCheckpoint, RestorePoint>,
    crashes: Vec<CrashRecord>,
    /// Scheduled crashes, latest first.
    scheduled: Vec<(f64, CrashTarget)>,
    /// Per partition, the furthest offset ever emitted (a crash does not undo it).
    high_water: Vec<usize>,
    out: Output,
    dropped: BTreeMap<(usize, WindowId), Dropped>,
    /// Records emitted, replays included.
    emitted_total: u64,
    /// Steps taken.
    steps: u64,
    /// When partitions deliver nothing (data beside the dials, a function of time).
    outages: Outages,
    /// Per partition, the idle spans it closed in the current timeline: (idle, active again).
    idle_log: Vec<Vec<(f64, f64)>>,
    /// The combined watermark's stalls and the peak state.
    tracker: WatermarkTracker,
}

impl<S: Borrow<Stream>> Pipeline<S> {
    /// A pipeline before its first event.
    pub fn new(stream: S, cfg: PipelineConfig) -> Result<Self, PipelineError> {
        cfg.validate()?;
        let s: &Stream = stream.borrow();
        let (np, nn) = (cfg.partitions, cfg.parallelism);
        let max_delay = s.max_delay();
        let nkeys = s
            .events
            .iter()
            .map(|e| e.key as usize + 1)
            .max()
            .unwrap_or(0)
            .max(s.keys.len());
        let key_name = |k: usize| match s.keys.get(k) {
            Some(name) => name.clone(),
            None => k.to_string(),
        };
        let route = (0..nkeys)
            .map(|k| PipelineConfig::operator_for(&key_name(k), nn))
            .collect();
        let mut partitions = vec![Vec::new(); np];
        match cfg.partition_by {
            // Round-robin, one partition at a time: event p, p + P, p + 2P, ... (a division
            // per event was a few per cent of a 1M-event job's re-run).
            PartitionBy::Index => {
                for (p, offsets) in partitions.iter_mut().enumerate() {
                    *offsets = (p..s.len()).step_by(np).map(|i| i as u32).collect();
                }
            }
            PartitionBy::Key => {
                let of_key: Vec<usize> = (0..nkeys)
                    .map(|k| PipelineConfig::partition_for(&key_name(k), np))
                    .collect();
                for (i, e) in s.events.iter().enumerate() {
                    partitions[of_key[e.key as usize]].push(i as u32);
                }
            }
        }
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
            .map(|_| {
                Source::new(
                    Watermark::new(
                        cfg.engine.watermark.under(cfg.engine.conventions),
                        max_delay,
                    ),
                    nn,
                    start,
                )
            })
            .collect();
        let operators = (0..nn)
            .map(|_| Operator {
                processor: Processor::new(cfg.engine, max_delay),
                input_watermark: vec![f64::NEG_INFINITY; np],
                idle: 0,
                behind: 0,
                alignment: Alignment::default(),
                aligning_since: f64::NEG_INFINITY,
                last_snapshot: None,
                finished: false,
                clock: f64::NEG_INFINITY,
                ledger: cfg.audit.then(|| Ledger::new(s.len())),
                replay: if cfg.mode == CheckpointMode::AtLeastOnce {
                    ReplayMarks::new(np)
                } else {
                    ReplayMarks::default()
                },
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
            received: 0,
            log: Vec::new(),
            outbox: None,
        };
        let next_tick = match cfg.checkpoint_every {
            Some(every) => ((start / every).floor() + 1.0) * every,
            None => f64::INFINITY,
        };
        let addressing_channels = channels.len();
        let mut pipeline = Pipeline {
            stream,
            cfg,
            partitions,
            route,
            sources,
            due: Vec::new(),
            operators,
            sink,
            channels,
            heads: vec![(f64::INFINITY, usize::MAX); nn + 1],
            now: start,
            next_tick,
            next_id: 1,
            pending: Vec::new(),
            in_flight: InFlightLog::new(addressing_channels),
            checkpoints: CheckpointLog::new(RestorePoint {
                id: 0,
                time: start,
                channel_state: BTreeMap::new(),
                next_tick,
                sources: Vec::new(),
                operators: Vec::new(),
                sink: SinkState::default(),
            }),
            crashes: Vec::new(),
            scheduled: Vec::new(),
            high_water: vec![0; np],
            out: Output::default(),
            dropped: BTreeMap::new(),
            emitted_total: 0,
            steps: 0,
            outages: Outages::new(np),
            idle_log: vec![Vec::new(); np],
            tracker: WatermarkTracker::new(start, nn),
        };
        pipeline.refresh_due();
        pipeline.checkpoints = CheckpointLog::new(RestorePoint {
            id: 0,
            time: start,
            channel_state: BTreeMap::new(),
            next_tick,
            sources: pipeline.source_snapshots(),
            operators: (0..nn).map(|i| pipeline.operator_snapshot(i)).collect(),
            sink: pipeline.sink.state.clone(),
        });
        Ok(pipeline)
    }

    /// The whole stream the sources read, in processing order.
    pub fn stream(&self) -> &Stream {
        self.stream.borrow()
    }

    /// The dials it runs with: widths, channels' transit, checkpoint mode and interval, engine.
    pub fn config(&self) -> &PipelineConfig {
        &self.cfg
    }

    /// How the channels are numbered.
    pub(crate) fn addressing(&self) -> Addressing {
        Addressing::new(self.cfg.partitions, self.cfg.parallelism)
    }

    /// The simulation's processing-time clock, ms.
    pub fn now(&self) -> f64 {
        self.now
    }

    /// Steps taken so far (crashes, checkpoint triggers, emissions and deliveries).
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The operator instance of a key.
    pub fn operator_of(&self, key: KeyId) -> usize {
        self.route.get(key as usize).copied().unwrap_or(0)
    }

    /// Records the sources have emitted, replays included.
    pub fn emitted_total(&self) -> u64 {
        self.emitted_total
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
        self.checkpoints.records()
    }

    /// The latest completed checkpoint, the one a crash restores (`None` before the first).
    pub fn last_completed(&self) -> Option<&CompletedCheckpoint> {
        self.checkpoints.last()
    }

    /// Completed checkpoints whose whole state (operators, sources, in-flight data) is held in
    /// memory to be restored: the latest one only (none before the first).
    pub fn snapshots_held(&self) -> usize {
        self.checkpoints.snapshots_held()
    }

    /// Checkpoints whose barriers are still travelling.
    pub fn pending_checkpoints(&self) -> Vec<u32> {
        self.pending.iter().map(|c| c.id).collect()
    }

    /// Every crash so far, oldest first (a crash's record survives the replay it causes).
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

    /// The operators' counters, summed (they roll back with a crash); `state_entries_max` is
    /// the sum of each operator's own peak.
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
            c.ttl_expired += o.ttl_expired;
            // Each operator's own peak, summed: a bound on what the job held at once.
            c.state_entries_max += o.state_entries_max;
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
}
