//! Running the pipeline by source offsets rather than by processing time: up to a number of
//! events emitted, with everything in flight then delivered, so that a checkpoint or a crash
//! happens with the job at rest at that offset. A schedule by offsets ([`ScheduleStep`], the
//! reference's five crashes of block 6) is applied this way; at width one with instant
//! channels the job then takes each step exactly where a single processor reading the stream
//! in order would.

use std::borrow::Borrow;

use super::restore::CrashTarget;
use super::schedule::Scope;
use super::Pipeline;
use crate::checkpoint::ScheduleStep;
use crate::stream::Stream;

impl<S: Borrow<Stream>> Pipeline<S> {
    /// Runs until the sources have emitted `upto` events in all (every event, if there are
    /// fewer, without ending the input), then delivers everything in flight without emitting
    /// more. Checkpoint triggers and scheduled crashes happen on the way when due.
    pub fn run_to_offset(&mut self, upto: usize) {
        while self.emitted() < upto && !self.drained() && self.step_in(Scope::Events).is_some() {}
        self.deliver_in_flight();
    }

    /// Applies one step of a schedule by offsets: runs to its offset
    /// ([`Pipeline::run_to_offset`]), then crashes the whole job, or takes a checkpoint and
    /// delivers its barriers, so that it completes before anything else is emitted. Nothing
    /// happens past the end of the job.
    pub fn run_schedule_step(&mut self, step: ScheduleStep) {
        match step {
            ScheduleStep::Checkpoint { at } => {
                self.run_to_offset(at);
                if self.checkpoint_now().is_some() {
                    self.deliver_in_flight();
                }
            }
            ScheduleStep::Crash { at } => {
                self.run_to_offset(at);
                self.crash_now(CrashTarget::Job);
            }
        }
    }

    /// Applies a schedule by offsets, step by step, then runs to the end of the job.
    pub fn run_schedule(&mut self, schedule: &[ScheduleStep]) {
        for &step in schedule {
            self.run_schedule_step(step);
        }
        self.run_to_end();
    }

    /// Every partition has emitted its last event (its end of input may not be sent yet).
    fn drained(&self) -> bool {
        self.sources
            .iter()
            .zip(&self.partitions)
            .all(|(s, events)| s.offset >= events.len())
    }

    /// Delivers everything in flight, operators and sink, without emitting more.
    fn deliver_in_flight(&mut self) {
        while self.step_in(Scope::Deliveries).is_some() {}
    }
}
