//! A live input (`--input -` from a producer): the stream grows as batches of rows arrive
//! ([`Feed`]), and the run goes on over the new events instead of running again. Pure: the
//! batches are messages, read off the UI task by `io::live`.
//!
//! The stream stays in processing-time order: a row timed before rows already in (a
//! processing-time column out of order) is placed among them, stably, as a file's rows are
//! sorted; if the run has already taken events after it, the run is made again. So is a
//! perfect watermark's run whenever the largest delay grows (it is the perfect watermark's
//! lag), and the parallel job's at every batch.
//!
//! Playing, the playhead follows the live edge: every batch takes it to the last event.
//! Paused, it stays; Space (playing again) and End catch up. The input's end (or a bad row
//! that stops it) closes the stream: the run can then finish, and is run again once, so the
//! score and the frontier are the whole input's.

use std::sync::Arc;

use crate::scenario::{Oracle, Scenario};
use twoclocks_engine::stream::Stream;
use twoclocks_engine::watermark::WatermarkKind;
use twoclocks_engine::{Event, WindowFn};
use twoclocks_io::live::{Batch, Feed};

use super::App;

/// Where a live input stands.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Live {
    /// The input has ended (or stopped on an error): the stream is whole.
    pub ended: bool,
    /// Why reading stopped, when a bad row or a read error stopped it.
    pub error: Option<String>,
    /// Rows whose processing time is before their event time (kept).
    pub clock_skew_rows: u64,
    /// The largest delay so far: the perfect watermark's lag.
    max_delay: Option<f64>,
}

impl Scenario {
    /// A live input's stream before its first row: empty, open.
    pub fn live(name: impl Into<String>, window: &WindowFn) -> Scenario {
        let mut s = Scenario::new(name, Stream::default(), window);
        s.open = true;
        s.oracle = Oracle::live(window);
        s
    }

    /// The scenario over `stream`, which is this one's grown by `added` (already placed in
    /// it): its oracle grown (the engine's [`Oracle::grown`]).
    fn grown(&self, stream: Stream, added: &[Event], window: &WindowFn) -> Scenario {
        Scenario {
            oracle: self.oracle.grown(&stream, added, window),
            stream: Arc::new(stream),
            ..self.clone()
        }
    }
}

impl App {
    /// Whether the input is still open: a live producer may send more events.
    pub fn input_open(&self) -> bool {
        self.scenario.open
    }

    /// Whether the playhead is at the live edge of an open input: every event so far in.
    pub fn at_live_edge(&self) -> bool {
        self.scenario.open
            && self.playhead.arrived >= self.scenario.len()
            && self.playhead.now >= self.scenario.oracle.proc_time.1
    }

    /// Takes what the live input sent since the last time, in order. Returns whether the
    /// screen changed.
    pub(super) fn take_feed(&mut self, feeds: Vec<Feed>) -> bool {
        if let Some(side) = self.side.as_mut() {
            // B reads the same stream: it grows with A's (and then follows A's playhead).
            side.b.take_feed(feeds.clone());
            side.b.take_work();
        }
        let mut rows = Batch::default();
        let mut changed = false;
        for feed in feeds {
            match feed {
                Feed::Rows(b) => {
                    rows.events.extend(b.events);
                    rows.new_keys.extend(b.new_keys);
                    rows.skipped_rows += b.skipped_rows;
                    rows.clock_skew_rows += b.clock_skew_rows;
                }
                Feed::Whole(stream, report) => {
                    self.grow(std::mem::take(&mut rows));
                    self.take_whole(stream, report.skipped_rows);
                    changed = true;
                }
                Feed::Ended => {
                    self.grow(std::mem::take(&mut rows));
                    self.end_input(None);
                    changed = true;
                }
                Feed::Failed(why) => {
                    self.grow(std::mem::take(&mut rows));
                    self.end_input(Some(why));
                    changed = true;
                }
            }
        }
        changed | self.grow(rows)
    }

    /// The stream grown by a batch; the run goes on over it (or is made again, see the
    /// module's header), and a playing playhead follows to the live edge.
    fn grow(&mut self, batch: Batch) -> bool {
        if !self.scenario.open {
            return false;
        }
        let live = self.live.get_or_insert_with(Live::default);
        live.clock_skew_rows += batch.clock_skew_rows;
        if batch.events.is_empty() && batch.new_keys.is_empty() && batch.skipped_rows == 0 {
            return false;
        }
        let mut stream = (*self.scenario.stream).clone();
        stream.keys.extend(batch.new_keys);
        // Where the earliest new event went: a run that has taken events after it is made again.
        let mut lowest = stream.len();
        for &e in &batch.events {
            let i = if stream
                .events
                .last()
                .is_none_or(|l| l.proc_time <= e.proc_time)
            {
                stream.events.len()
            } else {
                stream
                    .events
                    .partition_point(|x| x.proc_time <= e.proc_time)
            };
            lowest = lowest.min(i);
            stream.events.insert(i, e);
        }
        let delay = batch
            .events
            .iter()
            .map(Event::delay)
            .fold(None, |m: Option<f64>, d| Some(m.map_or(d, |m| m.max(d))));
        let grew_delay = match (live.max_delay, delay) {
            (Some(old), Some(d)) => d > old,
            (None, Some(_)) => true,
            _ => false,
        };
        if grew_delay {
            live.max_delay = delay;
        }
        let mut scenario = self
            .scenario
            .grown(stream, &batch.events, &self.dials.window);
        scenario.skipped_rows += batch.skipped_rows;
        self.scenario = Arc::new(scenario);
        let perfect = matches!(self.dials.config().watermark, WatermarkKind::Perfect);
        // The run goes on over the new events unless it must be made again: the job, a re-run
        // already pending, a row placed before events the run has taken, a perfect watermark
        // whose lag grew.
        let again = self.parallel
            || self.rerunning
            || lowest < self.trace.arrived()
            || (perfect && grew_delay);
        let goes_on = !again
            && self.trace.grow(
                self.scenario.stream.clone(),
                self.scenario.oracle.proc_time,
                true,
            );
        if self.key_out_of_range() {
            self.selection.key = None;
        }
        if self.playhead.playing {
            // Following: the playhead to the live edge.
            let edge = self.scenario.oracle.proc_time.1.max(self.playhead.now);
            self.place(edge, self.scenario.len(), false, false);
        } else {
            let now = self.playhead.now;
            self.place(now, self.arrived_by(now), false, false);
        }
        if goes_on {
            self.follow();
        } else {
            self.rerun();
        }
        true
    }

    fn key_out_of_range(&self) -> bool {
        self.selection
            .key
            .is_some_and(|k| k as usize >= self.scenario.keys())
    }

    /// The whole input at once (Parquet or compressed standard input): the stream replaced,
    /// closed, run from the start.
    fn take_whole(&mut self, stream: Stream, skipped_rows: u64) {
        let mut s = Scenario::new(self.scenario.name.clone(), stream, &self.dials.window);
        s.skipped_rows = skipped_rows;
        self.scenario = Arc::new(s);
        self.live.get_or_insert_with(Live::default).ended = true;
        if self.selection.key.is_none() && self.scenario.keys() > 0 {
            self.selection.key = Some(0);
        }
        self.frontiers.clear();
        let start = self.scenario.oracle.proc_time.0;
        self.place(start, self.arrived_by(start), false, false);
        self.rerun();
    }

    /// The input has ended (`error`: stopped on a bad row or a read error): the stream is
    /// whole and closed; a playing playhead goes to its end; the run is made again once, so
    /// that the score and the frontier are the whole input's.
    fn end_input(&mut self, error: Option<String>) {
        let live = self.live.get_or_insert_with(Live::default);
        live.ended = true;
        live.error = error;
        if !self.scenario.open {
            return;
        }
        let mut s = (*self.scenario).clone();
        s.open = false;
        self.scenario = Arc::new(s);
        self.frontiers.clear();
        let still = self.trace.grow(
            self.scenario.stream.clone(),
            self.scenario.oracle.proc_time,
            false,
        );
        if self.playhead.playing && still {
            let c = self.trace.run_to_end(self.clock());
            self.go(c);
        }
        self.rerun();
    }
}
