//! The read model's answers only a parallel run has: its shape and topology, its sinks and
//! their scores against the oracle, the operators its state is spread over, each partition's
//! watermark, its crashes and checkpoints, the records it took again and the presses it took.
//! A single run answers `None`, or nothing, and a panel draws what is there.

use std::collections::BTreeMap;

use super::{SinkReport, Trace};
use crate::checkpoint::SinkKind;
use crate::job_timeline::{JobTimeline, Press};
use crate::pipeline::{CompletedCheckpoint, CrashRecord, PipelineConfig, Topology};
use crate::window::CellId;

impl Trace {
    /// The parallel run's shape: partitions, operators, barriers, checkpoint interval, seed.
    pub fn pipeline_config(&self) -> Option<&PipelineConfig> {
        self.job().map(JobTimeline::config)
    }

    /// The parallel run as its pipeline sees it now: sources, channels, operators, the sink.
    pub fn topology(&self) -> Option<Topology> {
        self.job().map(|j| j.pipeline().topology())
    }

    /// The sinks the run writes to, in [`SinkKind::ALL`] order (none for a single run).
    pub fn sink_kinds(&self) -> &'static [SinkKind] {
        match self.job() {
            Some(_) => &SinkKind::ALL,
            None => &[],
        }
    }

    /// The parallel run's sinks against the oracle: a cell short of it is open until its
    /// window is final in the run.
    pub fn sinks(&self, truth: &BTreeMap<CellId, u64>) -> Option<SinkReport> {
        self.job().map(|j| SinkReport {
            scores: j.sink_scores(truth),
            overcount: j.overcount(),
            duplicate_panes: j.duplicate_panes(),
            over: j.over_by_cause(),
        })
    }

    /// The operator instances the run's state is spread over (None: a single processor).
    pub fn operators(&self) -> Option<usize> {
        self.job().map(|j| j.operator_totals().operators)
    }

    /// Each source partition's watermark over processing time, one lane per partition
    /// (none for a single run).
    pub fn partition_watermarks(&self) -> &[Vec<(f64, f64)>] {
        self.job().map_or(&[], JobTimeline::partition_watermarks)
    }

    /// The crashes so far, in order.
    pub fn crashes(&self) -> &[CrashRecord] {
        self.job().map_or(&[], JobTimeline::crashes)
    }

    /// The latest crash, if any.
    pub fn last_crash(&self) -> Option<&CrashRecord> {
        self.crashes().last()
    }

    /// Per crash so far, in order, what it adds to the additive sink's final total: the figure
    /// `run` gives for the same crashes ([`JobTimeline::crash_excess`]).
    pub fn crash_excess(&self) -> &[i64] {
        self.job().map_or(&[], JobTimeline::crash_excess)
    }

    /// What the latest crash adds to the additive sink's final total, if any crash has
    /// happened.
    pub fn last_crash_excess(&self) -> Option<i64> {
        self.crash_excess()
            .get(self.crashes().len().checked_sub(1)?)
            .copied()
    }

    /// The completed checkpoints, in order.
    pub fn checkpoints(&self) -> &[CompletedCheckpoint] {
        self.job().map_or(&[], |j| j.pipeline().checkpoints())
    }

    /// Checkpoints begun and abandoned by a crash before they completed, so far: with the
    /// completed ones they are every checkpoint id taken (ids keep growing across crashes).
    pub fn abandoned_checkpoints(&self) -> usize {
        self.crashes().iter().map(|c| c.abandoned.len()).sum()
    }

    /// The latest completed checkpoint, if any.
    pub fn last_checkpoint(&self) -> Option<&CompletedCheckpoint> {
        self.job()?.pipeline().last_completed()
    }

    /// Whether a restored run is reading again what it had read before its crash.
    pub fn is_replaying(&self) -> bool {
        self.job().is_some_and(|j| j.pipeline().is_replaying())
    }

    /// Records the operators took again since the latest crash.
    pub fn redelivered(&self) -> usize {
        self.job().map_or(0, JobTimeline::redelivered)
    }

    /// The presses this run took, in order (the record a re-run replays is the caller's).
    pub fn presses(&self) -> &[Press] {
        self.job().map_or(&[], JobTimeline::presses)
    }
}
