//! The dials of a pipeline ([`PipelineConfig`]), how operators treat barriers
//! ([`CheckpointMode`]) and why dials are refused ([`PipelineError`]).

use super::super::processor::EngineConfig;
use super::MAX_WIDTH;

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

/// The dials of a pipeline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PipelineConfig {
    /// What each operator instance runs: window function, watermark, grace, triggers, accumulation.
    pub engine: EngineConfig,
    /// Source partitions, P.
    pub partitions: usize,
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
    /// Keep every pane the sink received and every dropped event (for output listings).
    pub keep_outputs: bool,
    /// Keep, in every operator's state, which records it has absorbed (for checking alignment).
    pub audit: bool,
}

impl PipelineConfig {
    /// One partition, one operator, no periodic checkpoint, 200 ms mean transit, seed 1.
    pub fn new(engine: EngineConfig) -> Self {
        PipelineConfig {
            engine,
            partitions: 1,
            parallelism: 1,
            checkpoint_every: None,
            mode: CheckpointMode::ExactlyOnce,
            seed: 1,
            transit: 200.0,
            watermark_every: 1_000.0,
            keep_outputs: false,
            audit: false,
        }
    }

    /// Checks the dials: 1 to [`MAX_WIDTH`] partitions and operators, a finite checkpoint interval
    /// above 0 if any, a finite transit time ≥ 0 and a finite watermark interval above 0.
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
        Ok(())
    }
}

/// Why pipeline dials were refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PipelineError {
    /// The number of source partitions is outside 1 to [`MAX_WIDTH`].
    #[error("--partitions must be between 1 and {MAX_WIDTH}, got {0}")]
    Partitions(usize),
    /// The number of operator instances is outside 1 to [`MAX_WIDTH`].
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
    /// An operator instance was named (for a crash) that the pipeline does not have: its number,
    /// then the parallelism.
    #[error("operator {0} does not exist (parallelism {1})")]
    NoSuchOperator(usize, usize),
}
