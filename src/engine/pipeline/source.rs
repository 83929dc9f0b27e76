//! Source partitions: their state, their snapshots (offset, watermark generator, channel
//! links) and the emission of records and watermarks.

use std::borrow::Borrow;

use super::super::channel::{Link, Message};
use super::super::stream::Stream;
use super::super::watermark::Watermark;
use super::trace::StepEvent;
use super::Pipeline;

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
}

#[derive(Debug, Clone)]
pub(super) struct SourceSnapshot {
    pub(super) source: Source,
    pub(super) links: Vec<Link>,
}

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
                            .clone()
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
            for i in 0..nn {
                self.channels
                    .send(addressing.source_to_operator(p, i), now, Message::End);
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
            addressing.source_to_operator(p, target),
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
                    self.channels.send(
                        addressing.source_to_operator(p, i),
                        now,
                        Message::Watermark { watermark: wm },
                    );
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
}
