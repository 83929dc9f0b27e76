//! The sink node: the three sinks it feeds (the outside world), its own bookkeeping (what a
//! checkpoint restores), the transactional sink's staging, and the outbox: what one sink
//! writes to the world and when ([`SinkWrite`]), for a writer outside the engine to carry out.

use std::borrow::Borrow;
use std::collections::BTreeMap;

use super::super::channel::{Message, MessageKind, Node};
use super::super::checkpoint::{Sink, SinkKind, Staging};
use super::super::stream::Stream;
use super::super::trigger::Pane;
use super::super::window::CellId;
use super::addressing::Receiver;
use super::alignment::Alignment;
use super::config::CheckpointMode;
use super::trace::{Outcome, StepEvent};
use super::Pipeline;

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
    /// ([`Pipeline::record_sink_writes`]).
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
    kind: SinkKind,
    staging: Staging,
    writes: Vec<SinkWrite>,
}

impl Outbox {
    fn deliver(&mut self, pane: &Pane) {
        self.writes.push(SinkWrite::Received(*pane));
        match self.kind {
            SinkKind::Additive => self.writes.push(SinkWrite::Add(*pane)),
            SinkKind::Idempotent => self.writes.push(SinkWrite::Upsert(*pane)),
            SinkKind::Transactional => self.staging.stage(*pane),
        }
    }

    fn commit(&mut self, checkpoint: Option<u32>) {
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

impl<S: Borrow<Stream>> Pipeline<S> {
    /// The sink pre-commits its open transaction for checkpoint `k`, and the checkpoint
    /// records the sink's state at the cut and where its applied panes then stood.
    pub(super) fn precommit(&mut self, k: u32) {
        let sink = &mut self.sink;
        for s in &mut sink.sinks {
            s.precommit(k);
        }
        if let Some(o) = &mut sink.outbox {
            if o.kind == SinkKind::Transactional {
                o.staging.precommit(k);
            }
        }
        let state = SinkState {
            alignment: sink.state.alignment.at_cut(),
            ..sink.state.clone()
        };
        let mark = sink.since_base + sink.since_commit.len();
        if let Some(pc) = self.pending.iter_mut().find(|pc| pc.id == k) {
            pc.sink = Some((state, mark));
        }
    }

    pub(super) fn deliver_to_sink(&mut self, c: usize) -> StepEvent {
        let nn = self.cfg.parallelism;
        let (_, i) = self.addressing().receiver_of(c);
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
            self.store_in_flight(Receiver::Sink, i, c, m);
        }
        let sink = &mut self.sink;
        sink.state.clock = sink.state.clock.max(m.arrival);
        let outcome = match m.message {
            Message::Pane(pane) => {
                for s in &mut sink.sinks {
                    s.deliver(&pane);
                }
                if let Some(o) = &mut sink.outbox {
                    o.deliver(&pane);
                }
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
                let block = self.cfg.mode == CheckpointMode::ExactlyOnce;
                let first = sink.state.alignment.barrier(checkpoint, i, block);
                if first.is_some() && self.cfg.mode == CheckpointMode::Unaligned {
                    // Pre-commit: the open transaction belongs to this checkpoint.
                    self.precommit(checkpoint);
                }
                self.settle(Receiver::Sink)
                    .unwrap_or_else(|| Outcome::Aligning {
                        checkpoint,
                        waiting: self.sink.state.alignment.waiting(checkpoint, nn, 0),
                    })
            }
            Message::End => {
                sink.state.alignment.end(i);
                let done = self.settle(Receiver::Sink);
                if self.sink.state.alignment.all_ended(nn) {
                    let sink = &mut self.sink;
                    for s in &mut sink.sinks {
                        s.commit_all();
                    }
                    if let Some(o) = &mut sink.outbox {
                        o.commit(None);
                    }
                    sink.since_base += sink.since_commit.len();
                    sink.since_commit.clear();
                    sink.state.finished = true;
                    self.pending.clear();
                    done.unwrap_or(Outcome::Finished)
                } else {
                    done.unwrap_or(Outcome::InputEnded)
                }
            }
            Message::Record { .. } | Message::Watermark { .. } | Message::Idle => {
                Outcome::InputEnded
            }
        };
        StepEvent::Delivered {
            channel: c,
            to: Node::Sink,
            kind,
            outcome,
        }
    }

    /// Records, from now on, what the sink of `kind` writes to the world; take the writes with
    /// [`Pipeline::take_sink_writes`]. Recording changes nothing the job does.
    pub fn record_sink_writes(mut self, kind: SinkKind) -> Self {
        self.sink.outbox = Some(Outbox {
            kind,
            staging: Staging::default(),
            writes: Vec::new(),
        });
        self
    }

    /// The writes recorded since the last call, in order (none unless
    /// [`Pipeline::record_sink_writes`] asked for them).
    pub fn take_sink_writes(&mut self) -> Vec<SinkWrite> {
        match &mut self.sink.outbox {
            Some(o) => std::mem::take(&mut o.writes),
            None => Vec::new(),
        }
    }

    /// Panes the transactional sink holds uncommitted: its open transaction and the
    /// pre-committed ones.
    pub fn staged(&self) -> usize {
        self.sink(SinkKind::Transactional).staged()
    }
}
