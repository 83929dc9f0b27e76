//! The pipeline drawn: its [`Topology`] now (each source, channel, operator and the sink as
//! views, the checkpoints in progress), built from the pipeline's state. What those views are
//! is `views.rs`.

use std::borrow::Borrow;

use super::addressing::{bits, Receiver};
use super::views::{
    BarrierInFlight, ChannelView, OperatorView, SinkTotal, SinkView, SourceView, Topology,
};
use super::Pipeline;
use crate::channel::Message;
use crate::stream::{KeyId, Stream};

impl<S: Borrow<Stream>> Pipeline<S> {
    /// The simulation now, for drawing.
    pub fn topology(&self) -> Topology {
        Topology {
            now: self.now,
            sources: self.source_views(),
            channels: self.channel_views(),
            operators: self.operator_views(),
            sink: self.sink_view(),
            pending_checkpoints: self.pending_checkpoints(),
            last_completed: self.checkpoints.last().map(|c| c.id),
        }
    }

    /// Every source partition now, by number, for drawing.
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
                out: !s.ended && self.outages.due(p, self.now) > self.now,
                idle: s.idle_since.is_some(),
            })
            .collect()
    }

    /// Every channel now, by number, with what is in flight on it, for drawing.
    pub fn channel_views(&self) -> Vec<ChannelView> {
        let addressing = self.addressing();
        self.channels
            .iter()
            .enumerate()
            .map(|(index, ch)| {
                let (mut records, mut watermarks, mut panes, mut idle) = (0, 0, 0, 0);
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
                        Message::Idle => idle += 1,
                        Message::End => {}
                    }
                }
                let blocked = match addressing.receiver_of(index) {
                    (Receiver::Operator(i), p) => self.operators[i].alignment.is_blocked(p),
                    (Receiver::Sink, i) => self.sink.state.alignment.is_blocked(i),
                };
                ChannelView {
                    index,
                    from: ch.from(),
                    to: ch.to(),
                    len: ch.len(),
                    records,
                    watermarks,
                    panes,
                    idle,
                    barriers,
                    blocked,
                    delivered: ch.delivered(),
                }
            })
            .collect()
    }

    /// The smallest of the operator instances' watermarks now (+∞ once all have finished):
    /// what the views would say, read without building them.
    pub(crate) fn smallest_operator_watermark(&self) -> f64 {
        self.operators
            .iter()
            .map(|op| op.processor.watermark())
            .fold(f64::INFINITY, f64::min)
    }

    /// Open (window, key) cells and estimated state bytes, each summed over the operator
    /// instances: what the views would say, read without building them.
    pub(crate) fn operator_state(&self) -> (usize, usize) {
        self.operators.iter().fold((0, 0), |(cells, bytes), op| {
            (cells + op.processor.open_cells(), bytes + op.state_bytes())
        })
    }

    /// Every operator instance now, by number, for drawing.
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
                input_watermarks: op.input_watermark.clone(),
                idle_inputs: bits(op.idle),
                behind_inputs: bits(op.behind),
                ended_inputs: bits(op.alignment.ended()),
                clock: op.clock,
                aligning: op
                    .alignment
                    .current()
                    .map(|(k, mask)| (k, bits(mask), op.aligning_since)),
                blocked_inputs: bits(op.alignment.blocked()),
                last_snapshot: op.last_snapshot,
                finished: op.finished,
                open_cells: op.processor.open_cells(),
                state_bytes: op.state_bytes(),
                counters: *op.processor.counters(),
            })
            .collect()
    }

    /// The sink now, for drawing.
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
                        staged: s.staged(),
                    }
                })
                .collect(),
            received: self.sink.received,
            aligning: st.alignment.current().map(|(k, mask)| (k, bits(mask))),
            blocked_inputs: bits(st.alignment.blocked()),
            since_checkpoint: self.sink.since_commit.len(),
            finished: st.finished,
        }
    }
}
