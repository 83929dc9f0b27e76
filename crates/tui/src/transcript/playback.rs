//! A script played one step at a time, as the player shows it: after each step, the
//! watermark and the clock, every window the script has opened with what it holds and how it
//! stands, the panes and drops that step caused, and how the script's checks went up to
//! there. Scripts are small: every frame is computed once, up front, so stepping back is as
//! cheap as stepping on. Each step is the engine's [`Driver::perform`] and the check is
//! [`Script::run`]'s own.

use twoclocks_engine::script::{Action, Driver, Outcome, Run, Script, StepRun};
use twoclocks_engine::{Conventions, WindowId};

/// How a window stands in a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowStanding {
    /// Its end is not passed: it takes data on time.
    Open,
    /// The watermark (stream time) has passed its end: data for it is late.
    Passed,
    /// Its trigger has finished: it takes no more data.
    Closed,
    /// Past its allowed lateness, its state was collected at this step (1-based) or before.
    Collected(usize),
    /// Merged into a larger window (sessions) at this step or before.
    Merged(usize, WindowId),
}

/// A window as one frame shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowView {
    /// The window, `[start, end)`.
    pub window: WindowId,
    /// The elements its state holds now; for a window gone (collected or merged away), what
    /// it held last.
    pub held: Vec<i64>,
    /// The panes it has emitted (since it was last merged).
    pub panes: i64,
    /// How it stands.
    pub standing: WindowStanding,
}

/// The state after some steps.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// How many steps have been performed (0: none).
    pub done: usize,
    /// The input watermark (under Kafka Streams' rules, stream time): the start of time
    /// before anything moved it.
    pub watermark: i64,
    /// The processing-time clock.
    pub clock: i64,
    /// Every window the script has opened so far, in the order it was opened; those gone
    /// (collected or merged) stay, so a lesson can point at them.
    pub windows: Vec<WindowView>,
    /// The step just performed, with what it emitted and dropped (none at the start).
    pub last: Option<StepRun>,
}

/// How a step's check went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StepCheck {
    /// Not a check, or a script that checks nothing.
    NotACheck,
    /// The check held.
    Held,
    /// The script's first failure, with Beam's sentence.
    Failed(String),
    /// After the first failure: the check does not run.
    NotReached,
}

/// A script and every frame of it under one engine's rules.
#[derive(Debug, Clone)]
pub struct Playback {
    script: Script,
    conventions: Conventions,
    frames: Vec<Frame>,
    run: Run,
}

impl Playback {
    /// Performs `script` under `conventions`, keeping the state after each step.
    pub fn new(script: &Script, conventions: Conventions) -> Playback {
        let mut driver = script.driver(conventions);
        let mut frames = vec![Frame {
            done: 0,
            watermark: driver.watermark(),
            clock: driver.clock(),
            windows: Vec::new(),
            last: None,
        }];
        for (i, step) in script.steps.iter().enumerate() {
            let run = driver.perform(step);
            let before = &frames[frames.len() - 1].windows;
            let mut windows = Self::windows(&driver, conventions, before, i + 1);
            // A window collected by this step keeps the count of the panes it emitted, the
            // last of them at its collection.
            for w in &mut windows {
                if w.standing == WindowStanding::Collected(i + 1) {
                    w.panes += run.panes.iter().filter(|p| p.window == w.window).count() as i64;
                }
            }
            frames.push(Frame {
                done: i + 1,
                watermark: driver.watermark(),
                clock: driver.clock(),
                windows,
                last: Some(run),
            });
        }
        Playback {
            script: script.clone(),
            conventions,
            frames,
            run: script.run(conventions),
        }
    }

    /// The windows after step `done`: the driver's, and those the frame before had that are
    /// gone, merged into a window that covers them or else collected.
    fn windows(
        driver: &Driver,
        conventions: Conventions,
        before: &[WindowView],
        done: usize,
    ) -> Vec<WindowView> {
        let wm = driver.watermark();
        let now: Vec<WindowView> = driver
            .contents()
            .into_iter()
            .map(|(window, held, panes, closed)| WindowView {
                window,
                held,
                panes,
                standing: if closed {
                    WindowStanding::Closed
                } else if conventions.passed_end(window.end_ms() as f64, wm as f64) {
                    WindowStanding::Passed
                } else {
                    WindowStanding::Open
                },
            })
            .collect();
        let mut all: Vec<WindowView> = Vec::new();
        for old in before {
            if let Some(n) = now.iter().find(|n| n.window == old.window) {
                all.push(n.clone());
                continue;
            }
            let standing = match old.standing {
                gone @ (WindowStanding::Collected(_) | WindowStanding::Merged(..)) => gone,
                _ => match now
                    .iter()
                    .find(|n| n.window != old.window && n.window.cover(old.window) == n.window)
                {
                    Some(into) => WindowStanding::Merged(done, into.window),
                    None => WindowStanding::Collected(done),
                },
            };
            all.push(WindowView {
                window: old.window,
                held: old.held.clone(),
                panes: old.panes,
                standing,
            });
        }
        for n in now {
            if !all.iter().any(|a| a.window == n.window) {
                all.push(n);
            }
        }
        all
    }

    /// The script.
    pub fn script(&self) -> &Script {
        &self.script
    }

    /// The rules it runs under.
    pub fn conventions(&self) -> Conventions {
        self.conventions
    }

    /// Its steps, plus one: the state before any step, then after each.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// Whether the script has no steps (its one frame is the start).
    pub fn is_empty(&self) -> bool {
        self.frames.len() <= 1
    }

    /// The state after `done` steps (the last frame beyond the end).
    pub fn frame(&self, done: usize) -> &Frame {
        &self.frames[done.min(self.frames.len() - 1)]
    }

    /// The whole run's check, as `twoclocks script` reports it.
    pub fn run(&self) -> &Run {
        &self.run
    }

    /// How the check of step `i` (0-based) went.
    pub fn check(&self, i: usize) -> StepCheck {
        let Some(step) = self.script.steps.get(i) else {
            return StepCheck::NotACheck;
        };
        let failed_at = match &self.run.outcome {
            Outcome::Clean => None,
            Outcome::Unmatched { line, message } | Outcome::Unexpected { line, message } => {
                Some((*line, message))
            }
        };
        // The step whose lines hold the failure's line: the last one starting at or before it.
        let failing = failed_at.map(|(line, message)| {
            let at = self
                .script
                .steps
                .iter()
                .rposition(|s| s.line <= line)
                .unwrap_or(0);
            (at, message)
        });
        match failing {
            Some((at, message)) if at == i => StepCheck::Failed(message.clone()),
            Some((at, _)) if i > at => StepCheck::NotReached,
            _ if matches!(step.action, Action::Expect(_)) && self.run.steps.len() > i => {
                StepCheck::Held
            }
            _ => StepCheck::NotACheck,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use twoclocks_engine::script::Step;
    use twoclocks_engine::WindowFn;

    fn script(window: WindowFn, steps: Vec<Action>) -> Script {
        let mut s = Script::new("lesson");
        s.windows.window = window;
        s.steps = steps
            .into_iter()
            .enumerate()
            .map(|(i, action)| Step {
                line: i + 2,
                action,
            })
            .collect();
        s
    }

    #[test]
    fn each_frame_is_the_state_after_its_steps() {
        let s = script(
            WindowFn::tumbling(10).unwrap(),
            vec![
                Action::Input(vec![1, 2]),
                Action::Watermark(25),
                Action::Input(vec![3]),
            ],
        );
        let p = Playback::new(&s, Conventions::Beam);
        assert_eq!(p.len(), 4);
        let w = WindowId::new(0, 10);
        let f = p.frame(1);
        assert_eq!(f.windows.len(), 1);
        assert_eq!(f.windows[0].held, vec![1, 2]);
        assert_eq!(f.windows[0].standing, WindowStanding::Open);
        // The watermark passes the end and the allowed lateness: an on-time pane, then the
        // window is collected, its count of panes kept.
        let f = p.frame(2);
        assert_eq!(f.watermark, 25);
        assert_eq!(f.last.as_ref().unwrap().panes.len(), 1);
        assert_eq!(f.windows[0].standing, WindowStanding::Collected(2));
        assert_eq!(f.windows[0].panes, 1);
        // A late element for it is dropped; the window stays shown as collected at step 2.
        let f = p.frame(3);
        assert_eq!(f.last.as_ref().unwrap().dropped, vec![(3, w)]);
        assert_eq!(f.windows[0].standing, WindowStanding::Collected(2));
        // Beyond the end is the last frame; a script with no expect checks nothing.
        assert_eq!(p.frame(99).done, 3);
        assert!((0..3).all(|i| p.check(i) == StepCheck::NotACheck));
    }

    #[test]
    fn a_bridging_element_merges_sessions_and_says_into_which() {
        let s = script(
            WindowFn::session(10).unwrap(),
            vec![
                Action::Input(vec![0]),
                Action::Input(vec![15]),
                Action::Input(vec![8]),
            ],
        );
        let p = Playback::new(&s, Conventions::Beam);
        let f = p.frame(3);
        let into = WindowId::new(0, 25);
        let standing: Vec<_> = f.windows.iter().map(|w| (w.window, w.standing)).collect();
        assert_eq!(
            standing,
            vec![
                (WindowId::new(0, 10), WindowStanding::Merged(3, into)),
                (WindowId::new(15, 25), WindowStanding::Merged(3, into)),
                (into, WindowStanding::Open),
            ]
        );
        assert_eq!(f.windows[2].held, vec![0, 8, 15]);
    }
}
