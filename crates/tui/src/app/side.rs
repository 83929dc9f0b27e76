//! Two policies side by side (`v`): the dials as they are when `v` is pressed are pinned as
//! B, a second [`SteeredRun`] on the same stream, while A keeps the live dials. B only follows:
//! after every update it is brought to A's playhead (forward by moving its own run, backward
//! or after a press by re-running from the start), takes the same job presses (crashes,
//! checkpoints, partition cuts) at the same processing times, and is never re-run for a dial
//! change, since its dials are pinned. A single run's B stands on exactly A's playhead; a
//! job's B keeps its own clock as A's does and is moved to A's processing time (after a crash
//! each goes back to its own last checkpoint). The view draws B as it draws A, through
//! [`App::run_b`]: B's run and dials over A's selection, theme and tour.
//!
//! B is re-run as A is: at once on a small input, else off the UI task (B's pending re-run is
//! handed to the event loop with A's, tagged with the pin it belongs to), B's last run drawn
//! until the answer comes.

use twoclocks_engine::job_timeline::Press;
use twoclocks_engine::pipeline::{Outage, PipelineConfig};
use twoclocks_engine::rerun::RerunDone;

use twoclocks_engine::steered::SteeredRun;

use super::{App, Dials};
use crate::dials::DialMemory;

/// The second run of a side-by-side view.
#[derive(Debug, Clone)]
pub struct Side {
    /// B: A's steered run as it was when pinned, on its own dials, brought to A's playhead after
    /// every update. The view draws its plot and counters as it draws A's.
    pub b: SteeredRun,
    /// What B's dials remember beside the settings B's steered run holds (pinned).
    dial_memory: DialMemory,
    /// Which pin this is: an answer to an earlier B's re-run is not this one's.
    pub pin: u64,
    /// What of A's B was last brought to.
    at: Followed,
}

/// What of A's state B follows: the playhead, the kind of run, the job and its presses.
#[derive(Debug, Clone, PartialEq)]
struct Followed {
    now: f64,
    arrived: usize,
    finished: bool,
    parallel: bool,
    presses: Vec<Press>,
    job_preset: Option<PipelineConfig>,
    job_outages: Vec<Outage>,
}

impl Followed {
    fn of(app: &App) -> Followed {
        let s = &app.steered;
        let c = s.progress();
        Followed {
            now: c.now,
            arrived: c.arrived,
            finished: c.finished,
            parallel: s.parallel(),
            presses: s.presses().to_vec(),
            job_preset: s.job_preset(),
            job_outages: s.job_outages().to_vec(),
        }
    }

    /// Whether going from `self` to `next` needs B re-run from the start: the playhead went
    /// back, the run changed kind, or the job's presses or shape changed.
    fn needs_rerun(&self, next: &Followed) -> bool {
        next.now < self.now
            || next.arrived < self.arrived
            || (self.finished && !next.finished)
            || next.parallel != self.parallel
            || next.presses != self.presses
            || next.job_preset != self.job_preset
            || next.job_outages != self.job_outages
    }
}

impl Side {
    /// B's dials (pinned): the settings B's steered run runs with, and what its dials remember.
    pub fn dials(&self) -> Dials {
        Dials::of(self.b.settings(), &self.dial_memory)
    }
}

impl App {
    /// `v`: pins the dials as they are now as B and splits the screen, or leaves the
    /// side-by-side view. Refused, with a footer message, while a re-run is pending.
    pub(super) fn toggle_side(&mut self) -> bool {
        if self.unpin_side() {
            return true;
        }
        if self.steered.rerunning() {
            return self.say("re-running for the new dials: v again in a moment");
        }
        self.pins += 1;
        self.side = Some(Side {
            b: self.steered.clone(),
            dial_memory: self.dial_memory,
            pin: self.pins,
            at: Followed::of(self),
        });
        true
    }

    /// Leaves side by side, B's re-run in flight stopped. Returns whether B was pinned.
    pub(super) fn unpin_side(&mut self) -> bool {
        match self.side.take() {
            Some(mut side) => {
                side.b.cancel();
                true
            }
            None => false,
        }
    }

    /// Side by side with B on `dials` rather than A's (what a tour step's `side` opens): as
    /// `v`, then B re-run on its own dials at A's playhead. Returns whether B is pinned (`v`
    /// may refuse, saying why).
    pub(super) fn pin_side(&mut self, dials: Dials) -> bool {
        self.unpin_side();
        self.toggle_side();
        let Some(side) = self.side.as_mut() else {
            return false;
        };
        side.dial_memory = dials.memory();
        side.b.set_dials(dials.settings());
        true
    }

    /// Takes B's re-run's answer, if it is for the B pinned now, and brings B on to A's
    /// playhead: A may have moved on while B re-ran (B's answer stands where the re-run was
    /// asked for). Returns whether the answer was taken.
    pub(super) fn finish_b(&mut self, pin: u64, done: RerunDone) -> bool {
        let Some(side) = self.side.as_mut().filter(|s| s.pin == pin) else {
            return false;
        };
        if !side.b.finish(done) {
            return false;
        }
        let to_end = side.at.finished;
        side.move_b_on(to_end);
        true
    }

    /// Brings B, if pinned, to A: the same selection and theme, the same playhead, the same
    /// job presses. Its dials stay as pinned.
    pub(super) fn follow_side(&mut self) {
        if self.side.is_none() {
            return;
        }
        let next = Followed::of(self);
        let Some(side) = self.side.as_mut() else {
            return;
        };
        if next == side.at {
            return;
        }
        let rerun = side.at.needs_rerun(&next);
        let entered_end = next.finished && !side.at.finished;
        side.at = next;
        let a = &side.at;
        let b = &mut side.b;
        if rerun {
            // B's settings stay as pinned whatever job it follows.
            let pinned = *b.settings();
            b.follow_job(
                a.parallel,
                a.job_preset,
                a.job_outages.clone(),
                a.presses.clone(),
            );
            b.place(a.now, a.arrived, a.finished);
            b.set_dials(pinned);
            return;
        }
        side.move_b_on(entered_end);
    }
}

impl Side {
    /// Moves B forward to A's playhead as last followed (`at`): a run that keeps its own
    /// clock plays on to A's processing time (or, `to_end`, to its end), one that follows the
    /// playhead is placed there and catches up.
    fn move_b_on(&mut self, to_end: bool) {
        let (a, b) = (&self.at, &mut self.b);
        if b.trace().keeps_own_clock() {
            if to_end {
                b.run_to_end();
            } else {
                b.play_to(a.now);
            }
        } else {
            b.place(a.now, a.arrived, a.finished);
            b.follow();
        }
    }
}
