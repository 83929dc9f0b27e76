//! The parallel job up to a playhead, one of the two engines behind the terminal UI's
//! [`super::trace::Trace`]: a [`Pipeline`] driven to a processing time, with the user's presses
//! (crash the job or one operator, checkpoint now) applied in the order they were pressed, and what
//! the steps said along the way (each record's fate at its operator, how often it was delivered,
//! the job's watermark and each source partition's). Pure: the UI only reads it, and every rule it
//! reports (routing, barriers, alignment, restore, the sinks) is the pipeline's.
//!
//! A press is kept with the processing time it happened at, so a re-run with other dials
//! ([`JobTimeline::run_to`]) applies it again at the same point: the presses are applied in
//! order, each once the job has run up to its time. Processing time goes back on a crash (the
//! clock returns to the restored checkpoint's time) and the replay takes the same course
//! again; playing forward extends the current run ([`JobTimeline::advance_to`]).

use std::borrow::Borrow;
use std::collections::BTreeMap;
use std::sync::Arc;

use super::checkpoint::SinkKind;
use super::lateness::Fate;
use super::pipeline::{
    CrashExcess, CrashRecord, CrashTarget, Outage, Outcome, Pipeline, PipelineConfig,
    PipelineError, Step, StepEvent,
};
use super::stream::{KeyId, Stream};
use super::window::{CellId, WindowId};
pub use super::window_row::Standing;
use super::window_row::{OverCount, Phase, StateSample, WindowRow};

/// What the user pressed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Intervention {
    /// The whole job, or one operator instance, fails.
    Crash(CrashTarget),
    /// Barriers are injected at every live source.
    Checkpoint,
    /// This source partition is cut off: it delivers nothing until healed (an outage from
    /// the press to +∞).
    Cut(usize),
    /// This source partition's outage ends: what it held back is delivered.
    Heal(usize),
    /// An outage given in advance (`--outage`, a scenario's): the partition is cut off at its
    /// start and healed at its end, as if cut and healed then.
    Outage(Outage),
}

// An outage's times are never NaN (the pipeline refuses them), so equality is total.
impl Eq for Intervention {}

/// A press at a processing time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Press {
    /// The processing time the job had been run to when it was pressed, ms.
    pub time: f64,
    /// A crash (of the job or one operator), a checkpoint on demand, a partition cut or healed.
    pub what: Intervention,
}

/// The job's watermark is sampled this often (processing time, ms).
pub(crate) const WATERMARK_SAMPLE: f64 = 1_000.0;

/// One sink's standing against the oracle.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SinkScore {
    /// Which sink: additive, idempotent or transactional.
    pub kind: SinkKind,
    /// Σ of the values it holds.
    pub total: i64,
    /// Cells of the oracle whose value it holds is [`Standing::Wrong`] (a missing cell counts
    /// as 0): once the job has finished, every cell that differs.
    pub wrong: usize,
    /// Cells still short of the oracle whose window is not final: incomplete, not wrong.
    pub open: usize,
    /// Panes staged, not yet committed (transactional).
    pub staged: usize,
}

/// The sinks' scores, beside [`SinkScore`]: the pipeline's own methods import nothing of the
/// job's read model.
impl<S: Borrow<Stream>> Pipeline<S> {
    /// The three sinks against the oracle, `is_final` saying which windows are final.
    pub fn sink_scores(
        &self,
        truth: &BTreeMap<CellId, u64>,
        is_final: impl Fn(WindowId) -> bool,
    ) -> Vec<SinkScore> {
        let pipeline = self;
        let view = pipeline.sink_view();
        SinkKind::ALL
            .iter()
            .map(|&kind| {
                let out = pipeline.sink_output(kind);
                let (mut wrong, mut open) = (0, 0);
                for (c, &t) in truth {
                    let v = out.get(c).copied().unwrap_or(0);
                    match Standing::of(v, t as i64, is_final(c.window)) {
                        Standing::Right => {}
                        Standing::Open => open += 1,
                        Standing::Wrong => wrong += 1,
                    }
                }
                let staged = view
                    .totals
                    .iter()
                    .find(|s| s.kind == kind)
                    .map_or(0, |s| s.staged);
                SinkScore {
                    kind,
                    total: out.values().sum(),
                    wrong,
                    open,
                    staged,
                }
            })
            .collect()
    }
}

/// The operators' state, summed over the instances.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct OperatorTotals {
    /// Operator instances: the job's parallelism.
    pub operators: usize,
    /// (window, key) cells open now, over every instance.
    pub open_cells: usize,
    /// Estimated bytes of every instance's state now: what a checkpoint would copy of the
    /// operators.
    pub state_bytes: usize,
}

/// The pipeline run up to a playhead, with the presses that shaped it.
#[derive(Debug, Clone)]
pub struct JobTimeline {
    pipeline: Pipeline<Arc<Stream>>,
    presses: Vec<Press>,
    /// The processing time the job has been run to (goes back with a crash).
    at: f64,
    /// Per stream offset: its fate at its operator, the latest time it was delivered.
    fates: Vec<Option<Fate>>,
    /// Per stream offset: how many times an operator took it (replays included).
    deliveries: Vec<u8>,
    /// Records delivered again since the latest crash.
    redelivered: usize,
    /// Per crash, in order, what it adds to the additive sink's final total
    /// ([`CrashExcess::of_latest`]), found when it is pressed.
    excess: Vec<i64>,
    /// (processing time, the smallest operator watermark), every [`WATERMARK_SAMPLE`].
    watermarks: Vec<(f64, f64)>,
    /// Per source partition, (processing time, its watermark), sampled with `watermarks`.
    lanes: Vec<Vec<(f64, f64)>>,
    /// The operators' state, summed, sampled with `watermarks` (one sample per
    /// [`WATERMARK_SAMPLE`] of processing time, not per record).
    states: Vec<StateSample>,
    next_sample: f64,
}

impl JobTimeline {
    /// A job before its first step.
    pub fn new(stream: Arc<Stream>, cfg: PipelineConfig) -> Result<Self, PipelineError> {
        let n = stream.len();
        let pipeline = Pipeline::new(stream, cfg)?;
        let lanes = vec![Vec::new(); cfg.partitions];
        let at = pipeline.now();
        Ok(JobTimeline {
            pipeline,
            presses: Vec::new(),
            at,
            fates: vec![None; n],
            deliveries: vec![0; n],
            redelivered: 0,
            excess: Vec::new(),
            watermarks: Vec::new(),
            lanes,
            states: Vec::new(),
            next_sample: f64::NEG_INFINITY,
        })
    }

    /// Runs from the start with these presses, applied in order, to processing time `now`
    /// (after the last press: the clock may have gone back with a crash).
    pub fn run_to(
        stream: Arc<Stream>,
        cfg: PipelineConfig,
        presses: &[Press],
        now: f64,
    ) -> Result<Self, PipelineError> {
        let mut j = JobTimeline::new(stream, cfg)?;
        for p in presses {
            j.advance_to(p.time);
            j.press(p.what);
        }
        j.advance_to(now);
        Ok(j)
    }

    /// Steps while the next step is due by processing time `t` (never goes back by itself).
    pub fn advance_to(&mut self, t: f64) {
        while let Some(step) = self.pipeline.step_due_by(t) {
            self.record(step);
        }
        self.at = self.at.max(t);
    }

    /// Runs until the job has finished.
    pub fn run_to_end(&mut self) {
        while self.step() {}
        self.at = self.at.max(self.pipeline.now());
    }

    /// Advances to the time of the next step (every step due then): one move while paused.
    /// Returns false once the job has finished.
    pub fn step_once(&mut self) -> bool {
        match self.pipeline.next_time() {
            Some(t) => {
                self.advance_to(t.max(self.at));
                true
            }
            None => false,
        }
    }

    /// Applies a press now, at the processing time the job has been run to, and keeps it.
    /// Returns false when it did nothing (the job has finished, or every source has ended for
    /// a checkpoint, or no such operator or partition, a cut of a partition already cut off
    /// or a heal of one that is not): such a press is not kept.
    pub fn press(&mut self, what: Intervention) -> bool {
        let time = self.at;
        let done = match what {
            Intervention::Checkpoint => self.pipeline.checkpoint_now().is_some(),
            Intervention::Crash(target) => {
                let before = self.pipeline.crashes().len();
                // The job as it was before the crash, run on to the end where the crash's
                // figure needs it (at-least-once barriers): here, where the job is run.
                let uncrashed =
                    CrashExcess::needs_rerun(self.pipeline.config()).then(|| self.pipeline.clone());
                if self.pipeline.is_finished()
                    || self.pipeline.schedule_crash(time, target).is_err()
                {
                    false
                } else {
                    self.step();
                    let taken = self.pipeline.crashes().len() > before;
                    if taken {
                        if let Some(added) =
                            CrashExcess::of_latest(uncrashed.as_ref(), &self.pipeline)
                        {
                            self.excess.push(added);
                        }
                    }
                    taken
                }
            }
            Intervention::Cut(p) => {
                !self.pipeline.is_finished() && self.pipeline.cut_partition_at(p, time) == Ok(true)
            }
            Intervention::Heal(p) => self.pipeline.heal_partition_at(p, time),
            Intervention::Outage(o) => {
                !self.pipeline.is_finished()
                    && self.pipeline.cut_partition_at(o.partition, o.from) == Ok(true)
                    && self.pipeline.heal_partition_at(o.partition, o.until)
            }
        };
        if done {
            self.presses.push(Press { time, what });
        }
        done
    }

    /// One pipeline step, with what it said recorded.
    fn step(&mut self) -> bool {
        let Some(step) = self.pipeline.step() else {
            return false;
        };
        self.record(step);
        true
    }

    /// Takes in a step the job took: the fates, the redeliveries and the samples drawn.
    fn record(&mut self, step: Step) {
        match step.event {
            StepEvent::Delivered {
                outcome:
                    Outcome::Record {
                        stream_offset,
                        fate,
                        replayed,
                        ..
                    },
                ..
            } => {
                if let Some(f) = self.fates.get_mut(stream_offset) {
                    *f = Some(fate);
                }
                if let Some(d) = self.deliveries.get_mut(stream_offset) {
                    *d = d.saturating_add(1);
                }
                if replayed {
                    self.redelivered += 1;
                }
            }
            StepEvent::Crashed => {
                let back = self.pipeline.now();
                self.at = back;
                self.redelivered = 0;
                let keep = self.watermarks.partition_point(|&(t, _)| t <= back);
                self.watermarks.truncate(keep);
                for lane in &mut self.lanes {
                    lane.truncate(keep);
                }
                self.states.truncate(keep);
                self.next_sample = f64::NEG_INFINITY;
                return;
            }
            _ => {}
        }
        if step.time >= self.next_sample {
            self.watermarks.push((step.time, self.watermark()));
            let at = self.pipeline.partition_watermarks();
            for (lane, wm) in self.lanes.iter_mut().zip(at) {
                lane.push((step.time, wm));
            }
            let totals = self.operator_totals();
            self.states.push(StateSample {
                time: step.time,
                open_cells: totals.open_cells,
                state_bytes: totals.state_bytes,
                ttl_expired: self.pipeline.counters().ttl_expired,
            });
            self.next_sample = ((step.time / WATERMARK_SAMPLE).floor() + 1.0) * WATERMARK_SAMPLE;
        }
    }

    /// The engine underneath, read-only.
    pub fn pipeline(&self) -> &Pipeline<Arc<Stream>> {
        &self.pipeline
    }

    /// The dials the job runs with.
    pub fn config(&self) -> &PipelineConfig {
        self.pipeline.config()
    }

    /// The presses applied, in order.
    pub fn presses(&self) -> &[Press] {
        &self.presses
    }

    /// The processing time the job has been run to.
    pub fn now(&self) -> f64 {
        self.at
    }

    /// The sink has had the end of input from every operator: the job is done.
    pub fn is_finished(&self) -> bool {
        self.pipeline.is_finished()
    }

    /// The job's watermark: the smallest of its operators' (+∞ once all have finished).
    pub fn watermark(&self) -> f64 {
        self.pipeline.smallest_operator_watermark()
    }

    /// Whether `window`'s values are final in the job: the job's watermark is past its end by
    /// the grace (the engine's rule), or the job has finished.
    pub fn is_final(&self, window: WindowId) -> bool {
        let e = &self.config().engine;
        self.is_finished()
            || Fate::decide_under(
                e.conventions,
                e.window.end(window),
                self.watermark(),
                e.grace,
                e.window.is_merging(),
            ) == Fate::Dropped
    }

    /// The job's watermark over processing time, sampled (cut back with a crash).
    pub fn watermarks(&self) -> &[(f64, f64)] {
        &self.watermarks
    }

    /// Each source partition's watermark over processing time, sampled with
    /// [`JobTimeline::watermarks`] (cut back with a crash): one lane per partition, where a
    /// silent partition's lane stays flat.
    pub fn partition_watermarks(&self) -> &[Vec<(f64, f64)>] {
        &self.lanes
    }

    /// The operators' state over processing time, summed, sampled with
    /// [`JobTimeline::watermarks`] (cut back with a crash).
    pub fn state_samples(&self) -> &[StateSample] {
        &self.states
    }

    /// Per stream offset, its fate the latest time an operator took it (None: not yet).
    pub fn fates(&self) -> &[Option<Fate>] {
        &self.fates
    }

    /// Per stream offset, how many times an operator took it: 2 and more were replayed.
    pub fn deliveries(&self) -> &[u8] {
        &self.deliveries
    }

    /// Records the operators took again since the latest crash.
    pub fn redelivered(&self) -> usize {
        self.redelivered
    }

    /// Every crash so far, oldest first (a crash is not undone by the replay).
    pub fn crashes(&self) -> &[CrashRecord] {
        self.pipeline.crashes()
    }

    /// The latest crash, if any has happened.
    pub fn last_crash(&self) -> Option<&CrashRecord> {
        self.pipeline.crashes().last()
    }

    /// By how much the additive sink will end over, over every crash so far: what each added
    /// ([`JobTimeline::crash_excess`]).
    pub fn overcount(&self) -> i64 {
        self.excess.iter().sum()
    }

    /// Per crash so far, in order, what it adds to the additive sink's final total: the job run
    /// to the end with the crashes and presses before it, and with it too
    /// ([`CrashExcess::of_latest`], the figure `run` gives).
    pub fn crash_excess(&self) -> &[i64] {
        &self.excess
    }

    /// The three sinks against the oracle: a cell short of it is open until its window is
    /// final in the job ([`JobTimeline::is_final`]).
    pub fn sink_scores(&self, truth: &BTreeMap<CellId, u64>) -> Vec<SinkScore> {
        self.pipeline.sink_scores(truth, |w| self.is_final(w))
    }

    /// The additive sink over the idempotent one, by cause ([`OverCount`]): both receive the
    /// same panes; the idempotent one keeps each pane once and reads the cell's value from its
    /// panes as the accumulation mode means them.
    pub fn over_by_cause(&self) -> OverCount {
        let p = &self.pipeline;
        let additive: i64 = p.sink_output(SinkKind::Additive).values().sum();
        let idempotent = p.sink(SinkKind::Idempotent);
        let once = idempotent.panes_once_total();
        let values: i64 = idempotent.output().values().sum();
        OverCount {
            readded: once - values,
            replayed: additive - once,
        }
    }

    /// Panes the sink received twice, over every crash so far.
    pub fn duplicate_panes(&self) -> usize {
        self.pipeline
            .crashes()
            .iter()
            .map(|c| c.duplicate_panes)
            .sum()
    }

    /// The operators' open cells and state, summed.
    pub(crate) fn operator_totals(&self) -> OperatorTotals {
        let (open_cells, state_bytes) = self.pipeline.operator_state();
        OperatorTotals {
            operators: self.pipeline.config().parallelism,
            open_cells,
            state_bytes,
        }
    }

    /// One row of the windows table for `window`, for `key` or (None) all `keys` together:
    /// the job's own value (Σ of the operators' live state, or the final value the sink
    /// received: it rolls back on a crash), each sink's (they do not) and the oracle's. The
    /// phase is the job watermark's; the job keeps no pane per cell to tell a window taking
    /// late data from one fired on time.
    pub fn window_row(
        &self,
        window: WindowId,
        key: Option<KeyId>,
        keys: usize,
        truth: &BTreeMap<CellId, u64>,
    ) -> WindowRow {
        let cells = CellId::selected(window, key, keys);
        let e = &self.config().engine;
        let phase = if self.is_final(window) {
            Phase::Finalised
        } else if Fate::decide_under(
            e.conventions,
            e.window.end(window),
            self.watermark(),
            e.grace,
            e.window.is_merging(),
        ) == Fate::OnTime
        {
            Phase::Open
        } else {
            Phase::FiredOnTime
        };
        WindowRow {
            window,
            start: e.window.start(window),
            end: e.window.end(window),
            value: cells
                .iter()
                .filter_map(|c| self.pipeline.job_value(*c))
                .map(|v| v as i64)
                .sum(),
            truth: cells
                .iter()
                .filter_map(|c| truth.get(c))
                .map(|&v| v as i64)
                .sum(),
            phase,
            latest: None,
            sinks: Some(SinkKind::ALL.map(|k| self.sink_value(k, &cells))),
            over: Some(self.over_of(&cells)),
        }
    }

    /// [`JobTimeline::over_by_cause`] for `cells` alone: how much of the additive sink's
    /// excess over the idempotent one there is panes added again, how much replayed panes.
    /// Over every cell it adds up to the whole.
    pub fn over_of(&self, cells: &[CellId]) -> OverCount {
        let p = &self.pipeline;
        let additive = p.sink(SinkKind::Additive).output();
        let idempotent = p.sink(SinkKind::Idempotent);
        let values = idempotent.output();
        let once: i64 = cells.iter().map(|&c| idempotent.panes_once_of(c)).sum();
        let sum = |m: &BTreeMap<CellId, i64>| cells.iter().filter_map(|c| m.get(c)).sum::<i64>();
        OverCount {
            readded: once - sum(&values),
            replayed: sum(&additive) - once,
        }
    }

    /// The value a sink holds for each of `cells`, summed.
    pub fn sink_value(&self, kind: SinkKind, cells: &[CellId]) -> i64 {
        let sink = self.pipeline.sink(kind);
        let out = sink.output();
        cells.iter().filter_map(|c| out.get(c)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::Stream;
    use crate::EngineConfig;

    fn cfg() -> PipelineConfig {
        PipelineConfig {
            partitions: 2,
            parallelism: 4,
            checkpoint_every: Some(10_000.0),
            ..PipelineConfig::new(EngineConfig::fixed(20_000.0, 0.0))
        }
    }

    #[test]
    fn a_rerun_applies_the_presses_at_the_same_points() {
        let s = Arc::new(Stream::classroom());
        let mut live = JobTimeline::new(s.clone(), cfg()).unwrap();
        live.advance_to(95_000.0);
        assert!(live.press(Intervention::Checkpoint));
        live.advance_to(212_400.0);
        assert!(live.press(Intervention::Crash(CrashTarget::Job)));
        assert_eq!(live.now(), 210_000.0);
        live.advance_to(214_000.0);
        assert!(live.press(Intervention::Crash(CrashTarget::Operator(1))));
        live.advance_to(300_000.0);
        let again = JobTimeline::run_to(s, cfg(), live.presses(), live.now()).unwrap();
        assert_eq!(again.crashes(), live.crashes());
        assert_eq!(again.pipeline().steps(), live.pipeline().steps());
        assert_eq!(again.pipeline().counters(), live.pipeline().counters());
        assert_eq!(again.fates(), live.fates());
        assert_eq!(live.crashes()[0].time, 212_400.0);
    }

    #[test]
    fn a_crash_during_a_replay_before_the_first_crash_time_is_reproduced() {
        let s = Arc::new(Stream::classroom());
        let mut live = JobTimeline::new(s.clone(), cfg()).unwrap();
        live.advance_to(212_400.0);
        live.press(Intervention::Crash(CrashTarget::Job));
        // Replaying from 210 s: a second crash at 211 s, earlier than the first one's time.
        live.advance_to(211_000.0);
        live.press(Intervention::Crash(CrashTarget::Operator(3)));
        live.advance_to(230_000.0);
        let times: Vec<f64> = live.crashes().iter().map(|c| c.time).collect();
        assert_eq!(times, vec![212_400.0, 211_000.0]);
        for now in [205_000.0, 230_000.0] {
            let again = JobTimeline::run_to(s.clone(), cfg(), live.presses(), now).unwrap();
            assert_eq!(again.crashes(), live.crashes());
        }
        let again = JobTimeline::run_to(s, cfg(), live.presses(), live.now()).unwrap();
        assert_eq!(again.pipeline().steps(), live.pipeline().steps());
        assert_eq!(again.deliveries(), live.deliveries());
    }

    #[test]
    fn each_partition_has_a_watermark_lane_cut_back_with_a_crash() {
        let s = Arc::new(Stream::classroom());
        let mut j = JobTimeline::new(s, cfg()).unwrap();
        j.advance_to(120_000.0);
        let lanes = j.partition_watermarks();
        assert_eq!(lanes.len(), 2);
        assert!(lanes.iter().all(|l| l.len() == j.watermarks().len()));
        // The job's watermark is the smallest operator's, never past a partition's.
        let last = |l: &[(f64, f64)]| l.last().unwrap().1;
        assert!(lanes.iter().all(|l| last(l) >= last(j.watermarks())));
        j.press(Intervention::Crash(CrashTarget::Job));
        let lanes = j.partition_watermarks();
        assert!(lanes.iter().all(|l| l.len() == j.watermarks().len()));
        assert!(lanes[0].last().unwrap().0 <= j.now());
    }

    #[test]
    fn replayed_records_are_delivered_twice() {
        let s = Arc::new(Stream::classroom());
        let mut j = JobTimeline::new(s, cfg()).unwrap();
        // Just after the 180–240 s window fired (lag 20 s): its panes reach the sink again.
        j.advance_to(265_000.0);
        j.press(Intervention::Crash(CrashTarget::Job));
        let replayed = j.last_crash().unwrap().replayed;
        j.run_to_end();
        assert!(j.is_finished());
        // Every replayed record reaches its operator again; those lost in flight at the crash
        // had not reached it the first time.
        assert_eq!(j.redelivered(), replayed);
        assert!(j.deliveries().iter().filter(|&&d| d >= 2).count() <= replayed);
        assert!(j.overcount() > 0);
        assert!(!j.press(Intervention::Crash(CrashTarget::Job)));
        assert_eq!(j.presses().len(), 1);
    }

    /// With a checkpoint every 50 ms only the latest is held whole, and a dial re-run still
    /// restores, for each kept press, the checkpoint the live run restored.
    #[test]
    fn a_rerun_finds_the_checkpoints_its_crashes_restore() {
        let s = Arc::new(Stream::classroom());
        let often = PipelineConfig {
            checkpoint_every: Some(50.0),
            ..cfg()
        };
        let mut live = JobTimeline::new(s.clone(), often).unwrap();
        live.advance_to(150_000.0);
        assert!(live.press(Intervention::Crash(CrashTarget::Job)));
        live.advance_to(150_500.0);
        assert!(live.press(Intervention::Crash(CrashTarget::Operator(2))));
        live.advance_to(260_000.0);
        assert!(live.pipeline().checkpoints().len() > 2000);
        assert!(live.pipeline().snapshots_held() <= 1);
        let restored: Vec<Option<u32>> = live.crashes().iter().map(|c| c.restored).collect();
        assert!(restored.iter().all(Option::is_some), "{restored:?}");
        let again = JobTimeline::run_to(s, often, live.presses(), live.now()).unwrap();
        assert_eq!(again.crashes(), live.crashes());
        assert_eq!(again.fates(), live.fates());
        assert_eq!(again.pipeline().counters(), live.pipeline().counters());
    }

    /// The job's watermark and its operators' totals, read from the operators, say what the
    /// operators' views say, through a crash and to the end.
    #[test]
    fn the_watermark_and_totals_are_the_operator_views() {
        let s = Arc::new(Stream::classroom());
        let mut j = JobTimeline::new(s, cfg()).unwrap();
        let agree = |j: &JobTimeline| {
            let views = j.pipeline().operator_views();
            let smallest = views
                .iter()
                .map(|o| o.watermark)
                .fold(f64::INFINITY, f64::min);
            assert_eq!(j.watermark(), smallest);
            let totals = j.operator_totals();
            assert_eq!(totals.operators, views.len());
            assert_eq!(
                totals.open_cells,
                views.iter().map(|o| o.open_cells).sum::<usize>()
            );
            assert_eq!(
                totals.state_bytes,
                views.iter().map(|o| o.state_bytes).sum::<usize>()
            );
        };
        agree(&j);
        for t in [50_000.0, 120_000.0, 265_000.0] {
            j.advance_to(t);
            agree(&j);
        }
        assert!(j.press(Intervention::Crash(CrashTarget::Job)));
        agree(&j);
        j.run_to_end();
        assert!(j.watermark().is_infinite());
        agree(&j);
    }

    #[test]
    fn a_window_row_sums_its_cells_and_stands_by_the_engines_rule() {
        let s = Arc::new(Stream::classroom());
        let truth = crate::oracle::Oracle::true_counts(&s, &cfg().engine.window);
        let mut j = JobTimeline::new(s, cfg()).unwrap();
        j.advance_to(100_000.0);
        let keys = 4;
        let (w0, w1) = (
            cfg().engine.window.at_index(0),
            cfg().engine.window.at_index(1),
        );
        let all = j.window_row(w1, None, keys, &truth);
        let each: Vec<WindowRow> = (0..keys as KeyId)
            .map(|k| j.window_row(w1, Some(k), keys, &truth))
            .collect();
        assert_eq!(all.value, each.iter().map(|r| r.value).sum::<i64>());
        assert_eq!(all.truth, each.iter().map(|r| r.truth).sum::<i64>());
        for (i, k) in SinkKind::ALL.iter().enumerate() {
            let cells: Vec<CellId> = (0..keys as KeyId)
                .map(|key| CellId { window: w1, key })
                .collect();
            assert_eq!(all.sinks.unwrap()[i], j.sink_value(*k, &cells));
        }
        // At 100 s under a 20 s lag the job's watermark is past 60 s, short of 120 s.
        assert!(j.window_row(w0, None, keys, &truth).is_final());
        assert!(!all.is_final());
        assert_eq!(Standing::of(5, 5, false), Standing::Right);
        assert_eq!(Standing::of(4, 5, false), Standing::Open);
        assert_eq!(Standing::of(4, 5, true), Standing::Wrong);
        assert_eq!(Standing::of(6, 5, false), Standing::Wrong);
        let totals = j.operator_totals();
        assert_eq!(totals.operators, 4);
        assert!(totals.open_cells > 0 && totals.state_bytes > 0);
    }
}
