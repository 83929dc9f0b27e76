//! The run up to the playhead, whatever kind of run it is: the one read model the terminal UI
//! draws and acts on. A [`Trace`] holds either the single processor's [`Timeline`] or the
//! parallel job's [`JobTimeline`], and every question the UI asks of a run (the watermark now
//! and at a time, each event's fate, the counters, the panes, a window's row, why an event met
//! its fate) is one method here that both engines answer, each by its own rules: the difference
//! between the kinds of run is decided once, here, and not in every panel. What one panel
//! alone shapes for drawing (the plot's sample, the watermark's lanes, the headline figures)
//! the UI builds from the run's [`Timeline`] or [`JobTimeline`], which a trace hands out.
//!
//! What only a parallel run has (its shape, topology, sinks and their scores, checkpoints,
//! crashes, the presses it took, the records it took again) is data a trace may carry: those
//! accessors answer `None`, or nothing, for a single run, and a panel draws what is there.
//!
//! The playhead and the run move together ([`Progress`]): a single run follows the playhead (its
//! events arrive by the playhead's processing time, and the run catches up), while a parallel
//! run keeps its own clock (a crash takes it back to a checkpoint's time) and the playhead
//! follows it. The moves ([`Trace::play_to`], [`Trace::step`], [`Trace::run_to_end`],
//! [`Trace::catch_up`]) take the playhead and say where it stands after.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::frontier::FrontierPoint;
use super::job_timeline::{Intervention, JobTimeline, Press, SinkScore};
use super::lateness::Fate;
use super::processor::{Counters, EngineConfig};
use super::stream::{KeyId, Stream};
use super::timeline::{Exception, Inspection, Timeline};
use super::trigger::Pane;
use super::window::{CellId, WindowId};
pub use super::window_row::{OverCount, WindowRow};
pub use partitions::HeldBack;

/// Where the playhead stands, as a move of the run leaves it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// Processing time now, ms.
    pub now: f64,
    /// Events that have arrived by `now`.
    pub arrived: usize,
    /// The end of input has been processed.
    pub finished: bool,
}

/// The run up to the playhead: a single processor's or a parallel job's.
#[derive(Debug, Clone)]
pub struct Trace {
    run: Run,
}

/// The engine behind a trace.
#[derive(Debug, Clone)]
enum Run {
    /// The single processor, fed the events that arrived by the playhead, which moves over
    /// the processing times `span`.
    Single {
        stream: Arc<Stream>,
        span: (f64, f64),
        timeline: Box<Timeline>,
        /// The input is still open (a live producer): more events may come, so reaching the
        /// last one is not the end of input.
        open: bool,
    },
    /// The parallel job, run to its own clock with the presses applied.
    Parallel(Box<JobTimeline>),
}

/// A parallel run's sinks against the oracle, with what the replays did to them.
#[derive(Debug, Clone, PartialEq)]
pub struct SinkReport {
    /// Per sink, in [`SinkKind::ALL`](super::checkpoint::SinkKind::ALL) order.
    pub scores: Vec<SinkScore>,
    /// What the crashes so far add to the additive sink's final total, summed over them
    /// ([`CrashExcess`](super::pipeline::CrashExcess), the figure `run` gives per crash).
    pub overcount: i64,
    /// Panes the sink received twice, over every crash so far.
    pub duplicate_panes: usize,
    /// Why the additive sink holds more than the idempotent one, exactly split:
    /// [`OverCount::readded`] + [`OverCount::replayed`] = additive − idempotent.
    pub over: OverCount,
}

/// The number of events that have arrived by processing time `t`.
fn arrived_by(stream: &Stream, t: f64) -> usize {
    stream.events.partition_point(|e| e.proc_time <= t)
}

/// Where a parallel run's clock puts the playhead.
fn progress_of(j: &JobTimeline) -> Progress {
    Progress {
        now: j.now(),
        arrived: arrived_by(j.pipeline().stream(), j.now()),
        finished: j.is_finished(),
    }
}

/// A single run played on from the playhead `from` to processing time `to`: the playhead
/// stays within `span`, and reaching its end with every event in finishes the input, unless
/// the input is still `open`.
fn play_single(
    stream: &Stream,
    (span, open): ((f64, f64), bool),
    timeline: &mut Timeline,
    from: Progress,
    to: f64,
) -> Progress {
    let (first, last) = span;
    let len = stream.len();
    let at = to.min(last).max(first);
    let arrived = arrived_by(stream, at);
    let end = !open && arrived >= len && to >= last;
    let c = Progress {
        now: at,
        arrived: if end { len } else { arrived },
        finished: from.finished || end,
    };
    timeline.advance_to(stream, c.arrived, c.finished);
    c
}

impl Trace {
    /// A single processor's run; its playhead moves over the processing times `span`.
    pub fn single(stream: Arc<Stream>, span: (f64, f64), timeline: Timeline) -> Trace {
        Trace {
            run: Run::Single {
                stream,
                span,
                timeline: Box::new(timeline),
                open: false,
            },
        }
    }

    /// The same run, its input still open (`open`: a live producer may send more events, so
    /// the last event is not the end of input) or closed.
    pub fn with_open_input(mut self, open: bool) -> Trace {
        if let Run::Single { open: o, .. } = &mut self.run {
            *o = open;
        }
        self
    }

    /// A single run's stream grown by events that arrived since (the same events first, in
    /// the same order, then the new ones), over the processing times `span`, its input still
    /// `open` or now closed: the run goes on from where it is, it is not run again. False
    /// (nothing changed) for a parallel run, which must be run again.
    pub fn grow(&mut self, grown: Arc<Stream>, new_span: (f64, f64), still_open: bool) -> bool {
        match &mut self.run {
            Run::Single {
                stream, span, open, ..
            } => {
                *stream = grown;
                *span = new_span;
                *open = still_open;
                true
            }
            Run::Parallel(_) => false,
        }
    }

    /// A single run lets go of its stream until [`Trace::grow`] hands it back (it holds an
    /// empty one meanwhile), so that a stream no one else holds can grow in place rather than
    /// be copied. Returns whether it let go (a parallel run keeps its own copy).
    pub fn release_stream(&mut self) -> bool {
        match &mut self.run {
            Run::Single { stream, .. } => {
                *stream = Arc::default();
                true
            }
            Run::Parallel(_) => false,
        }
    }

    /// Whether the input is still open: more events may come (a live producer).
    pub fn input_open(&self) -> bool {
        matches!(self.run, Run::Single { open: true, .. })
    }

    /// A single processor's run before its first event.
    pub fn single_start(cfg: EngineConfig, stream: Arc<Stream>, span: (f64, f64)) -> Trace {
        let timeline = Timeline::new(cfg, &stream);
        Trace::single(stream, span, timeline)
    }

    /// A parallel job's run.
    pub fn parallel(job: JobTimeline) -> Trace {
        Trace {
            run: Run::Parallel(Box::new(job)),
        }
    }

    // ---- Moves: each takes the playhead and says where it stands after.

    /// Plays on from the playhead `from` to processing time `to`. A single run's playhead
    /// stays within its span, and reaching its end with every event in finishes the input; a
    /// parallel run steps whatever is due by `to`, and its clock is the playhead's.
    pub fn play_to(&mut self, from: Progress, to: f64) -> Progress {
        match &mut self.run {
            Run::Single {
                stream,
                span,
                timeline,
                open,
            } => play_single(stream, (*span, *open), timeline, from, to),
            Run::Parallel(j) => {
                j.advance_to(to);
                progress_of(j)
            }
        }
    }

    /// One move while paused: a single run's next event arrives (at its processing time;
    /// after the last one the end of input, or nothing while the input is open), a parallel
    /// run goes on to its next step. None once a parallel run has finished.
    pub fn step(&mut self, from: Progress) -> Option<Progress> {
        match &mut self.run {
            Run::Single {
                stream,
                timeline,
                open,
                ..
            } => {
                let c = match stream.events.get(from.arrived) {
                    Some(e) => Progress {
                        now: e.proc_time.max(from.now),
                        arrived: from.arrived + 1,
                        finished: from.finished,
                    },
                    // An open input's next event has not come yet: nothing to step to.
                    None if *open => from,
                    None => Progress {
                        finished: true,
                        ..from
                    },
                };
                timeline.advance_to(stream, c.arrived, c.finished);
                Some(c)
            }
            Run::Parallel(j) => j.step_once().then(|| progress_of(j)),
        }
    }

    /// Runs to the end of input: a single run's playhead to the end of its span with every
    /// event in (an open input's: to its live edge, not finished), a parallel run until it has
    /// finished.
    pub fn run_to_end(&mut self, from: Progress) -> Progress {
        match &mut self.run {
            Run::Single {
                stream,
                span,
                timeline,
                open,
            } => {
                // An open input's end is its live edge: every event in so far, not finished.
                let c = Progress {
                    arrived: stream.len(),
                    finished: !*open,
                    ..play_single(stream, (*span, *open), timeline, from, span.1)
                };
                timeline.advance_to(stream, c.arrived, c.finished);
                c
            }
            Run::Parallel(j) => {
                j.run_to_end();
                progress_of(j)
            }
        }
    }

    /// Keeps the run and the playhead `at` together. A run that follows the playhead is
    /// brought up to it (forward only) and answers None; a run that keeps its own clock says
    /// where the playhead stands (a parallel run's clock goes back with a crash).
    pub fn catch_up(&mut self, at: Progress) -> Option<Progress> {
        match &mut self.run {
            Run::Single {
                stream, timeline, ..
            } => {
                timeline.advance_to(stream, at.arrived, at.finished);
                None
            }
            Run::Parallel(j) => Some(progress_of(j)),
        }
    }

    /// Whether the run keeps its own clock, which the playhead follows (a parallel run: a
    /// crash takes it back), rather than following the playhead. Such a run cannot be moved
    /// while a re-run that will replace it is pending, and its end is where running it ends.
    pub fn keeps_own_clock(&self) -> bool {
        matches!(self.run, Run::Parallel(_))
    }

    /// Applies a press at the run's clock; returns it, with the time it was taken at, if it
    /// took effect (a parallel run that has not finished; a single run takes none).
    pub fn press(&mut self, what: Intervention) -> Option<Press> {
        match &mut self.run {
            Run::Single { .. } => None,
            Run::Parallel(j) => {
                if j.press(what) {
                    j.presses().last().copied()
                } else {
                    None
                }
            }
        }
    }

    /// Runs on, one event at a time, until a late or dropped event arrives or the input is
    /// all in; returns that event's offset. None when none arrives, or the run keeps no list
    /// of them ([`Trace::exceptions`]).
    pub fn run_to_next_exception(&mut self) -> Option<usize> {
        let Run::Single {
            stream, timeline, ..
        } = &mut self.run
        else {
            return None;
        };
        let seen = timeline.exceptions().len();
        while timeline.arrived() < stream.len() && timeline.exceptions().len() == seen {
            let next = timeline.arrived() + 1;
            timeline.advance_to(stream, next, false);
        }
        timeline.exceptions().get(seen).map(|e| e.offset)
    }

    // ---- Reads, for every run.

    /// The stream the run reads.
    pub fn stream(&self) -> &Stream {
        match &self.run {
            Run::Single { stream, .. } => stream,
            Run::Parallel(j) => j.pipeline().stream(),
        }
    }

    /// Events arrived: a single run's processed so far; a parallel run's, by its clock.
    pub fn arrived(&self) -> usize {
        match &self.run {
            Run::Single { timeline, .. } => timeline.arrived(),
            Run::Parallel(j) => arrived_by(j.pipeline().stream(), j.now()),
        }
    }

    /// Whether the end of input has been processed (a parallel run: every part finished).
    pub fn is_finished(&self) -> bool {
        match &self.run {
            Run::Single { timeline, .. } => timeline.is_finished(),
            Run::Parallel(j) => j.is_finished(),
        }
    }

    /// The engine configuration the run was made with.
    pub fn config(&self) -> &EngineConfig {
        match &self.run {
            Run::Single { timeline, .. } => timeline.config(),
            Run::Parallel(j) => &j.config().engine,
        }
    }

    /// The counters so far (a parallel run's operators', summed: they roll back with a crash).
    pub fn counters(&self) -> Counters {
        match &self.run {
            Run::Single { timeline, .. } => *timeline.counters(),
            Run::Parallel(j) => j.pipeline().counters(),
        }
    }

    /// The watermark now (a parallel run's: the smallest of its operators'); +∞ after the end
    /// of input, −∞ before the first event.
    pub fn watermark(&self) -> f64 {
        match &self.run {
            Run::Single { timeline, .. } => timeline.watermark(),
            Run::Parallel(j) => j.watermark(),
        }
    }

    /// The watermark at processing time `t`: a single run's after the latest arrival at or
    /// before it, a parallel run's latest sample at or before it.
    pub fn watermark_at(&self, t: f64) -> Option<f64> {
        match &self.run {
            Run::Single {
                stream, timeline, ..
            } => timeline.watermark_at(stream, t),
            Run::Parallel(j) => {
                let points = j.watermarks();
                let i = points.partition_point(|&(pt, _)| pt <= t).checked_sub(1)?;
                points.get(i).map(|&(_, wm)| wm)
            }
        }
    }

    /// The fate of the event at stream offset `offset`, once the run has taken it.
    pub fn fate(&self, offset: usize) -> Option<Fate> {
        match &self.run {
            Run::Single { timeline, .. } => timeline.fates().get(offset).copied(),
            Run::Parallel(j) => j.fates().get(offset).copied().flatten(),
        }
    }

    /// The arrived events that were late or dropped, in processing order; None for a run
    /// that keeps no such list (a parallel run: a replay changes them).
    pub fn exceptions(&self) -> Option<&[Exception]> {
        self.timeline().map(Timeline::exceptions)
    }

    /// Whether the run can say why an event met its fate ([`Trace::inspect`]): the single
    /// processor decides it once per window, by one inequality; a parallel run's operators
    /// decide it again with each replay.
    pub fn explains_fates(&self) -> bool {
        self.timeline().is_some()
    }

    /// Why the event at `offset` (in processing order, already arrived) met its fate.
    pub fn inspect(&self, offset: usize) -> Option<Inspection> {
        self.timeline()?.inspect(self.stream(), offset)
    }

    /// The arrived event nearest to (event time, processing time), distances in units of
    /// `scale` (ms per unit on each axis), among those the run can explain
    /// ([`Trace::explains_fates`]).
    pub fn nearest(&self, at: (f64, f64), scale: (f64, f64)) -> Option<usize> {
        self.timeline()?.nearest(self.stream(), at, scale)
    }

    /// Windows open now; a parallel run counts its operators' cells, not windows (None).
    pub fn open_windows(&self) -> Option<usize> {
        self.timeline().map(Timeline::open_windows)
    }

    /// Cells open now (a parallel run: over its operators).
    pub fn open_cells(&self) -> usize {
        match &self.run {
            Run::Single { timeline, .. } => timeline.open_cells(),
            Run::Parallel(j) => j.operator_totals().open_cells,
        }
    }

    /// The state held now, bytes (a parallel run: over its operators).
    pub fn state_bytes(&self) -> usize {
        match &self.run {
            Run::Single { timeline, .. } => timeline.state_bytes(),
            Run::Parallel(j) => j.operator_totals().state_bytes,
        }
    }

    /// Every pane emitted so far, in emission order (a parallel run: those its sink
    /// received, replays included).
    pub fn panes(&self) -> &[Pane] {
        match &self.run {
            Run::Single { timeline, .. } => timeline.panes(),
            Run::Parallel(j) => j.pipeline().panes(),
        }
    }

    /// The panes of one cell, oldest first.
    pub fn panes_of(&self, cell: CellId) -> impl Iterator<Item = &Pane> + '_ {
        self.panes().iter().filter(move |p| p.cell == cell)
    }

    /// One row of the windows table for `window`, for `key` or (None) all `keys` together.
    pub fn window_row(
        &self,
        window: WindowId,
        key: Option<KeyId>,
        keys: usize,
        truth: &BTreeMap<CellId, u64>,
    ) -> WindowRow {
        match &self.run {
            Run::Single { timeline, .. } => timeline.window_row(window, key, keys, truth),
            Run::Parallel(j) => j.window_row(window, key, keys, truth),
        }
    }

    /// The whole run's score, once a single run has processed the end of input (None before,
    /// and for a parallel run: its sinks are scored apart, [`Trace::sinks`]).
    pub fn final_score(&self, truth: &BTreeMap<CellId, u64>) -> Option<FrontierPoint> {
        self.timeline()?.final_score(truth)
    }

    // ---- The engines underneath, for tests and tools; the UI reads the methods above.

    /// The single processor's timeline, when that is the run.
    pub fn timeline(&self) -> Option<&Timeline> {
        match &self.run {
            Run::Single { timeline, .. } => Some(timeline),
            Run::Parallel(_) => None,
        }
    }

    /// The parallel job, when that is the run.
    pub fn job(&self) -> Option<&JobTimeline> {
        match &self.run {
            Run::Single { .. } => None,
            Run::Parallel(j) => Some(j),
        }
    }
}

mod history;
mod job;
mod panes;
mod partitions;
pub mod sessions;
#[cfg(test)]
mod tests;
mod wrong;
