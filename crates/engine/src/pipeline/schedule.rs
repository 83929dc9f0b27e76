//! The simulation's schedule: the earliest thing due (checkpoint trigger, source emission or
//! idle mark, operator or sink delivery) is the next step, and the clock follows it. A source's
//! emission is due at its event's processing time, moved to the heal when that falls in an
//! outage of its partition; its idle mark at its last record plus the idle timeout, unless an
//! emission comes first (or at the same time). A checkpoint trigger is due only while some
//! source has work to come, and skips the ticks while the sources are silent: it follows the
//! sources alone, which a restore puts back exactly, so a replay injects the same barriers as
//! the first run.

use std::borrow::Borrow;

use super::addressing::Receiver;
use super::nodes::SourceDue;
use super::steps::{Step, StepEvent};
use super::Pipeline;
use crate::stream::Stream;

/// Which actions a step may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scope {
    /// Everything: the simulation as it runs.
    All,
    /// Everything but a source's end of input: a source stops at its last event.
    Events,
    /// Operator and sink deliveries only: what is in flight arrives, nothing new is emitted.
    Deliveries,
}

/// What a step will do next.
#[derive(Debug, Clone, Copy)]
pub(super) enum Next {
    Trigger,
    Source(usize),
    Idle(usize),
    Operator(usize, usize),
    Sink(usize),
}

impl<S: Borrow<Stream>> Pipeline<S> {
    /// Recomputes the earliest unblocked head of every receiver whose inputs changed.
    pub(super) fn refresh_heads(&mut self) {
        let nn = self.cfg.parallelism;
        let addressing = self.addressing();
        let mut dirty = self.channels.take_dirty();
        // Only the receivers marked dirty, lowest first.
        while dirty != 0 {
            let r = dirty.trailing_zeros() as usize;
            dirty &= dirty - 1;
            if r > nn {
                break;
            }
            let (receiver, alignment, done) = if r < nn {
                let op = &self.operators[r];
                (Receiver::Operator(r), &op.alignment, op.finished)
            } else {
                let st = &self.sink.state;
                (Receiver::Sink, &st.alignment, st.finished)
            };
            let mut head = (f64::INFINITY, usize::MAX);
            if !done {
                for k in 0..addressing.inputs(receiver) {
                    if alignment.is_blocked(k) {
                        continue;
                    }
                    let c = addressing.input(receiver, k);
                    let a = self.channels.head_arrival(c);
                    if a < head.0 {
                        head = (a, c);
                    }
                }
            }
            self.heads[r] = head;
        }
    }

    pub(super) fn next_action(&self) -> Option<(f64, Next)> {
        self.next_action_in(Scope::All)
    }

    /// What source `p` does next: its next event, when due (its processing time, moved to the
    /// heal of an outage it falls in; +∞ for one not healed), or its end of input after its
    /// last event, or nothing once it has ended.
    fn source_due(&self, p: usize) -> SourceDue {
        if self.sources[p].ended {
            return SourceDue::Ended;
        }
        let stream: &Stream = self.stream.borrow();
        let Some(&idx) = self.partitions[p].get(self.sources[p].offset) else {
            return SourceDue::End;
        };
        let t = stream.events[idx as usize].proc_time;
        SourceDue::Event(if self.outages.is_empty() {
            t
        } else {
            self.outages.due(p, t)
        })
    }

    /// Source `p` moved on (or ended): what it does next, again.
    pub(super) fn refresh_due_of(&mut self, p: usize) {
        let due = self.source_due(p);
        if let Some(d) = self.due.get_mut(p) {
            *d = due;
        }
    }

    /// What every source does next, again (the sources restored, or the outages changed).
    pub(super) fn refresh_due(&mut self) {
        self.due = (0..self.sources.len())
            .map(|p| self.source_due(p))
            .collect();
    }

    /// The sources' next action: an emission, an idle mark or, with `ends`, a source's end of
    /// input. The sources are a function of processing time alone (a restore puts them back
    /// exactly as they were at the checkpoint's time), so this is too.
    fn next_source_action(&self, ends: bool) -> Option<(f64, Next)> {
        let mut best: Option<(f64, Next)> = None;
        // Times here are never NaN: the later of two is a plain comparison, not `f64::max`.
        let now = self.now;
        let later = |t: f64| if t > now { t } else { now };
        let consider = |t: f64, n: Next, best: &mut Option<(f64, Next)>| {
            if !matches!(best, Some((bt, _)) if t >= *bt) {
                *best = Some((t, n));
            }
        };
        let idle_timeout = self.cfg.idle_timeout;
        if idle_timeout.is_none() {
            // No idle marks: the earliest emission or end, the lowest partition at a tie,
            // without a branch on which (+∞, a partition held back for good, never wins).
            let (mut at, mut who) = (f64::INFINITY, usize::MAX);
            for (p, &due) in self.due.iter().enumerate() {
                let t = match due {
                    SourceDue::Event(t) => later(t),
                    SourceDue::End if ends && self.outages.is_empty() => now,
                    SourceDue::End if ends => later(self.outages.due(p, now)),
                    SourceDue::End | SourceDue::Ended => f64::INFINITY,
                };
                let earlier = t < at;
                at = if earlier { t } else { at };
                who = if earlier { p } else { who };
            }
            return (who != usize::MAX).then_some((at, Next::Source(who)));
        }
        for (p, &due) in self.due.iter().enumerate() {
            let t = match due {
                SourceDue::Event(t) => t,
                SourceDue::Ended => continue,
                // Its end of input, now (or at the heal of an outage it falls in).
                SourceDue::End if ends && self.outages.is_empty() => now,
                SourceDue::End if ends => self.outages.due(p, now),
                SourceDue::End => continue,
            };
            if idle_timeout.is_some() || t == f64::INFINITY {
                if let Some(timeout) = idle_timeout {
                    let s = &self.sources[p];
                    let idle = s.last_active + timeout;
                    if s.idle_since.is_none() && idle < t {
                        consider(later(idle), Next::Idle(p), &mut best);
                        continue;
                    }
                }
                if t == f64::INFINITY {
                    continue;
                }
            }
            consider(later(t), Next::Source(p), &mut best);
        }
        best
    }

    /// The next action among those `scope` allows.
    ///
    /// Whether and when a checkpoint trigger is due depends on the sources alone, never on
    /// what is in flight: a crash loses what was in flight (barriers of older checkpoints,
    /// records past the cut), so a trigger that looked at deliveries would inject a different
    /// series of barriers in the replay; every barrier draws a transit time from its channel's
    /// generator, and every later record would then arrive at another time than in the first
    /// run, under another watermark.
    pub(super) fn next_action_in(&self, scope: Scope) -> Option<(f64, Next)> {
        let trigger = matches!(scope, Scope::All | Scope::Events);
        let ends = scope == Scope::All;
        let nn = self.cfg.parallelism;
        let now = self.now;
        let later = |t: f64| if t > now { t } else { now };
        let from_sources = if scope == Scope::Deliveries {
            None
        } else {
            self.next_source_action(ends)
        };
        let mut best = from_sources;
        // The earliest head, the lowest receiver at a tie, found without a branch per head (which
        // receiver is next is a coin toss the processor mispredicts): an empty channel's +∞
        // never wins, and a source wins a tie with a head.
        let mut at = best.map_or(f64::INFINITY, |(t, _)| t);
        let mut head = usize::MAX;
        for (r, &(a, _)) in self.heads.iter().enumerate() {
            let a = later(a);
            let earlier = a < at;
            at = if earlier { a } else { at };
            head = if earlier { r } else { head };
        }
        if let Some(&(_, c)) = self.heads.get(head) {
            let next = if head < nn {
                Next::Operator(head, c)
            } else {
                Next::Sink(c)
            };
            best = Some((at, next));
        }
        // The trigger goes first at a tie, and only while some source has work to come (a
        // partition cut off for good does not keep the job checkpointing).
        if let Some((t, _)) = best {
            let tick = later(self.next_tick);
            if trigger && tick <= t && self.next_tick.is_finite() {
                let sources_work = if ends {
                    from_sources.is_some()
                } else {
                    self.next_source_action(true).is_some()
                };
                if sources_work {
                    best = Some((tick, Next::Trigger));
                }
            }
        }
        best
    }

    /// Takes the next step: a scheduled crash, a checkpoint trigger, a source emission or one
    /// channel delivery. `None` once the job has finished.
    pub fn step(&mut self) -> Option<Step> {
        self.step_in(Scope::All)
    }

    /// Takes the next step among those `scope` allows (a scheduled crash due by then first).
    /// `None` when there is none.
    pub(super) fn step_in(&mut self, scope: Scope) -> Option<Step> {
        self.refresh_heads();
        let (t, next) = self.next_action_in(scope)?;
        self.take(t, next, scope)
    }

    /// Takes the next step if it is due by processing time `until` (a scheduled crash
    /// included): what [`Pipeline::next_time`] then [`Pipeline::step`] do, with what is next
    /// worked out once. `None` when nothing is due by then, or the job has finished.
    pub fn step_due_by(&mut self, until: f64) -> Option<Step> {
        self.refresh_heads();
        let (t, next) = self.next_action()?;
        if self.due_time(t) > until {
            return None;
        }
        self.take(t, next, Scope::All)
    }

    /// When a step whose action is due at `t` happens: a scheduled crash due first comes then.
    fn due_time(&self, t: f64) -> f64 {
        match self.scheduled.last() {
            Some(&(c, _)) if c <= t => self.now.max(c),
            _ => t,
        }
    }

    /// Takes the step whose next action is `next`, due at `t`: a scheduled crash due by
    /// then first.
    fn take(&mut self, t: f64, next: Next, scope: Scope) -> Option<Step> {
        if let Some(&(c, target)) = self.scheduled.last() {
            if c <= t {
                self.scheduled.pop();
                self.now = self.now.max(c);
                let time = self.now;
                self.crash_now(target);
                self.steps += 1;
                return Some(Step {
                    time,
                    event: StepEvent::Crashed,
                });
            }
        }
        self.now = t;
        self.steps += 1;
        let event = match next {
            Next::Trigger => {
                let every = self.cfg.checkpoint_every.unwrap_or(f64::INFINITY);
                self.next_tick = next_tick_after(self.next_tick, t, every);
                // No checkpoints while the sources are silent: across an idle gap in the input
                // (a log with hours between records) the next tick is the first one at or
                // after the sources' next emission (or idle mark, or end of input). What is
                // in flight does not count: a replay would not see it again.
                if let Some((work, _)) = self.next_source_action(true) {
                    if work > self.next_tick {
                        self.next_tick = next_tick_after(self.next_tick, work, every);
                        if self.next_tick - every >= work {
                            self.next_tick -= every;
                        }
                    }
                }
                match self.checkpoint_now() {
                    Some(checkpoint) => StepEvent::CheckpointTriggered { checkpoint },
                    None => return self.step_in(scope),
                }
            }
            Next::Source(p) => self.emit(p),
            Next::Idle(p) => self.go_idle(p),
            Next::Operator(i, c) => {
                let event = self.deliver_to_operator(i, c);
                self.track_watermark(i);
                event
            }
            Next::Sink(c) => self.deliver_to_sink(c),
        };
        Some(Step { time: t, event })
    }

    /// When the next step will happen (a scheduled crash included), `None` once finished.
    pub fn next_time(&mut self) -> Option<f64> {
        self.refresh_heads();
        let (t, _) = self.next_action()?;
        Some(self.due_time(t))
    }

    /// Steps while the next step is due by processing time `t` (an animation frame); returns
    /// the steps taken. The clock may go back on the way, if a crash restores a checkpoint.
    pub fn run_until(&mut self, t: f64) -> u64 {
        let before = self.steps;
        while self.step_due_by(t).is_some() {}
        self.steps - before
    }

    /// Steps until the job has finished; returns the steps taken.
    pub fn run_to_end(&mut self) -> u64 {
        let before = self.steps;
        while self.step().is_some() {}
        self.scheduled.clear();
        self.steps - before
    }
}

/// The first tick of the series `tick + k·every` (k ≥ 0) that is later than `t`, computed
/// without stepping through every interval in between.
fn next_tick_after(tick: f64, t: f64, every: f64) -> f64 {
    if tick > t || !every.is_finite() || every <= 0.0 {
        return if tick > t { tick } else { f64::INFINITY };
    }
    let mut k = ((t - tick) / every).floor() + 1.0;
    let mut next = tick + k * every;
    while next <= t {
        k += 1.0;
        next = tick + k * every;
    }
    next
}
