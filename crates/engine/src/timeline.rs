//! The single processor's run up to a playhead, one of the two engines behind the terminal UI's
//! [`super::trace::Trace`]: the processor fed the first `arrived` events of a stream, with what
//! each arrival did (its fate, the watermark after it) and what the engine emitted so far
//! (panes, finalised cells, drops). Pure: the UI only reads it, and every rule it reports
//! (fate, window assignment, watermark, window phase) is the engine's.
//!
//! A dial change builds a new timeline from the start to the same playhead ([`Timeline::run_to`]);
//! playing forward extends the current one ([`Timeline::advance_to`]).
//!
//! Memory: the UI draws every event, so it keeps every event. The stream holds each [`Event`]
//! once (24 bytes), shared by every re-run; a timeline adds per arrival its fate and the exact
//! watermark after it ([`Timeline::BYTES_PER_ARRIVAL`], 9 bytes), and per late or dropped
//! arrival an [`Exception`] for the plot. The state over time is sampled, not kept per
//! arrival: at most `STATE_SAMPLES` (600, +1 at the end of input) [`StateSample`]s, one per
//! equal slice of the stream's processing time, whatever the input's length.

use std::collections::BTreeMap;

use super::conventions::Conventions;
use super::frontier::{self, FrontierPoint};
use super::lateness::Fate;
use super::processor::{Counters, EngineConfig, Expiry, Output, Processor, SessionChange};
use super::stream::{Event, KeyId, Stream};
use super::trigger::{Pane, Timing};
use super::window::{CellId, WindowId};
use super::window_row::WindowRow;
pub use super::window_row::{Phase, StateSample};

/// The processor's state after the first `arrived` events, and the history that led to it.
#[derive(Debug, Clone)]
pub struct Timeline {
    cfg: EngineConfig,
    processor: Processor,
    scratch: Output,
    /// Per arrived event, in processing order: its worst fate over its windows.
    fates: Vec<Fate>,
    /// Per arrived event: the watermark after it.
    watermarks: Vec<f64>,
    /// The arrivals that were not on time (late or dropped), in order, with their events
    /// (kept contiguous so a plot of a huge input reads them in one sweep).
    exceptions: Vec<Exception>,
    /// Every pane emitted so far, in emission order.
    panes: Vec<Pane>,
    /// Index into `panes` of each cell's latest pane.
    latest_pane: BTreeMap<CellId, usize>,
    /// LATE panes per cell.
    late_panes: BTreeMap<CellId, u32>,
    /// Finalised cells and their final values.
    finals: BTreeMap<CellId, u64>,
    /// Every change of the sessions so far (session windows), in order.
    sessions: Vec<SessionChange>,
    /// Every TTL expiry so far (the global window), in order.
    expirations: Vec<Expiry>,
    /// Under Flink's rules, sessions' dropped events with the merged window their lateness was
    /// tested on, in order (other runs test the event's own window and keep none).
    judged_drops: Vec<(usize, WindowId)>,
    /// The stream's largest delay: the perfect watermark's lag.
    max_delay: f64,
    /// The state over processing time, one sample per slice of the stream's processing time.
    states: Vec<StateSample>,
    /// Where the slices start and how long each is (processing time, ms).
    state_from: f64,
    state_every: f64,
    /// The processing time from which the next sample is due.
    next_state: f64,
}

/// The state's samples over the stream's processing time a single run keeps at most (one
/// more at the end of input): its memory does not grow with the input. A growing stream's
/// run keeps between this many and twice as many.
pub(crate) const STATE_SAMPLES: usize = 600;

/// The first slice of processing time between state samples of a growing stream's run, ms.
pub(crate) const GROWING_STATE_SLICE: f64 = 100.0;

/// An arrival that was not on time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Exception {
    /// Its position in processing order.
    pub offset: usize,
    /// The event, with its event time and processing time.
    pub event: Event,
    /// Late or dropped.
    pub fate: Fate,
}

/// Why one event met its fate, in numbers.
#[derive(Debug, Clone, PartialEq)]
pub struct Inspection {
    /// The event's position in processing order.
    pub offset: usize,
    /// The event, with its event time and processing time.
    pub event: Event,
    /// The watermark just after the event arrived (the one its fate was decided under).
    pub watermark: f64,
    /// The grace period in force, ms of event time after a window's end.
    pub grace: f64,
    /// Its worst fate.
    pub fate: Fate,
    /// Per window the event belongs to: the window its lateness was tested on, and its fate
    /// there.
    pub windows: Vec<(WindowId, Fate)>,
    /// Whose rules decided the fates (the inequality differs by a millisecond or a comparison).
    pub conventions: Conventions,
    /// The windows are sessions (Kafka Streams closes one strictly past its grace).
    pub merging: bool,
}

impl Timeline {
    /// What a timeline keeps for each arrived event, besides the stream's [`Event`]: its fate
    /// and the watermark after it, in two arrays.
    pub const BYTES_PER_ARRIVAL: usize = std::mem::size_of::<Fate>() + std::mem::size_of::<f64>();

    /// A timeline before its first event.
    pub fn new(cfg: EngineConfig, stream: &Stream) -> Self {
        Timeline {
            cfg,
            processor: Processor::for_stream(cfg, stream).recording(),
            scratch: Output::default(),
            fates: Vec::new(),
            watermarks: Vec::new(),
            exceptions: Vec::new(),
            panes: Vec::new(),
            latest_pane: BTreeMap::new(),
            late_panes: BTreeMap::new(),
            finals: BTreeMap::new(),
            sessions: Vec::new(),
            expirations: Vec::new(),
            judged_drops: Vec::new(),
            max_delay: stream.max_delay(),
            states: Vec::new(),
            state_from: stream.events.first().map_or(0.0, |e| e.proc_time),
            state_every: state_slice(stream),
            next_state: f64::NEG_INFINITY,
        }
    }

    /// A timeline before its first event, over a stream that is still growing (a live
    /// producer): its state samples start `GROWING_STATE_SLICE` (100) ms of processing time apart
    /// and the slice doubles whenever they pass twice `STATE_SAMPLES` (600), so they depend only on
    /// the events, never on when the stream was read.
    pub fn growing(cfg: EngineConfig, stream: &Stream) -> Self {
        Timeline {
            state_every: GROWING_STATE_SLICE,
            // The slices start at the first event, whenever it comes.
            state_from: f64::NAN,
            ..Timeline::new(cfg, stream)
        }
    }

    /// Runs the first `arrived` events (the end of input too, when that is all of them and
    /// `finish` is set).
    pub fn run_to(cfg: EngineConfig, stream: &Stream, arrived: usize, finish: bool) -> Self {
        let mut t = Timeline::new(cfg, stream);
        t.fates.reserve(arrived.min(stream.len()));
        t.watermarks.reserve(arrived.min(stream.len()));
        t.advance_to(stream, arrived, finish);
        t
    }

    /// Feeds events until `arrived` have been processed (never goes back); with `finish`, and
    /// once every event is in, closes the input so every window fires and is finalised.
    pub fn advance_to(&mut self, stream: &Stream, arrived: usize, finish: bool) {
        let target = arrived.min(stream.len());
        while self.fates.len() < target && !self.processor.is_finished() {
            let e = &stream.events[self.fates.len()];
            let a = self.processor.step(e, &mut self.scratch);
            if a.fate != Fate::OnTime {
                self.exceptions.push(Exception {
                    offset: self.fates.len(),
                    event: *e,
                    fate: a.fate,
                });
            }
            self.fates.push(a.fate);
            self.watermarks.push(a.watermark);
            self.drain();
            if self.state_from.is_nan() {
                self.state_from = e.proc_time;
            }
            if e.proc_time >= self.next_state {
                self.sample_state(e.proc_time);
                let slice = ((e.proc_time - self.state_from) / self.state_every).floor() + 1.0;
                self.next_state = self.state_from + slice * self.state_every;
            }
        }
        if finish && target == stream.len() && !self.processor.is_finished() {
            self.processor.finish(&mut self.scratch);
            self.drain();
            let end = stream.events.last().map_or(0.0, |e| e.proc_time);
            self.sample_state(end);
        }
    }

    /// Keeps the state now as the sample at processing time `time`. Past twice
    /// `STATE_SAMPLES`, 600 (only a growing stream's, whose span is not known in advance), the
    /// slice doubles and the first sample of each doubled slice is kept: exactly the samples a
    /// run with the doubled slice takes.
    fn sample_state(&mut self, time: f64) {
        self.states.push(StateSample {
            time,
            open_cells: self.processor.open_cells(),
            state_bytes: self.processor.state_bytes(),
            ttl_expired: self.processor.counters().ttl_expired,
        });
        if self.states.len() > 2 * STATE_SAMPLES && !self.processor.is_finished() {
            self.state_every *= 2.0;
            let (from, every) = (self.state_from, self.state_every);
            let mut last_slice = f64::NEG_INFINITY;
            self.states.retain(|s| {
                let slice = ((s.time - from) / every).floor();
                let first = slice > last_slice;
                last_slice = last_slice.max(slice);
                first
            });
        }
    }

    /// The state over processing time so far, sampled (at most `STATE_SAMPLES`, 600, + 1).
    pub fn state_samples(&self) -> &[StateSample] {
        &self.states
    }

    fn drain(&mut self) {
        for p in self.scratch.panes.drain(..) {
            self.latest_pane.insert(p.cell, self.panes.len());
            if p.timing == Timing::Late {
                *self.late_panes.entry(p.cell).or_insert(0) += 1;
            }
            self.panes.push(p);
        }
        for f in self.scratch.finals.drain(..) {
            self.finals.insert(f.cell, f.value);
        }
        if self.judges_merged() {
            self.judged_drops
                .extend(self.scratch.dropped.iter().map(|d| (d.offset, d.window)));
        }
        self.scratch.dropped.clear();
        self.sessions.append(&mut self.scratch.sessions);
        self.expirations.append(&mut self.scratch.expirations);
    }

    /// The dials it was run with.
    pub fn config(&self) -> &EngineConfig {
        &self.cfg
    }

    /// Events processed so far.
    pub fn arrived(&self) -> usize {
        self.fates.len()
    }

    /// Whether the end of input has been processed.
    pub fn is_finished(&self) -> bool {
        self.processor.is_finished()
    }

    /// The processor's running totals over the events arrived so far.
    pub fn counters(&self) -> &Counters {
        self.processor.counters()
    }

    /// The watermark now (+∞ after the end of input, −∞ before the first event).
    pub fn watermark(&self) -> f64 {
        self.processor.watermark()
    }

    /// Windows open now (holding cells, not yet finalised).
    pub fn open_windows(&self) -> usize {
        self.processor.open_windows()
    }

    /// (window, key) cells open now, over every open window.
    pub fn open_cells(&self) -> usize {
        self.processor.open_cells()
    }

    /// Estimated bytes of the processor's state now: what a checkpoint would copy.
    pub fn state_bytes(&self) -> usize {
        self.processor.state_bytes()
    }

    /// Per arrived event, its worst fate.
    pub fn fates(&self) -> &[Fate] {
        &self.fates
    }

    /// The arrived events that were late or dropped, in processing order.
    pub fn exceptions(&self) -> &[Exception] {
        &self.exceptions
    }

    /// Per arrived event, the watermark after it.
    pub fn watermarks(&self) -> &[f64] {
        &self.watermarks
    }

    /// Every pane emitted so far, of every cell, in emission order.
    pub fn panes(&self) -> &[Pane] {
        &self.panes
    }

    /// The panes of one cell, oldest first.
    pub fn panes_of(&self, cell: CellId) -> impl Iterator<Item = &Pane> + '_ {
        self.panes.iter().filter(move |p| p.cell == cell)
    }

    /// Every change of the sessions so far, in order (empty unless the windows are sessions).
    pub fn session_changes(&self) -> &[SessionChange] {
        &self.sessions
    }

    /// Every key's state expiring under the TTL so far, in order.
    pub fn expirations(&self) -> &[Expiry] {
        &self.expirations
    }

    /// The watermark after the last event that arrived by processing time `t`, if any has.
    pub fn watermark_at(&self, stream: &Stream, t: f64) -> Option<f64> {
        let n = stream.events[..self.arrived()].partition_point(|e| e.proc_time <= t);
        n.checked_sub(1).map(|i| self.watermarks[i])
    }

    /// A cell's value so far: its live state while its window is open, its final value after.
    pub fn cell_value(&self, cell: CellId) -> u64 {
        match self.processor.cell(cell) {
            Some(c) => c.value,
            None => self.finals.get(&cell).copied().unwrap_or(0),
        }
    }

    /// Where a window stands under the watermark now and the grace, by the engine's rule.
    fn window_phase(&self, window: WindowId, cells: &[CellId]) -> Phase {
        let end = self.cfg.window.end(window);
        match Fate::decide_under(
            self.cfg.conventions,
            end,
            self.watermark(),
            self.cfg.grace,
            self.cfg.window.is_merging(),
        ) {
            Fate::OnTime => Phase::Open,
            Fate::Late => {
                if cells.iter().any(|c| self.late_panes.contains_key(c)) {
                    Phase::TakingLate
                } else {
                    Phase::FiredOnTime
                }
            }
            Fate::Dropped => Phase::Finalised,
        }
    }

    /// One row of the windows table for `window`, for `key` or (None) all keys together (no
    /// sinks: the processor's own value is its output).
    pub fn window_row(
        &self,
        window: WindowId,
        key: Option<KeyId>,
        keys: usize,
        truth: &BTreeMap<CellId, u64>,
    ) -> WindowRow {
        let cells = CellId::selected(window, key, keys);
        let value: u64 = cells.iter().map(|&c| self.cell_value(c)).sum();
        let truth_total: u64 = cells.iter().filter_map(|c| truth.get(c)).sum();
        let latest = cells
            .iter()
            .filter_map(|c| self.latest_pane.get(c).copied())
            .max()
            .map(|i| self.panes[i]);
        WindowRow {
            window,
            start: self.cfg.window.start(window),
            end: self.cfg.window.end(window),
            value: value as i64,
            truth: truth_total as i64,
            phase: self.window_phase(window, &cells),
            latest,
            sinks: None,
            over: None,
        }
    }

    /// The whole run's score, once the end of input has been processed (None before: the
    /// final values are not all known yet).
    pub fn final_score(&self, truth: &BTreeMap<CellId, u64>) -> Option<FrontierPoint> {
        if !self.is_finished() {
            return None;
        }
        let lag = self.cfg.watermark.nominal_lag(self.max_delay);
        Some(FrontierPoint {
            lag,
            grace: self.cfg.grace,
            emit_delay: lag + self.cfg.grace,
            dropped: self.counters().dropped,
            score: frontier::Score::of(&self.finals, truth),
        })
    }

    /// Whether sessions' lateness is tested on the merged window (Flink's rules).
    fn judges_merged(&self) -> bool {
        self.cfg.conventions.tests_merged_window() && self.cfg.window.is_merging()
    }

    /// The window the event at `offset` with proto-window `proto` had its lateness tested on:
    /// its own, or under Flink's rules the session it merged into (or, dropped, would have).
    fn judged_window(&self, offset: usize, key: crate::stream::KeyId, proto: WindowId) -> WindowId {
        if !self.judges_merged() {
            return proto;
        }
        if let Ok(i) = self.judged_drops.binary_search_by_key(&offset, |d| d.0) {
            return self.judged_drops[i].1;
        }
        let changes = &self.sessions[..self.sessions.partition_point(|c| c.offset <= offset)];
        // The latest session of its key holding its proto-window when it arrived.
        changes
            .iter()
            .rev()
            .filter(|c| c.key == key)
            .find(|c| c.into.cover(proto) == c.into)
            .map_or(proto, |c| c.into)
    }

    /// Why the event at `offset` (in processing order, already arrived) met its fate.
    pub fn inspect(&self, stream: &Stream, offset: usize) -> Option<Inspection> {
        let event = *stream.events.get(offset)?;
        let fate = *self.fates.get(offset)?;
        let watermark = self.watermarks[offset];
        let grace = self.cfg.grace;
        let (conventions, merging) = (self.cfg.conventions, self.cfg.window.is_merging());
        let windows = self
            .cfg
            .window
            .assign(event.event_time)
            .map(|w| {
                let w = self.judged_window(offset, event.key, w);
                let end = self.cfg.window.end(w);
                (
                    w,
                    Fate::decide_under(conventions, end, watermark, grace, merging),
                )
            })
            .collect();
        Some(Inspection {
            offset,
            event,
            watermark,
            grace,
            fate,
            windows,
            conventions,
            merging,
        })
    }

    /// The arrived event nearest to (event time, processing time), distances measured in units
    /// of `scale` = (ms per unit of event time, ms per unit of processing time).
    pub fn nearest(&self, stream: &Stream, at: (f64, f64), scale: (f64, f64)) -> Option<usize> {
        let (sx, sy) = (
            scale.0.max(f64::MIN_POSITIVE),
            scale.1.max(f64::MIN_POSITIVE),
        );
        stream.events[..self.arrived()]
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let dx = (e.event_time - at.0) / sx;
                let dy = (e.proc_time - at.1) / sy;
                (i, dx * dx + dy * dy)
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(i, _)| i)
    }
}

/// How long a slice of the stream's processing time is for the state's samples, ms: its span
/// over `STATE_SAMPLES` (600), at least 1 ms.
fn state_slice(stream: &Stream) -> f64 {
    let (first, last) = match (stream.events.first(), stream.events.last()) {
        (Some(a), Some(b)) => (a.proc_time, b.proc_time),
        _ => (0.0, 0.0),
    };
    let span = last - first;
    if span.is_finite() && span > 0.0 {
        (span / STATE_SAMPLES as f64).max(1.0)
    } else {
        1.0
    }
}

#[cfg(test)]
/// The windows the whole stream touches, in order (the rows of the windows table).
pub(crate) fn stream_windows(truth: &BTreeMap<CellId, u64>) -> Vec<WindowId> {
    let mut w: Vec<WindowId> = truth.keys().map(|c| c.window).collect();
    w.dedup();
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::Oracle;
    use crate::stream::Stream;
    use crate::window::WindowFn;

    #[test]
    fn the_end_of_the_classroom_stream_has_the_reference_drops() {
        let s = Stream::classroom();
        for (lag, grace, dropped) in [(2_000.0, 0.0, 1283), (10_000.0, 90_000.0, 0)] {
            let t = Timeline::run_to(EngineConfig::fixed(lag, grace), &s, s.len(), true);
            assert_eq!(t.counters().dropped, dropped);
            assert!(t.is_finished());
        }
    }

    #[test]
    fn a_finished_timeline_scores_like_a_whole_run() {
        let s = Stream::classroom();
        let cfg = EngineConfig::fixed(10_000.0, 30_000.0);
        let truth = Oracle::true_counts(&s, &cfg.window);
        let t = Timeline::run_to(cfg, &s, s.len(), true);
        assert_eq!(
            t.final_score(&truth),
            Some(frontier::score_point(&s, &truth, cfg))
        );
        let half = Timeline::run_to(cfg, &s, s.len() / 2, false);
        assert_eq!(half.final_score(&truth), None);
    }

    #[test]
    fn advancing_in_steps_equals_one_run() {
        let s = Stream::classroom();
        let cfg = EngineConfig::fixed(20_000.0, 0.0);
        let mut a = Timeline::new(cfg, &s);
        for n in [10, 500, 7_000, 7_000, 12_345] {
            a.advance_to(&s, n, false);
        }
        let b = Timeline::run_to(cfg, &s, 12_345, false);
        assert_eq!(a.fates(), b.fates());
        assert_eq!(a.counters(), b.counters());
        assert_eq!(a.panes().len(), b.panes().len());
    }

    #[test]
    fn a_growing_stream_samples_its_state_the_same_whatever_its_batches() {
        let s = Stream::classroom();
        let cfg = EngineConfig::fixed(20_000.0, 0.0);
        // The stream as it grows: its first n events, read in batches of different sizes.
        let prefix = |n: usize| Stream {
            events: s.events[..n].to_vec(),
            keys: s.keys.clone(),
            ..Default::default()
        };
        let mut a = Timeline::growing(cfg, &prefix(0));
        for n in [1, 7, 900, 901, 12_000, s.len()] {
            a.advance_to(&prefix(n), n, false);
        }
        let mut b = Timeline::growing(cfg, &prefix(s.len()));
        b.advance_to(&s, s.len(), false);
        assert_eq!(a.state_samples(), b.state_samples());
        assert_eq!(a.fates(), b.fates());
        let n = a.state_samples().len();
        assert!((STATE_SAMPLES..=2 * STATE_SAMPLES).contains(&n), "{n}");
        // The slice only ever doubled: the samples are as a run with that slice takes them.
        let times: Vec<f64> = a.state_samples().iter().map(|x| x.time).collect();
        assert!(times.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn a_single_run_keeps_a_bounded_number_of_state_samples() {
        let stream = Stream::generate(&crate::StreamParams {
            events: 200_000,
            ..Default::default()
        })
        .unwrap();
        let cfg = EngineConfig::fixed(20_000.0, 0.0);
        let t = Timeline::run_to(cfg, &stream, stream.len(), true);
        let n = t.state_samples().len();
        assert!(n <= STATE_SAMPLES + 1, "{n}");
        assert!(n >= STATE_SAMPLES / 2, "{n}");
        assert_eq!(t.state_samples().last().unwrap().open_cells, 0, "all fired");
        // The same samples, played in steps.
        let mut s = Timeline::new(cfg, &stream);
        for k in [1, 10, 5_000, 100_000, stream.len()] {
            s.advance_to(&stream, k, k == stream.len());
        }
        assert_eq!(s.state_samples(), t.state_samples());
    }

    #[test]
    fn inspection_gives_the_figures_of_the_inequality() {
        let s = Stream::classroom();
        let t = Timeline::run_to(EngineConfig::fixed(2_000.0, 0.0), &s, s.len(), false);
        let i = t.fates().iter().position(|f| *f == Fate::Dropped).unwrap();
        let why = t.inspect(&s, i).unwrap();
        assert_eq!(why.fate, Fate::Dropped);
        let (window, fate) = why.windows[0];
        assert_eq!(fate, Fate::Dropped);
        assert!(window.end() <= why.watermark - why.grace, "{why:?}");
        assert_eq!((why.conventions, why.merging), (Conventions::Beam, false));
    }

    #[test]
    fn window_phases_follow_the_watermark() {
        let s = Stream::classroom();
        let truth = Oracle::true_counts(
            &s,
            &WindowFn::Tumbling {
                size: 60_000,
                offset: 0,
            },
        );
        let t = Timeline::run_to(
            EngineConfig::fixed(20_000.0, 30_000.0),
            &s,
            s.len() / 2,
            false,
        );
        let rows: Vec<Phase> = stream_windows(&truth)
            .into_iter()
            .map(|w| t.window_row(w, None, 4, &truth).phase)
            .collect();
        assert_eq!(rows.first(), Some(&Phase::Finalised));
        assert_eq!(rows.last(), Some(&Phase::Open));
        let end = Timeline::run_to(EngineConfig::fixed(20_000.0, 30_000.0), &s, s.len(), true);
        let row = end.window_row(end.config().window.at_index(3), None, 4, &truth);
        assert_eq!(row.phase, Phase::Finalised);
    }

    /// The record the UI keeps per event stays small: the stream's event is at most 24 bytes,
    /// and what a timeline adds per arrival too.
    #[test]
    fn the_per_event_records_are_at_most_24_bytes() {
        assert!(
            std::mem::size_of::<Event>() <= 24,
            "{}",
            std::mem::size_of::<Event>()
        );
        assert_eq!(std::mem::size_of::<Fate>(), 1);
        const { assert!(Timeline::BYTES_PER_ARRIVAL <= 24) };
        let s = Stream::classroom();
        let t = Timeline::run_to(EngineConfig::fixed(20_000.0, 0.0), &s, s.len(), true);
        assert_eq!(t.fates().len(), s.len());
        assert_eq!(t.watermarks().len(), s.len());
    }
}
