//! The sink node: the three sinks it feeds (the outside world), its own bookkeeping (what a
//! checkpoint restores), the transactional sink's staging, and the outbox: what one sink
//! writes to the world and when ([`SinkWrite`]), for a writer outside the engine to carry out.

use std::borrow::Borrow;

use super::addressing::Receiver;
use super::config::CheckpointMode;
use super::nodes::{Outbox, SinkState, SinkWrite};
use super::steps::{Outcome, StepEvent};
use super::Pipeline;
use crate::channel::{Message, MessageKind, Node};
use crate::checkpoint::{SinkKind, Staging};
use crate::stream::Stream;

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
        if let Some(pc) = self.pending_mut(k) {
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
                if self.cfg.mode == CheckpointMode::Unaligned {
                    self.barrier_in_flight(Receiver::Sink, c, checkpoint, first.is_some());
                }
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
