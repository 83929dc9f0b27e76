//! Keyed window operator instances: their state, the delivery of records, watermarks, idle
//! marks, barriers and the end of input to them, and their snapshots.
//!
//! An operator's input watermark follows Flink's `StatusWatermarkValve`. Each input is active
//! or idle ([`Message::Idle`] makes it idle; a record or watermark from it makes it active
//! again), and an active input is caught up or behind. The watermark is the smallest over the
//! active, caught-up inputs (an ended input counts as +∞). An input that comes back with a
//! watermark below the operator's does not hold it back: it is behind until its own watermark
//! reaches the operator's, and only then counts again. When every live input is idle, the
//! watermark is flushed to the largest of theirs (as Flink does when the last active input
//! goes idle): nothing is coming, so windows close on what the furthest partition has seen.
//! When some input is active but none caught up, the watermark holds. The processor holds it
//! monotone either way.

use std::borrow::Borrow;

use super::addressing::{bit, full, Receiver};
use super::config::CheckpointMode;
use super::nodes::OperatorSnapshot;
use super::steps::{Outcome, StepEvent};
use super::Pipeline;
use crate::channel::{Message, MessageKind, Node};
use crate::lateness::Dropped;
use crate::stream::{Event, Stream};

impl<S: Borrow<Stream>> Pipeline<S> {
    pub(super) fn operator_snapshot(&self, i: usize) -> OperatorSnapshot {
        let out = self.addressing().operator_to_sink(i);
        OperatorSnapshot {
            operator: self.operators[i].clone(),
            link: self.channels[out].link().mark(),
        }
    }

    /// Sends what the operator's processor emitted on towards the sink.
    pub(super) fn forward(&mut self, i: usize) {
        let c = self.addressing().operator_to_sink(i);
        let now = self.now;
        for pane in &self.out.panes {
            self.channels.send(c, now, Message::Pane(*pane));
        }
        for f in &self.out.finals {
            self.channels.send(c, now, Message::Final(*f));
        }
        self.out.clear();
    }

    pub(super) fn deliver_to_operator(&mut self, i: usize, c: usize) -> StepEvent {
        let np = self.cfg.partitions;
        let (_, p) = self.addressing().receiver_of(c);
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
            self.store_in_flight(Receiver::Operator(i), p, c, m);
        }
        let at_least_once = self.cfg.mode == CheckpointMode::AtLeastOnce;
        let op = &mut self.operators[i];
        op.clock = op.clock.max(pt);
        // At-least-once: a message the restored state has taken in already counts again, but
        // the watermark valve does not take it again.
        let again = at_least_once && op.replay.take(p);
        let outcome = match m.message {
            Message::Record {
                event,
                stream_offset,
                watermark,
                replayed,
            } => {
                if !again {
                    op.input_watermark[p] = op.input_watermark[p].max(watermark);
                    op.hear_from(p);
                }
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
                    watermark: arrival.watermark,
                    replayed,
                    panes,
                }
            }
            Message::Watermark { watermark } => {
                if !again {
                    op.input_watermark[p] = op.input_watermark[p].max(watermark);
                    op.hear_from(p);
                }
                let wm = op.watermark_in();
                op.processor.advance(wm, pt, &mut self.out);
                let watermark = op.processor.watermark();
                self.out.dropped.clear();
                self.forward(i);
                Outcome::Watermark { watermark }
            }
            Message::Idle => {
                if !again {
                    op.idle |= bit(p);
                    op.behind &= !bit(p);
                }
                let wm = op.watermark_in();
                op.processor.advance(wm, pt, &mut self.out);
                let watermark = op.processor.watermark();
                self.out.dropped.clear();
                self.forward(i);
                Outcome::InputIdle { watermark }
            }
            Message::Barrier { checkpoint } => {
                let block = self.cfg.mode == CheckpointMode::ExactlyOnce;
                let first = op.alignment.barrier(checkpoint, p, block);
                if self.cfg.mode == CheckpointMode::Unaligned {
                    self.barrier_in_flight(Receiver::Operator(i), c, checkpoint, first.is_some());
                }
                let op = &mut self.operators[i];
                if at_least_once {
                    op.replay.barrier(checkpoint, p);
                }
                if first == Some(true) {
                    op.aligning_since = self.now;
                }
                let snap = if self.cfg.mode == CheckpointMode::Unaligned {
                    let snap = first
                        .is_some()
                        .then(|| self.snapshot_operator(i, checkpoint));
                    let settled = self.settle(Receiver::Operator(i));
                    snap.or(settled)
                } else {
                    self.settle(Receiver::Operator(i))
                };
                snap.unwrap_or_else(|| Outcome::Aligning {
                    checkpoint,
                    waiting: self.operators[i]
                        .alignment
                        .waiting(checkpoint, np, full(np)),
                })
            }
            Message::End => {
                op.alignment.end(p);
                op.idle &= !bit(p);
                op.behind &= !bit(p);
                if op.alignment.all_ended(np) {
                    let snap = self.settle(Receiver::Operator(i));
                    let op = &mut self.operators[i];
                    op.processor.finish(&mut self.out);
                    op.finished = true;
                    self.out.dropped.clear();
                    self.forward(i);
                    let out = self.addressing().operator_to_sink(i);
                    self.channels.send(out, self.now, Message::End);
                    snap.unwrap_or(Outcome::Finished)
                } else {
                    let wm = op.watermark_in();
                    op.processor.advance(wm, pt, &mut self.out);
                    self.out.dropped.clear();
                    self.forward(i);
                    self.settle(Receiver::Operator(i))
                        .unwrap_or(Outcome::InputEnded)
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

    /// Operator `i` snapshots for checkpoint `k` and forwards its barrier.
    pub(super) fn snapshot_operator(&mut self, i: usize, k: u32) -> Outcome {
        let op = &mut self.operators[i];
        op.last_snapshot = Some(k);
        let waited = if self.cfg.mode == CheckpointMode::Unaligned {
            0.0
        } else {
            (self.now - op.aligning_since).max(0.0)
        };
        op.aligning_since = self.now;
        let out = self.addressing().operator_to_sink(i);
        self.channels
            .send(out, self.now, Message::Barrier { checkpoint: k });
        let mut snap = self.operator_snapshot(i);
        snap.operator.alignment = snap.operator.alignment.at_cut();
        if self.cfg.mode == CheckpointMode::AtLeastOnce {
            snap.operator.replay = self.operators[i].replay.at_cut(k);
        }
        let bytes = snap.operator.state_bytes();
        if let Some(pc) = self.pending_mut(k) {
            pc.operators[i] = Some(snap);
            pc.alignment[i] = waited;
        }
        Outcome::Snapshot {
            checkpoint: k,
            bytes,
        }
    }
}
