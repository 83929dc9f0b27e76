//! The state each node of the job keeps, and what a checkpoint snapshots of it: a source
//! partition (its offset, watermark generator and idleness) and what it does next, an operator
//! instance (its processor, its inputs' watermarks and barriers, the at-least-once replay
//! marks), the sink node (its three sinks and bookkeeping) and its outbox of writes. It
//! imports nothing of the [`Pipeline`](super::Pipeline) that holds them: what the pipeline
//! does with a source, an operator or the sink is in `source.rs`, `operator.rs` and `sink.rs`.

use std::collections::BTreeMap;

use super::addressing::bit;
use super::alignment::Alignment;
use super::audit::Ledger;
use crate::channel::LinkMark;
use crate::checkpoint::{Sink, SinkKind, Staging};
use crate::processor::Processor;
use crate::trigger::Pane;
use crate::watermark::Watermark;
use crate::window::CellId;

/// A source partition's state.
#[derive(Debug, Clone)]
pub(super) struct Source {
    /// Events of the partition emitted so far: the offset to resume from.
    pub(super) offset: usize,
    pub(super) ended: bool,
    pub(super) watermark: Watermark,
    /// The last watermark sent on each of its channels.
    pub(super) sent_watermark: Vec<f64>,
    pub(super) next_watermark_tick: f64,
    /// Processing time of its last record (the start before the first): idleness counts from
    /// here.
    pub(super) last_active: f64,
    /// Since when it has been idle, if it is.
    pub(super) idle_since: Option<f64>,
    /// Idle spans it has closed (by emitting again) in this timeline: the pipeline's record of
    /// them is cut back to this many on a restore.
    pub(super) idle_closed: usize,
}

impl Source {
    /// A partition before its first record, at processing time `start`.
    pub(super) fn new(watermark: Watermark, operators: usize, start: f64) -> Self {
        Source {
            offset: 0,
            ended: false,
            watermark,
            sent_watermark: vec![f64::NEG_INFINITY; operators],
            next_watermark_tick: f64::NEG_INFINITY,
            last_active: start,
            idle_since: None,
            idle_closed: 0,
        }
    }
}

#[derive(Debug, Clone)]
pub(super) struct SourceSnapshot {
    pub(super) source: Source,
    pub(super) links: Vec<LinkMark>,
}

/// What a source does next, kept as the sources move
/// ([`Pipeline::refresh_due_of`](super::Pipeline::refresh_due_of)) so that the schedule reads
/// one small array at each step rather than every source's event.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum SourceDue {
    /// An event, due then: processing time, ms (+∞: in an outage not healed).
    Event(f64),
    /// Its end of input: it has emitted its last event.
    End,
    /// Nothing: it has ended.
    Ended,
}

/// An operator instance's state.
#[derive(Debug, Clone)]
pub(super) struct Operator {
    pub(super) processor: Processor,
    /// The latest watermark received on each input.
    pub(super) input_watermark: Vec<f64>,
    /// Inputs idle (bit `p`: input `p`), left out of the watermark.
    pub(super) idle: u64,
    /// Inputs active again but behind the operator's watermark, left out until they reach it.
    pub(super) behind: u64,
    /// Its inputs' barriers.
    pub(super) alignment: Alignment,
    /// Since when it has been aligning (its first barrier after its last snapshot).
    pub(super) aligning_since: f64,
    pub(super) last_snapshot: Option<u32>,
    pub(super) finished: bool,
    /// The latest processing time it has seen.
    pub(super) clock: f64,
    pub(super) ledger: Option<Ledger>,
    /// At-least-once: what its state has already taken in of what is to come, per input.
    pub(super) replay: ReplayMarks,
}

/// At-least-once bookkeeping of an operator's inputs. An operator snapshots at a checkpoint's
/// last barrier, so its snapshot has taken in what its faster inputs delivered after their
/// barrier; after a restore those messages come again. Their records count again (the
/// at-least-once over-count), but the watermark valve (each input's watermark, idle and
/// behind marks) has taken them in already: taken again, against the valve as it stood at the
/// last barrier, an old idle mark or record could move the watermark past anything the first
/// run had there, and records the snapshot never held would then be dropped (lost). So the
/// valve takes each message once.
#[derive(Debug, Clone, Default)]
pub(super) struct ReplayMarks {
    /// Per input, messages taken so far.
    pub(super) taken: Vec<u64>,
    /// Per input, the checkpoints whose barrier it delivered and `taken` just after it, oldest
    /// first; dropped once their checkpoint is snapshotted.
    pub(super) barriers: Vec<Vec<(u32, u64)>>,
    /// Per input, messages still to come that the state has already taken in (a restored
    /// snapshot's faster inputs' messages after their barrier).
    pub(super) absorbed: Vec<u64>,
}

impl ReplayMarks {
    pub(super) fn new(inputs: usize) -> Self {
        ReplayMarks {
            taken: vec![0; inputs],
            barriers: vec![Vec::new(); inputs],
            absorbed: vec![0; inputs],
        }
    }

    /// A message is taken from input `p`: whether the state had taken it in already.
    #[inline]
    pub(super) fn take(&mut self, p: usize) -> bool {
        self.taken[p] += 1;
        match self.absorbed.get_mut(p) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        }
    }

    /// Checkpoint `k`'s barrier was the message just taken from input `p`.
    pub(super) fn barrier(&mut self, k: u32, p: usize) {
        self.barriers[p].push((k, self.taken[p]));
    }

    /// What a snapshot for checkpoint `k` keeps: per input, the messages after its barrier
    /// taken so far, with those still to come from an earlier restore, are absorbed; the
    /// barriers of `k` and older are done with.
    pub(super) fn at_cut(&mut self, k: u32) -> Self {
        let mut absorbed = self.absorbed.clone();
        for (p, marks) in self.barriers.iter_mut().enumerate() {
            if let Some(&(_, at)) = marks.iter().find(|&&(id, _)| id == k) {
                absorbed[p] += self.taken[p].saturating_sub(at);
            }
            marks.retain(|&(id, _)| id > k);
        }
        ReplayMarks {
            taken: self.taken.clone(),
            barriers: vec![Vec::new(); self.barriers.len()],
            absorbed,
        }
    }
}

impl Operator {
    /// The watermark its inputs allow: the smallest over the active, caught-up live inputs;
    /// the largest of the idle ones when every live input is idle; −∞ (hold) when the active
    /// ones are all behind; +∞ when every input has ended.
    pub(super) fn watermark_in(&self) -> f64 {
        let mut wm = f64::INFINITY;
        if self.idle | self.behind == 0 {
            for (p, &w) in self.input_watermark.iter().enumerate() {
                if !self.alignment.is_ended(p) && w < wm {
                    wm = w;
                }
            }
            return wm;
        }
        let (mut active, mut caught_up, mut idle) = (false, false, None::<f64>);
        for (p, &w) in self.input_watermark.iter().enumerate() {
            if self.alignment.is_ended(p) {
                continue;
            }
            if self.idle & bit(p) != 0 {
                idle = Some(idle.map_or(w, |m| m.max(w)));
                continue;
            }
            active = true;
            if self.behind & bit(p) == 0 {
                caught_up = true;
                wm = wm.min(w);
            }
        }
        match (caught_up, active, idle) {
            (true, _, _) => wm,
            (false, true, _) => f64::NEG_INFINITY,
            (false, false, Some(max)) => max,
            (false, false, None) => f64::INFINITY,
        }
    }

    /// A record or watermark came on input `p` (its watermark already taken in): an idle
    /// input is active again, behind if below the operator's watermark; a behind one is caught
    /// up once it reaches it.
    #[inline]
    pub(super) fn hear_from(&mut self, p: usize) {
        if (self.idle | self.behind) & bit(p) == 0 {
            return;
        }
        let b = bit(p);
        let current = self.processor.watermark();
        if self.idle & b != 0 {
            self.idle &= !b;
            self.behind |= b;
        }
        if self.input_watermark[p] >= current {
            self.behind &= !b;
        }
    }

    pub(super) fn state_bytes(&self) -> usize {
        self.processor.state_bytes() + self.input_watermark.len() * 8 + 48
    }
}

#[derive(Debug, Clone)]
pub(super) struct OperatorSnapshot {
    pub(super) operator: Operator,
    pub(super) link: LinkMark,
}

/// The sink's own bookkeeping (what a checkpoint restores; the sinks' contents are the world).
#[derive(Debug, Clone, Default)]
pub(super) struct SinkState {
    /// Its inputs' barriers.
    pub(super) alignment: Alignment,
    pub(super) finished: bool,
    pub(super) clock: f64,
}

#[derive(Debug, Clone)]
pub(super) struct SinkNode {
    pub(super) state: SinkState,
    pub(super) sinks: Vec<Sink>,
    /// Final values by cell, upserted (a replayed finalisation overwrites itself).
    pub(super) finals: BTreeMap<CellId, u64>,
    /// Panes applied since the last completed checkpoint's cut: what a crash makes the sinks
    /// receive again.
    pub(super) since_commit: Vec<(CellId, i64)>,
    /// How many panes were dropped from the front of `since_commit` so far.
    pub(super) since_base: usize,
    pub(super) received: u64,
    pub(super) log: Vec<Pane>,
    /// What the sink of one kind writes, recorded when asked for
    /// ([`Pipeline::record_sink_writes`](super::Pipeline::record_sink_writes)).
    pub(super) outbox: Option<Outbox>,
}

/// One write of a sink to the outside world, in the order the sink makes them. The engine says
/// what to write and when to commit; a writer (a file, a database) carries it out.
#[derive(Debug, Clone, PartialEq)]
pub enum SinkWrite {
    /// A pane reached the sink (replays included): the run's record of the panes received.
    Received(Pane),
    /// The additive sink adds the pane's value to what its (window, key, pane index) holds.
    Add(Pane),
    /// The idempotent sink upserts the pane on (window, key, pane index).
    Upsert(Pane),
    /// The transactional sink commits these panes in one transaction: checkpoint `Some(k)`
    /// completed, or the input ended (`None`) and everything staged commits.
    Commit {
        /// The checkpoint that completed, `None` at the end of input.
        checkpoint: Option<u32>,
        /// The panes staged for it, in the order they reached the sink.
        panes: Vec<Pane>,
    },
}

/// The writes of one sink kind not yet taken, and the transactional kind's staging (the same
/// rule as the transactional [`Sink`]'s: staged at delivery, pre-committed at the barrier,
/// committed when the checkpoint completes, lost in a crash).
#[derive(Debug, Clone)]
pub(super) struct Outbox {
    pub(super) kind: SinkKind,
    pub(super) staging: Staging,
    pub(super) writes: Vec<SinkWrite>,
}

impl Outbox {
    pub(super) fn deliver(&mut self, pane: &Pane) {
        self.writes.push(SinkWrite::Received(*pane));
        match self.kind {
            SinkKind::Additive => self.writes.push(SinkWrite::Add(*pane)),
            SinkKind::Idempotent => self.writes.push(SinkWrite::Upsert(*pane)),
            SinkKind::Transactional => self.staging.stage(*pane),
        }
    }

    pub(super) fn commit(&mut self, checkpoint: Option<u32>) {
        if self.kind != SinkKind::Transactional {
            return;
        }
        let panes = match checkpoint {
            Some(k) => self.staging.take(k),
            None => self.staging.take_all(),
        };
        self.writes.push(SinkWrite::Commit { checkpoint, panes });
    }
}

impl SinkNode {
    /// Checkpoint `k` completed: the outbox's transactional sink commits its transaction.
    pub(super) fn commit_outbox(&mut self, k: u32) {
        if let Some(o) = &mut self.outbox {
            o.commit(Some(k));
        }
    }

    /// The job crashed: what the outbox's transactional sink staged is lost.
    pub(super) fn abort_outbox(&mut self) {
        if let Some(o) = &mut self.outbox {
            o.staging.clear();
        }
    }
}
