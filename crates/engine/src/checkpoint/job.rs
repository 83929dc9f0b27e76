//! Block 6's single job ([`Job`]): the parallel pipeline at width one, run by source offsets
//! along a crash schedule, writing to the sinks of `checkpoint/mod.rs`. It lives apart from the
//! sinks because it drives a `Pipeline`, which itself writes to those sinks.

use std::collections::BTreeMap;

use super::{Checkpoint, ScheduleStep, Sink, SinkKind};
use crate::pipeline::{CrashRecord, Pipeline, PipelineConfig};
use crate::processor::EngineConfig;
use crate::stream::Stream;
use crate::window::CellId;

/// Block 6's job over a stream: the parallel [`Pipeline`] at its narrowest (one source
/// partition, one operator, channels that deliver at once), run by source offsets, so that a
/// checkpoint or a crash happens where a single processor reading the stream in order would
/// take it. Its checkpoints, crashes and sinks are the pipeline's.
#[derive(Debug, Clone)]
pub struct Job<'a> {
    pipeline: Pipeline<&'a Stream>,
    /// The sinks asked for (the pipeline feeds all three).
    kinds: Vec<SinkKind>,
}

impl<'a> Job<'a> {
    /// A job at offset 0, writing to one sink of each kind given.
    pub fn new(stream: &'a Stream, cfg: EngineConfig, sinks: &[SinkKind]) -> Self {
        let cfg = PipelineConfig {
            transit: 0.0,
            ..PipelineConfig::new(cfg)
        };
        Job {
            pipeline: Pipeline::new(stream, cfg)
                .expect("one partition, one operator and instant channels are valid dials"),
            kinds: sinks.to_vec(),
        }
    }

    /// The pipeline it runs, for everything else it tells.
    pub fn pipeline(&self) -> &Pipeline<&'a Stream> {
        &self.pipeline
    }

    /// Events emitted in the current timeline: the offset to resume from.
    pub fn offset(&self) -> usize {
        self.pipeline.emitted()
    }

    /// Checkpoints whose state is held in memory to be restored: the latest one only (none
    /// before the first).
    pub fn snapshots_held(&self) -> usize {
        self.pipeline.snapshots_held()
    }

    /// The completed checkpoints' records, in order.
    pub fn checkpoints(&self) -> &[Checkpoint] {
        self.pipeline.checkpoints()
    }

    /// What each crash did, in order.
    pub fn crashes(&self) -> &[CrashRecord] {
        self.pipeline.crashes()
    }

    /// Events processed, replays included.
    pub fn processed(&self) -> u64 {
        self.pipeline.emitted_total()
    }

    /// Processes events until the offset reaches `upto` (or the end of the stream).
    pub fn consume(&mut self, upto: usize) {
        self.pipeline.run_to_offset(upto);
    }

    /// Snapshots state and offset together; the transactional sink commits what it staged
    /// before. `None` once the job has finished.
    pub fn checkpoint(&mut self) -> Option<&Checkpoint> {
        let taken = self.pipeline.checkpoints().len();
        let at = self.offset();
        self.pipeline
            .run_schedule_step(ScheduleStep::Checkpoint { at });
        self.pipeline.checkpoints().get(taken)
    }

    /// Dies now and comes back from the last checkpoint (or the start). `None` once the job has
    /// finished.
    pub fn crash(&mut self) -> Option<&CrashRecord> {
        let crashed = self.pipeline.crashes().len();
        let at = self.offset();
        self.pipeline.run_schedule_step(ScheduleStep::Crash { at });
        self.pipeline.crashes().get(crashed)
    }

    /// Applies a schedule, then runs to the end of the stream.
    pub fn run_schedule(&mut self, schedule: &[ScheduleStep]) {
        self.pipeline.run_schedule(schedule);
    }

    /// Runs to the end of the stream, closes the input and commits.
    pub fn finish(&mut self) {
        self.pipeline.run_to_end();
    }

    /// The job's final value per cell.
    pub fn finals(&self) -> BTreeMap<CellId, u64> {
        self.pipeline.finals().clone()
    }

    /// The sink of a kind, if the job writes to one.
    pub fn sink(&self, kind: SinkKind) -> Option<&Sink> {
        self.kinds.contains(&kind).then(|| self.pipeline.sink(kind))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::{Stream, StreamParams};

    #[test]
    fn crash_replays_and_exactly_once_sinks_hold() {
        let stream = Stream::generate(&StreamParams {
            events: 3000,
            ..Default::default()
        })
        .unwrap();
        let cfg = EngineConfig::fixed(5_000.0, 10_000.0);
        let mut clean = Job::new(&stream, cfg, &SinkKind::ALL);
        clean.finish();
        let mut crashed = Job::new(&stream, cfg, &SinkKind::ALL);
        crashed.run_schedule(&ScheduleStep::reference_schedule(stream.len()));
        assert_eq!(clean.finals(), crashed.finals());
        for kind in [SinkKind::Idempotent, SinkKind::Transactional] {
            assert_eq!(
                clean.sink(kind).unwrap().output(),
                crashed.sink(kind).unwrap().output(),
                "{kind}"
            );
        }
        assert_ne!(
            clean.sink(SinkKind::Additive).unwrap().output(),
            crashed.sink(SinkKind::Additive).unwrap().output()
        );
        assert_eq!(crashed.crashes().len(), 5);
        // The last crash is due past the end of the stream, so it replays only what is left.
        let replayed: Vec<_> = crashed.crashes().iter().map(|c| c.replayed).collect();
        assert_eq!(replayed, vec![800, 800, 800, 800, 500]);
    }

    #[test]
    fn only_the_latest_checkpoint_is_held_whole() {
        let stream = Stream::generate(&StreamParams {
            events: 3000,
            ..Default::default()
        })
        .unwrap();
        let cfg = EngineConfig::fixed(5_000.0, 10_000.0);
        let mut clean = Job::new(&stream, cfg, &SinkKind::ALL);
        clean.finish();
        let mut job = Job::new(&stream, cfg, &SinkKind::ALL);
        let schedule: Vec<ScheduleStep> = (1..2900)
            .map(|at| ScheduleStep::Checkpoint { at })
            .chain([ScheduleStep::Crash { at: 2950 }])
            .collect();
        job.run_schedule(&schedule);
        assert_eq!(job.checkpoints().len(), 2899);
        assert!(job.snapshots_held() <= 1, "{}", job.snapshots_held());
        assert_eq!(job.crashes()[0].restored, Some(2899));
        assert_eq!(job.crashes()[0].replayed, 51);
        assert_eq!(job.finals(), clean.finals());
    }
}
