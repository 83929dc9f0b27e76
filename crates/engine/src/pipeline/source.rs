//! Source partitions: their state, their snapshots (offset, watermark generator, idleness,
//! channel links) and the emission of records and watermarks.
//!
//! Idleness (with an idle timeout, as Flink's `WatermarkStrategy.withIdleness`): a partition
//! that has emitted no record for the timeout since its last one (or since the start) marks
//! itself idle at exactly that moment and sends [`Message::Idle`] on all its channels. Its
//! next record makes it active again; that record carries its watermark to the operator it
//! goes to, and a watermark message carries it on every other channel, so every operator
//! hears the partition is back.

use std::borrow::Borrow;

use super::nodes::SourceSnapshot;
use super::steps::StepEvent;
use super::Pipeline;
use crate::channel::Message;
use crate::stream::Stream;

impl<S: Borrow<Stream>> Pipeline<S> {
    pub(super) fn source_snapshots(&self) -> Vec<SourceSnapshot> {
        let nn = self.cfg.parallelism;
        let addressing = self.addressing();
        self.sources
            .iter()
            .enumerate()
            .map(|(p, s)| SourceSnapshot {
                source: s.clone(),
                links: (0..nn)
                    .map(|i| {
                        self.channels[addressing.source_to_operator(p, i)]
                            .link()
                            .mark()
                    })
                    .collect(),
            })
            .collect()
    }

    pub(super) fn emit(&mut self, p: usize) -> StepEvent {
        let nn = self.cfg.parallelism;
        let addressing = self.addressing();
        let now = self.now;
        let offset = self.sources[p].offset;
        let Some(&idx) = self.partitions[p].get(offset) else {
            let src = &mut self.sources[p];
            src.ended = true;
            self.refresh_due_of(p);
            for i in 0..nn {
                self.channels
                    .send(addressing.source_to_operator(p, i), now, Message::End);
            }
            self.track_input_end();
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
        src.last_active = now;
        src.sent_watermark[target] = wm;
        self.channels.send(
            addressing.source_to_operator(p, target),
            now,
            Message::Record {
                event: e,
                stream_offset: idx as usize,
                watermark: wm,
                replayed,
            },
        );
        if let Some(since) = src.idle_since.take() {
            // Active again: every operator hears it, by this record or a watermark.
            src.idle_closed += 1;
            self.idle_log[p].push((since, now));
            for i in (0..nn).filter(|&i| i != target) {
                src.sent_watermark[i] = wm;
                self.channels.send(
                    addressing.source_to_operator(p, i),
                    now,
                    Message::Watermark { watermark: wm },
                );
            }
        }
        if e.proc_time >= src.next_watermark_tick {
            let every = self.cfg.watermark_every;
            src.next_watermark_tick = ((e.proc_time / every).floor() + 1.0) * every;
            for i in 0..nn {
                if src.sent_watermark[i] < wm {
                    src.sent_watermark[i] = wm;
                    self.channels.send(
                        addressing.source_to_operator(p, i),
                        now,
                        Message::Watermark { watermark: wm },
                    );
                }
            }
        }
        self.emitted_total += 1;
        self.refresh_due_of(p);
        StepEvent::Emitted {
            partition: p,
            offset,
            stream_offset: idx as usize,
            operator: target,
            replayed,
        }
    }
}

impl<S: Borrow<Stream>> Pipeline<S> {
    /// Partition `p` marks itself idle now and says so on all its channels.
    pub(super) fn go_idle(&mut self, p: usize) -> StepEvent {
        let addressing = self.addressing();
        let now = self.now;
        self.sources[p].idle_since = Some(now);
        for i in 0..self.cfg.parallelism {
            self.channels
                .send(addressing.source_to_operator(p, i), now, Message::Idle);
        }
        StepEvent::PartitionIdle { partition: p }
    }
}
