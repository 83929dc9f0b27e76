//! A live input (`--input -` from a producer): the stream grows as batches of rows arrive, and
//! the run goes on over the new events instead of running again.
//!
//! The stream stays in processing-time order: a row timed before rows already in (a
//! processing-time column out of order) is placed among them, stably, as a file's rows are
//! sorted; if the run has already taken events after it, the run is made again. So is a
//! perfect watermark's run whenever the largest delay grows (it is the perfect watermark's
//! lag), and the parallel job's at every batch. The input's end closes the stream: the run can
//! then finish, and is made again once, so the score is the whole input's.

use std::sync::Arc;

use crate::scenario::Scenario;
use crate::stream::{Event, Stream};
use crate::watermark::WatermarkKind;

use super::SteeredRun;

/// What a batch of a live input brings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Growth {
    /// New events, in the order they were read.
    pub events: Vec<Event>,
    /// Keys first seen in this batch, in the order of their ids.
    pub new_keys: Vec<String>,
    /// Bad rows skipped.
    pub skipped_rows: u64,
    /// The clock of every row read so far (a live log's times may say they are wall-clock
    /// only once they come).
    pub clock: crate::clock::Clock,
}

impl Growth {
    /// Whether it brings nothing.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty() && self.new_keys.is_empty() && self.skipped_rows == 0
    }
}

impl SteeredRun {
    /// Whether the input is still open (a live producer may send more events).
    pub fn input_open(&self) -> bool {
        self.scenario.open
    }

    /// Whether the playhead is at the live edge: an open input's last event in, its last
    /// processing time reached.
    pub fn at_live_edge(&self) -> bool {
        self.scenario.open
            && self.progress.arrived >= self.scenario.len()
            && self.progress.now >= self.scenario.oracle.proc_time.1
    }

    /// Grows an open input's stream by a batch; the run goes on over it, or is made again (see
    /// the module's documentation). `following`: the playhead goes to the live edge; else it
    /// stays where it is. Returns whether anything changed.
    pub fn grow(&mut self, batch: Growth, following: bool) -> bool {
        if !self.scenario.open || batch.is_empty() {
            return false;
        }
        // A batch that lands after every event the run has taken lets the run go on over the
        // grown stream: the trace lets go of it meanwhile, so that a stream held nowhere else
        // (no re-run or sweep in flight) grows in place. Copying it for every batch kept two
        // streams at once (24 bytes an event more at the peak) and cost a copy of the whole
        // stream per batch. A batch landing among taken events is grown into a copy, the trace
        // keeping the stream it ran until the re-run replaces it.
        let taken = self.trace.arrived();
        let last_taken = taken
            .checked_sub(1)
            .and_then(|i| self.scenario.stream.events.get(i))
            .map_or(f64::NEG_INFINITY, |e| e.proc_time);
        let after_taken = batch.events.iter().all(|e| e.proc_time >= last_taken);
        let lent = after_taken && self.trace.release_stream();
        let window = self.settings.engine.window;
        let scenario = Arc::make_mut(&mut self.scenario);
        let stream = Arc::make_mut(&mut scenario.stream);
        stream.keys.extend(batch.new_keys);
        stream.clock = batch.clock;
        // Where the earliest new event went: a run that has taken events after it is made again.
        let mut lowest = stream.len();
        stream.events.reserve(batch.events.len());
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
        let grew_delay = match (self.max_delay, delay) {
            (Some(old), Some(d)) => d > old,
            (None, Some(_)) => true,
            _ => false,
        };
        if grew_delay {
            self.max_delay = delay;
        }
        scenario.oracle = scenario
            .oracle
            .grown(&scenario.stream, &batch.events, &window);
        scenario.skipped_rows += batch.skipped_rows;
        let perfect = matches!(self.settings.engine.watermark, WatermarkKind::Perfect);
        // The run goes on over the new events unless it must be made again: the job, a re-run
        // already pending, a row placed before events the run has taken, a perfect watermark
        // whose lag grew.
        let again = self.parallel || self.rerunning || lowest < taken || (perfect && grew_delay);
        // A trace that lent its stream always takes the grown one back (its events up to
        // those taken are the same).
        let grown = (lent || !again)
            && self.trace.grow(
                self.scenario.stream.clone(),
                self.scenario.oracle.proc_time,
                true,
            );
        let goes_on = !again && grown;
        if following {
            let edge = self.scenario.oracle.proc_time.1.max(self.progress.now);
            self.place(edge, self.scenario.len(), false);
        } else {
            let now = self.progress.now;
            self.place(now, self.arrived_by(now), false);
        }
        if goes_on {
            self.follow();
        } else {
            self.rerun();
        }
        true
    }

    /// The whole input at once (a file read whole after all): the run starts over on it,
    /// at the start of processing time.
    pub fn take_whole(&mut self, stream: Stream, skipped_rows: u64) {
        let mut s = Scenario::new(
            self.scenario.name.clone(),
            stream,
            &self.settings.engine.window,
        );
        s.skipped_rows = skipped_rows;
        self.scenario = Arc::new(s);
        let start = self.scenario.oracle.proc_time.0;
        self.place(start, self.arrived_by(start), false);
        self.rerun();
    }

    /// The input ended (or stopped at a bad row): the stream is closed, the run can finish
    /// (it does at once when `playing`), and it is made again so that its score is the whole
    /// input's. Returns whether the input was open.
    pub fn end_input(&mut self, playing: bool) -> bool {
        if !self.scenario.open {
            return false;
        }
        let mut s = (*self.scenario).clone();
        s.open = false;
        self.scenario = Arc::new(s);
        let still = self.trace.grow(
            self.scenario.stream.clone(),
            self.scenario.oracle.proc_time,
            false,
        );
        if playing && still {
            self.progress = self.trace.run_to_end(self.progress);
        }
        self.rerun();
        true
    }
}
