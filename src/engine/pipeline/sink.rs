//! The sink node: the three sinks it feeds (the outside world), its own bookkeeping (what a
//! checkpoint restores) and the transactional sink's staging.

use std::borrow::Borrow;
use std::collections::BTreeMap;

use super::super::channel::{Message, MessageKind, Node};
use super::super::checkpoint::{Sink, SinkKind};
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
}

impl<S: Borrow<Stream>> Pipeline<S> {
    /// The sink pre-commits its open transaction for checkpoint `k`, and the checkpoint
    /// records the sink's state at the cut and where its applied panes then stood.
    pub(super) fn precommit(&mut self, k: u32) {
        let sink = &mut self.sink;
        for s in &mut sink.sinks {
            s.precommit(k);
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

    /// Panes the transactional sink holds uncommitted: its open transaction and the
    /// pre-committed ones.
    pub fn staged(&self) -> usize {
        self.sink(SinkKind::Transactional).staged()
    }
}
