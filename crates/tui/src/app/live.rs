//! A live input (`--input -` from a producer) in the UI: the batches of rows a reader sends
//! off the UI task ([`Feed`]) grow the steered run's stream ([`SteeredRun::grow`]: the run goes on
//! over the new events, or is made again where it must be). Pure: the batches are messages,
//! read by `io::live`.
//!
//! Playing, the playhead follows the live edge: every batch takes it to the last event.
//! Paused, it stays; Space (playing again) and End catch up. The input's end (or a bad row
//! that stops it) closes the stream: the run can then finish, and is run again once, so the
//! score and the frontier are the whole input's.
//!
//! [`SteeredRun::grow`]: twoclocks_engine::steered::SteeredRun::grow

use twoclocks_engine::steered::Growth;
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
}

impl App {
    /// Whether the input is still open: a live producer may send more events.
    pub fn input_open(&self) -> bool {
        self.steered.input_open()
    }

    /// Whether the playhead is at the live edge of an open input: every event so far in.
    pub fn at_live_edge(&self) -> bool {
        self.steered.at_live_edge()
    }

    /// Takes what the live input sent since the last time, in order. Returns whether the
    /// screen changed.
    pub(super) fn take_feed(&mut self, feeds: Vec<Feed>) -> bool {
        let changes = changes(feeds);
        if let Some(side) = self.side.as_mut() {
            // B reads the same stream: it grows with A's (and then follows A's playhead).
            for c in &changes {
                match c {
                    Change::Rows(b) => {
                        side.b.grow(growth(b.clone()), false);
                    }
                    Change::Whole(stream, skipped) => side.b.take_whole(stream.clone(), *skipped),
                    Change::End(_) => {
                        side.b.end_input(false);
                    }
                }
            }
        }
        let mut changed = false;
        for c in changes {
            match c {
                Change::Rows(b) => changed |= self.grow(b),
                Change::Whole(stream, skipped) => {
                    self.take_whole(stream, skipped);
                    changed = true;
                }
                Change::End(error) => {
                    self.end_input(error);
                    changed = true;
                }
            }
        }
        changed
    }

    /// The stream grown by a batch; the run goes on over it (or is made again, see the
    /// module's header), and a playing playhead follows to the live edge.
    fn grow(&mut self, batch: Batch) -> bool {
        if !self.steered.input_open() {
            return false;
        }
        let live = self.live.get_or_insert_with(Live::default);
        live.clock_skew_rows += batch.clock_skew_rows;
        if !self.steered.grow(growth(batch), self.playing) {
            return false;
        }
        if self.key_out_of_range() {
            self.selection.key = None;
        }
        true
    }

    fn key_out_of_range(&self) -> bool {
        self.selection
            .key
            .is_some_and(|k| k as usize >= self.scenario().keys())
    }

    /// The whole input at once (Parquet or compressed standard input): the stream replaced,
    /// closed, run from the start.
    fn take_whole(&mut self, stream: twoclocks_engine::Stream, skipped_rows: u64) {
        self.live.get_or_insert_with(Live::default).ended = true;
        self.frontiers.clear();
        self.steered.take_whole(stream, skipped_rows);
        if self.selection.key.is_none() && self.scenario().keys() > 0 {
            self.selection.key = Some(0);
        }
        self.request_frontier_if_single();
    }

    fn end_input(&mut self, error: Option<String>) {
        let live = self.live.get_or_insert_with(Live::default);
        live.ended = true;
        live.error = error;
        if self.steered.input_open() {
            self.frontiers.clear();
            self.steered.end_input(self.playing);
            self.stop_at_end();
            // A big input's sweep waits for its re-run, and is asked for when the re-run's
            // answer is taken: the two at once held the run twice and the sweep's placements
            // besides the stream (50 bytes an event at the peak, where one after the other
            // hold at most 42).
            if !self.steered.rerunning() {
                self.request_frontier_if_single();
            }
        }
    }
}

/// What a live input's messages do to a steered run, in order: the rows that came before a
/// whole stream or the input's end as one batch, then it; the rows after the last as one batch.
enum Change {
    Rows(Batch),
    Whole(twoclocks_engine::Stream, u64),
    End(Option<String>),
}

fn changes(feeds: Vec<Feed>) -> Vec<Change> {
    let mut out = Vec::new();
    let mut rows = Batch::default();
    for feed in feeds {
        let then = match feed {
            Feed::Rows(b) => {
                rows.events.extend(b.events);
                rows.new_keys.extend(b.new_keys);
                rows.skipped_rows += b.skipped_rows;
                rows.clock_skew_rows += b.clock_skew_rows;
                rows.clock = b.clock;
                continue;
            }
            Feed::Whole(stream, report) => Change::Whole(stream, report.skipped_rows),
            Feed::Ended => Change::End(None),
            Feed::Failed(why) => Change::End(Some(why)),
        };
        out.push(Change::Rows(std::mem::take(&mut rows)));
        out.push(then);
    }
    out.push(Change::Rows(rows));
    out
}

/// A batch's events, keys and skipped rows, as the steered run grows by them.
fn growth(batch: Batch) -> Growth {
    Growth {
        events: batch.events,
        new_keys: batch.new_keys,
        skipped_rows: batch.skipped_rows,
        clock: batch.clock,
    }
}
