//! Job mode in the UI: entering and leaving it, and the presses (crashes, checkpoints,
//! partitions cut and healed), each the steered run's ([`SteeredRun::set_job_mode`],
//! [`SteeredRun::press`]) with what the UI resets around it: the crash picked, the crash reports
//! closed, the inspector, a focus on a dial the single run does not have.
//!
//! [`SteeredRun::set_job_mode`]: twoclocks_engine::steered::SteeredRun::set_job_mode
//! [`SteeredRun::press`]: twoclocks_engine::steered::SteeredRun::press

use twoclocks_engine::job_timeline::Intervention;
use twoclocks_engine::pipeline::PipelineConfig;
use twoclocks_engine::steered::JobPreset;

use super::{App, Dial};

impl App {
    /// The parallel job's configuration for the dials.
    pub fn job_config(&self) -> PipelineConfig {
        self.steered.job_config()
    }

    /// Opens job mode on a job of this shape (with its outages); its checkpoint interval and
    /// idle timeout preset the dials (they become the steered run's settings).
    pub fn open_job(&mut self, preset: impl Into<JobPreset>) {
        let preset = preset.into();
        if !self.steered.parallel() {
            self.entering_or_leaving_job();
        }
        self.steered.open_job(preset);
    }

    /// Into job mode (the job re-run to the playhead, or to its end once the playhead has
    /// finished; off the UI task for a big input unless `inline`), or out of it (the single
    /// processor re-run to the same processing time).
    pub(super) fn set_job_mode(&mut self, on: bool, inline: bool) {
        if on == self.steered.parallel() {
            return;
        }
        self.entering_or_leaving_job();
        if !on && !Dial::ALL.contains(&self.selection.focus) {
            self.selection.focus = Dial::Lag;
        }
        self.steered.set_job_mode(on, inline);
        self.request_frontier_if_single();
    }

    fn entering_or_leaving_job(&mut self) {
        self.crash_pick = None;
        self.crash_closed = 0;
        self.selection.inspected = None;
    }

    /// Applies a press to the job at the playhead (job mode entered first, at once). Returns
    /// whether it took effect.
    pub(super) fn press(&mut self, what: Intervention) -> bool {
        self.set_job_mode(true, true);
        self.steered.press(what)
    }
}
