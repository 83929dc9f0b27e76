//! Job mode: the parallel pipeline (sources → keyed operators → sinks, with checkpoints) run
//! to the playhead in place of the single processor. What it shows is a function of the
//! settings, the playhead and the presses (crashes, checkpoints taken on demand, partitions cut
//! off and healed): a dial change re-runs the job from the start with the same presses at the
//! same points. Outages given in advance (`--outage`, a scenario's) are part of the job:
//! applied first at every re-run.

use crate::job_timeline::{Intervention, JobTimeline, Press};
use crate::pipeline::{Outage, PipelineConfig};
use crate::rerun::{Rerun, RunPlan};
use crate::scenario::JobShape;
use crate::trace::Trace;

use super::{Settings, SteeredRun};

/// A job given in advance: its shape, and the outages given with it, each a partition cut
/// off at its start and healed at its end as if it had been pressed then.
#[derive(Debug, Clone, PartialEq)]
pub struct JobPreset {
    /// The job's shape (and the settings it opens with).
    pub config: PipelineConfig,
    /// Partitions silent for a while, in processing time.
    pub outages: Vec<Outage>,
}

impl From<PipelineConfig> for JobPreset {
    fn from(config: PipelineConfig) -> Self {
        JobPreset {
            config,
            outages: Vec::new(),
        }
    }
}

impl JobPreset {
    /// The job's source partitions, P.
    pub const PARTITIONS: usize = 2;
    /// The job's keyed window operator instances, N.
    pub const OPERATORS: usize = 4;
    /// The seed of the job's channel transit times.
    pub const SEED: u64 = 1;

    /// The job a built-in scenario runs as (its shape and outages): on the settings' engine and
    /// idle timeout, the default seed, and `checkpoint_every` where the scenario gives none.
    pub fn of_scenario(shape: &JobShape, settings: &Settings, checkpoint_every: f64) -> JobPreset {
        let mut config = PipelineConfig::new(settings.engine);
        config.partitions = shape.partitions;
        config.partition_by = shape.partition_by;
        config.parallelism = shape.parallelism;
        config.seed = JobPreset::SEED;
        config.checkpoint_every = shape.checkpoint_every.or(Some(checkpoint_every));
        config.idle_timeout = settings.idle_timeout;
        config.keep_outputs = false;
        JobPreset {
            config,
            outages: shape.outages.clone(),
        }
    }
}

impl SteeredRun {
    /// The parallel job's configuration for the settings.
    pub fn job_config(&self) -> PipelineConfig {
        let shape = self.job_preset.unwrap_or(PipelineConfig {
            partitions: JobPreset::PARTITIONS,
            parallelism: JobPreset::OPERATORS,
            seed: JobPreset::SEED,
            ..PipelineConfig::new(self.settings.engine)
        });
        PipelineConfig {
            engine: self.settings.engine,
            checkpoint_every: self.settings.checkpoint_every,
            idle_timeout: self.settings.idle_timeout,
            ..shape
        }
    }

    /// Opens job mode on a job of this shape (with its outages); its checkpoint interval and
    /// idle timeout become the settings'.
    pub fn open_job(&mut self, preset: impl Into<JobPreset>) {
        let JobPreset { config, outages } = preset.into();
        self.job_preset = Some(config);
        self.job_outages = outages;
        self.settings.checkpoint_every = config.checkpoint_every;
        self.settings.idle_timeout = config.idle_timeout;
        if self.parallel {
            self.rerun_job(false);
        } else {
            self.set_job_mode(true, false);
        }
    }

    /// Re-runs the job from the start to the playhead (to its end once the playhead has
    /// finished), applying the presses at their points. A big input is re-run as a
    /// [`crate::rerun::PendingRerun`] unless `inline`: the job drawn until then is the last one (an
    /// empty one when job mode is just being entered).
    pub(super) fn rerun_job(&mut self, inline: bool) {
        let start = self.scenario.oracle.proc_time.0;
        let cfg = self.job_config();
        let rerun = Rerun {
            stream: self.scenario.stream.clone(),
            truth: self.scenario.oracle.truth.clone(),
            plan: RunPlan::Job {
                cfg,
                presses: self.job_presses(),
            },
            arrived: self.progress.arrived,
            now: self.progress.now.max(start),
            finish: self.progress.finished,
        };
        // Off the UI task, a job being entered is drawn empty until the answer.
        let off = !inline && self.scenario.len() > self.inline_events;
        if off && self.trace.pipeline_config().is_none() {
            match JobTimeline::new(self.scenario.stream.clone(), cfg) {
                Ok(j) => self.trace = Trace::parallel(j),
                Err(_) => {
                    self.parallel = false;
                    return;
                }
            }
        }
        self.launch(rerun, inline);
    }

    /// What a re-run applies: the outages given in advance (before the job's first step), then
    /// the user's presses in order.
    fn job_presses(&self) -> Vec<Press> {
        self.job_outages
            .iter()
            .map(|&o| Press {
                time: f64::NEG_INFINITY,
                what: Intervention::Outage(o),
            })
            .chain(self.presses.iter().copied())
            .collect()
    }

    /// Into job mode (the job re-run to the playhead, or to its end once the playhead has
    /// finished; as a pending re-run for a big input unless `inline`), or out of it (the single
    /// processor re-run to the same processing time). Returns whether the mode changed.
    pub fn set_job_mode(&mut self, on: bool, inline: bool) -> bool {
        if on == self.parallel {
            return false;
        }
        self.parallel = on;
        if on {
            self.rerun_job(inline);
        } else {
            let now = self.progress.now;
            let arrived = self.arrived_by(now);
            let finished =
                arrived >= self.scenario.len() && now >= self.scenario.oracle.proc_time.1;
            self.place(now, arrived, finished);
            self.rerun();
        }
        true
    }

    /// Applies a press to the job at the playhead and, if it took effect, keeps it with the
    /// time the job took it at (job mode is entered first, at once). The presses are kept here,
    /// the one record a re-run replays: the trace's own list is only what this run took.
    pub fn press(&mut self, what: Intervention) -> bool {
        self.set_job_mode(true, true);
        let taken = self.trace.press(what);
        self.follow();
        self.presses.extend(taken);
        taken.is_some()
    }

    /// Takes a job as it is in another steered run (side by side, B following A's): whether it is
    /// asked for, its shape, outages and presses, in place of this one's, without re-running.
    pub fn follow_job(
        &mut self,
        parallel: bool,
        preset: Option<PipelineConfig>,
        outages: Vec<Outage>,
        presses: Vec<Press>,
    ) {
        self.parallel = parallel;
        self.job_preset = preset;
        self.job_outages = outages;
        self.presses = presses;
    }
}
