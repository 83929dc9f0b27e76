//! Running a script and checking it, as Beam's transcript tests do: panes emitted since the
//! last `expect` must all be expected before the next step (else `Unexpected output`), and
//! each expected pane must match one emitted (else `Unmatched output`), comparing only the
//! fields it gives. A script that declares an `error` passes when its run fails with a
//! message containing it.

use std::fmt;

use super::driver::{Driver, ScriptPane};
use super::{list, Action, Expected, Script, Step};
use crate::conventions::Conventions;
use crate::trigger::Timing;
use crate::window::WindowId;

/// One step as it ran: the step, the panes it emitted, the elements it dropped.
#[derive(Debug, Clone, PartialEq)]
pub struct StepRun {
    /// The step.
    pub step: Step,
    /// Panes emitted by it.
    pub panes: Vec<ScriptPane>,
    /// Elements it dropped as too late, each with the window that refused it.
    pub dropped: Vec<(i64, WindowId)>,
    /// For an `expect`, how many panes it matched.
    pub matched: usize,
    /// The input watermark after the step.
    pub watermark: i64,
}

/// Why a run failed: Beam's two failures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Every pane was expected and every expected pane was emitted.
    Clean,
    /// An expected pane was not emitted (`Unmatched output`), at this step's line.
    Unmatched {
        /// The line of the expected pane.
        line: usize,
        /// The sentence, as Beam's test says it.
        message: String,
    },
    /// A pane was emitted that was not expected (`Unexpected output`), before the step at
    /// this line (or at the end).
    Unexpected {
        /// The line of the step it was found before, or of the script's last step.
        line: usize,
        /// The sentence, as Beam's test says it.
        message: String,
    },
}

impl Outcome {
    /// The failure's sentence, if the run failed.
    pub fn message(&self) -> Option<&str> {
        match self {
            Outcome::Clean => None,
            Outcome::Unmatched { message, .. } | Outcome::Unexpected { message, .. } => {
                Some(message)
            }
        }
    }
}

/// Whether the script passed: it ran clean, or failed as it declared it would.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// It ran clean and declared no error.
    Passed,
    /// It failed with the error it declared.
    FailedAsDeclared,
    /// It failed, and declared no such error.
    Failed,
    /// It declared an error and ran clean, or failed otherwise.
    DeclaredErrorMissing,
    /// It expects nothing (no `expect` step): every pane is shown, none is checked.
    Unchecked,
}

impl Verdict {
    /// Whether this counts as a pass.
    pub fn passed(&self) -> bool {
        matches!(
            self,
            Verdict::Passed | Verdict::FailedAsDeclared | Verdict::Unchecked
        )
    }
}

/// A whole run of a script.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// Each step that ran, in order (a run stops at its first failure).
    pub steps: Vec<StepRun>,
    /// How it ended.
    pub outcome: Outcome,
    /// Whether it passed.
    pub verdict: Verdict,
}

impl fmt::Display for ScriptPane {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{{window: [{}, {}], values: {}, timestamp: {}, index: {}, nonspeculative_index: {}, early: {}, late: {}, final: {}}}",
            self.window.start_ms(),
            self.window.max_timestamp(),
            list(&self.values),
            self.timestamp,
            self.info.index,
            self.info.nonspeculative_index,
            self.info.timing == Timing::Early,
            self.info.timing == Timing::Late,
            self.info.is_last
        )
    }
}

impl ScriptPane {
    /// The pane on one line, as `twoclocks script` prints it and the player shows it:
    /// `ON_TIME  window [0, 9]  values [1, 3]  timestamp 9  index 0  nonspeculative 0  first`.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "{:<7}  window [{}, {}]  values {}  timestamp {}  index {}  nonspeculative {}",
            self.info.timing.label(),
            self.window.start_ms(),
            self.window.max_timestamp(),
            list(&self.values),
            self.timestamp,
            self.info.index,
            self.info.nonspeculative_index
        );
        if self.info.is_first {
            s.push_str("  first");
        }
        if self.info.is_last {
            s.push_str("  final");
        }
        s
    }
}

/// Whether `pane` matches `expected` on every field `expected` gives.
pub fn matches(pane: &ScriptPane, e: &Expected) -> bool {
    e.window
        .is_none_or(|(a, b)| pane.window.start_ms() == a && pane.window.max_timestamp() == b)
        && e.values.as_ref().is_none_or(|v| *v == pane.values)
        && e.timestamp.is_none_or(|t| t == pane.timestamp)
        && e.index.is_none_or(|i| i == i64::from(pane.info.index))
        && e.nonspeculative_index
            .is_none_or(|i| i == pane.info.nonspeculative_index)
        && e.early
            .is_none_or(|b| b == (pane.info.timing == Timing::Early))
        && e.late
            .is_none_or(|b| b == (pane.info.timing == Timing::Late))
        && e.last.is_none_or(|b| b == pane.info.is_last)
}

fn panes_list(panes: &[ScriptPane]) -> String {
    let items: Vec<String> = panes.iter().map(|p| p.to_string()).collect();
    format!("[{}]", items.join(", "))
}

impl Driver {
    /// Carries out one step: what it emitted and dropped, and the watermark after it. An
    /// `expect` emits nothing; [`Script::run`] matches its panes.
    pub fn perform(&mut self, step: &Step) -> StepRun {
        let (panes, dropped) = match &step.action {
            Action::Input(ts) => self.input(ts),
            Action::Watermark(t) => (self.advance_watermark(*t), Vec::new()),
            Action::Clock(t) => (self.advance_clock(*t), Vec::new()),
            Action::State(_) | Action::Expect(_) => (Vec::new(), Vec::new()),
        };
        StepRun {
            step: step.clone(),
            panes,
            dropped,
            matched: 0,
            watermark: self.watermark(),
        }
    }
}

/// Runs `script` under `conventions`.
pub(super) fn run(script: &Script, conventions: Conventions) -> Run {
    let mut driver = script.driver(conventions);
    // A script that expects nothing is a demonstration: it runs to its end, unchecked.
    let checked = script
        .steps
        .iter()
        .any(|s| matches!(s.action, Action::Expect(_)))
        || script.error.is_some();
    if !checked {
        return Run {
            steps: script.steps.iter().map(|s| driver.perform(s)).collect(),
            outcome: Outcome::Clean,
            verdict: Verdict::Unchecked,
        };
    }
    let mut waiting: Vec<ScriptPane> = Vec::new();
    let mut steps = Vec::new();
    let mut outcome = Outcome::Clean;
    for step in &script.steps {
        if !matches!(step.action, Action::Expect(_)) && !waiting.is_empty() {
            outcome = Outcome::Unexpected {
                line: step.line,
                message: format!(
                    "Unexpected output: {} before {}",
                    panes_list(&waiting),
                    step.action
                ),
            };
            break;
        }
        let mut run = driver.perform(step);
        if let Action::Expect(expected) = &step.action {
            for e in expected {
                match waiting.iter().position(|p| matches(p, e)) {
                    Some(i) => {
                        waiting.remove(i);
                        run.matched += 1;
                    }
                    None => {
                        outcome = Outcome::Unmatched {
                            line: e.line,
                            message: format!("Unmatched output {e} in {}", panes_list(&waiting)),
                        };
                        break;
                    }
                }
            }
        }
        waiting.extend(run.panes.iter().cloned());
        steps.push(run);
        if outcome != Outcome::Clean {
            break;
        }
    }
    if outcome == Outcome::Clean && !waiting.is_empty() {
        outcome = Outcome::Unexpected {
            line: script.steps.last().map_or(script.line, |s| s.line),
            message: format!("Unexpected output: {}", panes_list(&waiting)),
        };
    }
    let verdict = match (&script.error, outcome.message()) {
        (None, None) => Verdict::Passed,
        (None, Some(_)) => Verdict::Failed,
        (Some(want), Some(got)) if got.contains(want.as_str()) => Verdict::FailedAsDeclared,
        (Some(_), _) => Verdict::DeclaredErrorMissing,
    };
    Run {
        steps,
        outcome,
        verdict,
    }
}
