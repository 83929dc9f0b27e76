//! What `run` found, before it is written: the numbers of the single processor or of the
//! pipeline ([`RunAnswer`]) and what a run of the pipeline adds ([`PipelineRun`], with its
//! checkpoints and crashes as the JSON writes them). `run` and `pipeline` both build and read
//! these; this file imports neither.

use std::collections::BTreeMap;

use serde::Serialize;

use super::json::SpooledItems;
use crate::engine::pipeline::{PartitionView, PipelineConfig, WatermarkStats};
use crate::engine::{CellId, Counters, Dropped, Pane, SinkKind};

/// The numbers `run` prints, from the single processor or from the pipeline.
pub(super) struct RunAnswer {
    pub(super) counters: Counters,
    pub(super) finals: BTreeMap<CellId, u64>,
    pub(super) panes: Vec<Pane>,
    pub(super) dropped: Vec<Dropped>,
    /// The panes and drops already written as JSON to temporary files, for a log replayed
    /// one event at a time (`panes` and `dropped` are then empty).
    pub(super) spooled_json: Option<(SpooledItems, SpooledItems)>,
    /// The single processor's peak of open cells (the pipeline does not report one).
    pub(super) peak_open_cells: Option<usize>,
    /// What the pipeline adds, when it ran.
    pub(super) pipeline: Option<PipelineRun>,
}

/// What a run of the pipeline adds to the single processor's answer.
pub(super) struct PipelineRun {
    pub(super) cfg: PipelineConfig,
    /// The sink whose output is listed.
    pub(super) sink: SinkKind,
    /// Its value of every cell.
    pub(super) sink_output: BTreeMap<CellId, i64>,
    /// Per sink: total and wrong windows against the oracle.
    pub(super) sinks: Vec<(SinkKind, i64, usize)>,
    pub(super) checkpoints: Vec<CheckpointJson>,
    pub(super) crashes: Vec<CrashJson>,
    pub(super) not_reached: Vec<f64>,
    pub(super) panes_received: u64,
    /// What each source partition did.
    pub(super) partitions: Vec<PartitionView>,
    pub(super) stats: WatermarkStats,
    /// Outages or idleness were asked for: the table shows the partitions.
    pub(super) partition_experiment: bool,
}

#[derive(Serialize)]
pub(super) struct CheckpointJson {
    pub(super) id: u32,
    pub(super) time_ms: f64,
    pub(super) completed_ms: f64,
    pub(super) offsets: Vec<usize>,
    pub(super) bytes: usize,
    /// Per operator, from its first barrier to its snapshot.
    pub(super) alignment_ms: Vec<f64>,
    /// Unaligned barriers: in-flight messages stored with the checkpoint.
    pub(super) in_flight: usize,
}

#[derive(Serialize)]
pub(super) struct CrashJson {
    pub(super) time_ms: f64,
    pub(super) target: String,
    pub(super) restored_checkpoint: Option<u32>,
    pub(super) restored_time_ms: f64,
    pub(super) offsets: Vec<usize>,
    pub(super) events_replayed: usize,
    pub(super) duplicate_panes: usize,
    pub(super) additive_overcount: i64,
    pub(super) message: String,
}
