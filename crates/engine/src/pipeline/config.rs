//! The dials of a pipeline ([`PipelineConfig`]), how events are spread over the source
//! partitions ([`PartitionBy`]), how operators treat barriers ([`CheckpointMode`]) and why
//! dials are refused ([`PipelineError`]).

use crate::processor::EngineConfig;

/// At most this many source partitions and operator instances.
pub(crate) const MAX_WIDTH: usize = 64;

/// Whether operators align barriers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CheckpointMode {
    /// Aligned barriers: each record is in a snapshot or replayed after it, never both.
    #[default]
    ExactlyOnce,
    /// Unaligned barriers: an operator snapshots at the first barrier and forwards it at once;
    /// what its other inputs deliver before their barrier is stored in the checkpoint as
    /// in-flight data and delivered again on restore. The sink pre-commits at the first barrier.
    Unaligned,
    /// Barriers are not aligned: faster inputs keep flowing, and what they deliver before the
    /// last barrier is in the snapshot and replayed too.
    AtLeastOnce,
}

impl CheckpointMode {
    /// The mode as printed and drawn: `aligned`, `unaligned` or `at-least-once`.
    pub fn name(&self) -> &'static str {
        match self {
            CheckpointMode::ExactlyOnce => "aligned",
            CheckpointMode::Unaligned => "unaligned",
            CheckpointMode::AtLeastOnce => "at-least-once",
        }
    }
}

/// How the stream's events are spread over the source partitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PartitionBy {
    /// Event `i` (processing order) goes to partition `i mod P`: every partition carries every
    /// key, and an outage hits a slice of all of them.
    #[default]
    Index,
    /// A key's events all go to one partition, `partition_for(key name, P)`
    /// ([`partition_for`](PipelineConfig::partition_for)): an outage hits whole keys, as when a
    /// group of mobile clients loses the network.
    Key,
}

impl PartitionBy {
    /// The rule as printed: `index` or `key`.
    pub fn name(&self) -> &'static str {
        match self {
            PartitionBy::Index => "index",
            PartitionBy::Key => "key",
        }
    }
}

/// The dials of a pipeline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PipelineConfig {
    /// What each operator instance runs: window function, watermark, grace, triggers, accumulation.
    pub engine: EngineConfig,
    /// Source partitions, P.
    pub partitions: usize,
    /// How events are spread over the partitions.
    pub partition_by: PartitionBy,
    /// Operator instances, N.
    pub parallelism: usize,
    /// Checkpoint interval in processing time, ms (`None`: only on demand).
    pub checkpoint_every: Option<f64>,
    /// How operators and the sink treat checkpoint barriers.
    pub mode: CheckpointMode,
    /// Seed of the channels' transit times.
    pub seed: u64,
    /// Mean transit time of a channel, ms (0: instant, in order).
    pub transit: f64,
    /// How often a source sends its watermark on channels no record carried it on, ms.
    pub watermark_every: f64,
    /// A source partition that has emitted no record for this long (processing time, ms) marks
    /// itself idle, and operators leave it out of their watermark until it emits again
    /// (`None`: partitions never go idle, and a silent one holds every watermark back).
    pub idle_timeout: Option<f64>,
    /// Keep every pane the sink received and every dropped event (for output listings).
    pub keep_outputs: bool,
    /// Keep, in every operator's state, which records it has absorbed (for checking alignment).
    pub audit: bool,
}

impl PipelineConfig {
    /// One partition (by index), one operator, no periodic checkpoint, 200 ms mean transit,
    /// seed 1, no idleness.
    pub fn new(engine: EngineConfig) -> Self {
        PipelineConfig {
            engine,
            partitions: 1,
            partition_by: PartitionBy::Index,
            parallelism: 1,
            checkpoint_every: None,
            mode: CheckpointMode::ExactlyOnce,
            seed: 1,
            transit: 200.0,
            watermark_every: 1_000.0,
            idle_timeout: None,
            keep_outputs: false,
            audit: false,
        }
    }

    /// Checks the dials: 1 to `MAX_WIDTH` (64) partitions and operators, a finite checkpoint
    /// interval above 0 if any, a finite transit time ≥ 0, a finite watermark interval above 0 and
    /// a finite idle timeout above 0 if any.
    pub fn validate(&self) -> Result<(), PipelineError> {
        if !(1..=MAX_WIDTH).contains(&self.partitions) {
            return Err(PipelineError::Partitions(self.partitions));
        }
        if !(1..=MAX_WIDTH).contains(&self.parallelism) {
            return Err(PipelineError::Parallelism(self.parallelism));
        }
        if let Some(every) = self.checkpoint_every {
            if !every.is_finite() || every <= 0.0 {
                return Err(PipelineError::Interval(every));
            }
        }
        if !self.transit.is_finite() || self.transit < 0.0 {
            return Err(PipelineError::Transit(self.transit));
        }
        if !self.watermark_every.is_finite() || self.watermark_every <= 0.0 {
            return Err(PipelineError::WatermarkEvery(self.watermark_every));
        }
        if let Some(t) = self.idle_timeout {
            if !t.is_finite() || t <= 0.0 {
                return Err(PipelineError::IdleTimeout(t));
            }
        }
        Ok(())
    }
}

/// Why pipeline dials were refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PipelineError {
    /// The number of source partitions is outside 1 to `MAX_WIDTH` (64).
    #[error("--partitions must be between 1 and {MAX_WIDTH}, got {0}")]
    Partitions(usize),
    /// The number of operator instances is outside 1 to `MAX_WIDTH` (64).
    #[error("--parallelism must be between 1 and {MAX_WIDTH}, got {0}")]
    Parallelism(usize),
    /// The checkpoint interval (ms) is not a finite duration above 0.
    #[error("--checkpoint-every must be a finite duration greater than 0, got {0} ms")]
    Interval(f64),
    /// The mean transit time (ms) is negative, infinite or NaN.
    #[error("--transit must be a finite duration ≥ 0, got {0} ms")]
    Transit(f64),
    /// The watermark interval (ms) is not a finite duration above 0.
    #[error("the watermark interval must be a finite duration greater than 0, got {0} ms")]
    WatermarkEvery(f64),
    /// The idle timeout (ms) is not a finite duration above 0.
    #[error("--idle-timeout must be a finite duration greater than 0, got {0} ms")]
    IdleTimeout(f64),
    /// An outage names a partition the pipeline does not have: its number, then the number of
    /// partitions.
    #[error("partition {0} does not exist (--partitions {1}: partitions 0 to {max})", max = .1.saturating_sub(1))]
    NoSuchPartition(usize, usize),
    /// An outage does not end after it starts, or starts at no finite time: its start and end, ms.
    #[error("an outage must start at a finite time and end after it starts, got {0} ms to {1} ms")]
    Outage(f64, f64),
    /// An operator instance was named (for a crash) that the pipeline does not have: its number,
    /// then the parallelism.
    #[error("operator {0} does not exist (parallelism {1})")]
    NoSuchOperator(usize, usize),
}
