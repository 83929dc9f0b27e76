//! The tour: a lesson that runs itself, one step per idea of the Dataflow model (two clocks,
//! windowing, the watermark, late data, triggers, accumulation, checkpoints, barriers, the
//! frontier). A step sets the scenario, the dials, the playhead, job mode with its crashes,
//! what shows and what is highlighted, and says a caption whose figures are placeholders
//! filled from the read model. Steps live in `assets/tour.toml` (embedded; `--tour FILE` reads
//! another), parsed and checked whole before the UI opens (`parse`), a caption's figures in
//! `placeholders`, the conditions its claim needs in `case`. Applying a step to the UI's
//! state is the app's ([`crate::app::App`]).

pub mod case;
pub mod parse;
pub mod placeholders;

use std::sync::Arc;

use crate::dials::{Dials, Family};
use crate::lesson::predict::{self, Ask};
use crate::opening::Opening;
use crate::panel::Panel;
use crate::scenario::Scenario;
use twoclocks_engine::scenario::ScenarioName;
use twoclocks_engine::{Accumulation, KeyId, WindowFn};
use twoclocks_io::bounded::Unread;

/// The tour built into the binary.
pub const BUILT_IN: &str = include_str!("../../../../assets/tour.toml");

/// What a step can keep back until the tour teaches it: `watermark` (the plot's watermark line
/// and its legend), `fates` (every event drawn alike, no shares of on time, late and dropped),
/// `oracle` (the windows table's truth, difference and phase: the count alone), `windows`
/// (the plot's window boundaries) and `panes` (the plot's pane bars).
pub const HIDEABLE: [&str; 5] = ["watermark", "fates", "oracle", "windows", "panes"];

/// The figures a step may ask big numbers to show: the names big numbers know, one list.
pub const BIG_FIGURES: [&str; crate::view::big::figure::Figure::NAMES.len()] = {
    let mut names = [""; crate::view::big::figure::Figure::NAMES.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = crate::view::big::figure::Figure::NAMES[i].0;
        i += 1;
    }
    names
};

/// A tour file's fault: where it is and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.shown())]
pub struct TourError {
    /// The file, as given (or `built-in tour`).
    pub file: String,
    /// The line (from 1); 0 when the fault is the file's as a whole (it cannot be read).
    pub line: usize,
    /// The field at fault.
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

impl TourError {
    /// `file: line 3: field: what is wrong`, or `file: what is wrong` for the whole file.
    fn shown(&self) -> String {
        if self.line == 0 {
            format!("{}: {}", self.file, self.message)
        } else {
            format!(
                "{}: line {}: {}: {}",
                self.file, self.line, self.field, self.message
            )
        }
    }
}

/// Where a step puts the playhead.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum At {
    /// The start of processing time.
    Start,
    /// This processing time, ms.
    Time(f64),
    /// The end of the stream.
    End,
}

/// What a step shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Show {
    /// Every panel.
    All,
    /// The plot alone (as `z`).
    Plot,
    /// These panels (a bit per [`Panel::TAUGHT`] entry, in its order); the others keep their place
    /// on screen, empty, so nothing moves when a later step shows them.
    Only(u16),
}

impl Show {
    /// Whether the panel shows. The caption, the footer and what the layout adds (side by
    /// side) always do.
    pub fn shows(&self, panel: Panel) -> bool {
        match self {
            Show::All | Show::Plot => true,
            Show::Only(mask) => match panel.taught_index() {
                Some(i) => mask & (1 << i) != 0,
                None => true,
            },
        }
    }

    /// Whether the panel is on screen in the step: as [`Show::shows`], but with the plot
    /// alone, only the plot is.
    pub fn draws(&self, panel: Panel) -> bool {
        match self {
            Show::Plot => panel == Panel::Plot,
            _ => self.shows(panel),
        }
    }

    /// Whether the step names the panel in its list (not merely shows it, as every panel
    /// shows when the step shows all).
    pub fn names(&self, panel: Panel) -> bool {
        matches!(self, Show::Only(_)) && self.shows(panel)
    }
}

/// What a step highlights.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Highlight {
    /// A panel's border, in the accent colour (one of [`Panel::TAUGHT`]).
    Panel(Panel),
    /// The selected window (set with the step's `window`).
    Window,
}

/// The dials a step sets; the others keep the scenario's presets.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StepDials {
    /// Watermark lag, ms.
    pub lag: Option<f64>,
    /// Grace, ms.
    pub grace: Option<f64>,
    /// Early trigger: Some(None) turns it off.
    pub early: Option<Option<f64>>,
    /// The watermark kind.
    pub watermark: Option<Family>,
    /// The accumulation mode.
    pub accumulation: Option<Accumulation>,
    /// The parallel job's idle timeout, ms: Some(None) turns it off.
    pub idle: Option<Option<f64>>,
}

impl StepDials {
    /// The scenario's preset dials with the step's settings over them.
    pub fn over(&self, mut dials: Dials) -> Dials {
        if let Some(f) = self.watermark {
            dials.family = f;
        }
        if let Some(lag) = self.lag {
            dials.lag = lag;
        }
        if let Some(g) = self.grace {
            dials.grace = g;
        }
        if let Some(e) = self.early {
            dials.early = e;
        }
        if let Some(a) = self.accumulation {
            dials.accumulation = a;
        }
        if let Some(i) = self.idle {
            dials.idle_timeout = i;
        }
        dials
    }
}

/// One step, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// Its short name (`partition`), for `twoclocks tour --from NAME`; None: only its number
    /// opens on it.
    pub name: Option<String>,
    /// The line its name is set on (0: not set).
    pub name_line: usize,
    /// Its title, shown after `step k/M`.
    pub title: String,
    /// Its caption, with placeholders (`{late}`): two or three lines once filled.
    pub caption: String,
    /// The conditions its caption's claim needs ([`case::Condition`]), over the figures and
    /// dials on screen; empty: the caption holds under any dials.
    pub case: Vec<case::Condition>,
    /// What the step says once the room has turned the dials out of its case (with
    /// placeholders, as the caption), before the sentence naming the dials moved.
    pub off_case: String,
    /// The stream it plays.
    pub scenario: ScenarioName,
    /// The window function it cuts the stream with (its state TTL with it); None: the
    /// scenario's.
    pub windows: Option<WindowFn>,
    /// The dials it sets over the scenario's.
    pub dials: StepDials,
    /// Two runs side by side (as `v`): B on the step's dials with these over them, pinned;
    /// A on the step's dials, live. None: one run.
    pub side: Option<StepDials>,
    /// Where the playhead goes.
    pub playhead: At,
    /// The parallel job instead of the single processor.
    pub job: bool,
    /// The job crashes at these processing times, ms, in order (each before the playhead).
    pub crash_at: Vec<f64>,
    /// What shows.
    pub show: Show,
    /// The plot's magnification: `Some(None)` the whole stream, `Some(Some(ms))` following
    /// the playhead at ms of event time per column; None: the scenario's own.
    pub magnify: Option<Option<f64>>,
    /// What is highlighted.
    pub highlight: Option<Highlight>,
    /// The window selected (index into the windows table's rows: the scenario's windows, or
    /// for sessions the selected key's) and the line it is set on.
    pub window: Option<(usize, usize)>,
    /// The key selected, by its name in the stream, and the line it is set on; None: the
    /// first.
    pub key: Option<(String, usize)>,
    /// The figures big numbers (`b`) show for this step.
    pub big: Vec<String>,
    /// What the step keeps back because the tour has not taught it yet (of [`HIDEABLE`]).
    pub hide: Vec<&'static str>,
    /// The question the step puts to the room before the answer arrives, and the line it is
    /// set on: the playhead stops just before it, the keys 1 2 3 vote, the vote reveals it.
    pub predict: Option<(crate::lesson::predict::Ask, usize)>,
    /// The line its `[[step]]` starts on (its title's).
    pub line: usize,
    /// The line its playhead is set on (0: not set).
    pub playhead_line: usize,
}

/// `1 session`, `3 sessions`.
fn sessions(n: usize) -> String {
    if n == 1 {
        "1 session".into()
    } else {
        format!("{n} sessions")
    }
}

impl Step {
    /// The window function the step cuts its stream with: its own, else its scenario's.
    pub fn window_fn(&self) -> WindowFn {
        self.windows
            .unwrap_or_else(|| self.scenario.preset().config.window)
    }

    /// The dials the step runs with: its scenario's presets (at the scenario's speed, else
    /// 10×) cut by the step's window function, the step's own dials over them.
    pub fn run_dials(&self) -> Dials {
        let preset = self.scenario.preset();
        let mut config = preset.config;
        config.window = self.window_fn();
        self.dials.over(Dials::from_config(
            &config,
            Opening::of(self.scenario).speed.unwrap_or(10.0),
        ))
    }
}

/// A tour being given: its steps, the one shown, and each stream a step plays, built once.
#[derive(Debug, Clone)]
pub struct Tour {
    /// Where the steps came from (a path, or `built-in tour`).
    pub file: String,
    /// The steps, in order (one at least).
    pub steps: Vec<Step>,
    /// The step shown (index into `steps`).
    pub at: usize,
    /// Each (scenario, window function) a step plays, measured once.
    scenarios: Vec<(ScenarioName, WindowFn, Arc<Scenario>)>,
}

impl Tour {
    /// The built-in tour.
    pub fn built_in() -> Result<Tour, TourError> {
        Tour::parse("built-in tour", BUILT_IN)
    }

    /// The tour in the file at `path`.
    pub fn load(path: &std::path::Path) -> Result<Tour, TourError> {
        let file = twoclocks_io::quote::path(path);
        let err = |message: String| TourError {
            file: file.clone(),
            line: 0,
            field: "file".into(),
            message,
        };
        let bytes = twoclocks_io::bounded::read_file(path, twoclocks_io::bounded::TOUR).map_err(
            |e| match e {
                Unread::Failed(e) => err(format!("the tour file cannot be read ({e})")),
                too_large => err(too_large.to_string()),
            },
        )?;
        let text = String::from_utf8(bytes).map_err(|e| {
            err(format!(
                "not text (UTF-8) at byte {}",
                e.utf8_error().valid_up_to()
            ))
        })?;
        Tour::parse(&file, &text)
    }

    /// A tour from its text (`file` names it in errors): parsed, every step checked, every
    /// scenario built and each step's playhead and window checked against its stream.
    pub fn parse(file: &str, text: &str) -> Result<Tour, TourError> {
        let steps = parse::parse(file, text)?;
        let mut scenarios: Vec<(ScenarioName, WindowFn, Arc<Scenario>)> = Vec::new();
        for step in &steps {
            let err = |line: usize, field: &str, message: String| TourError {
                file: file.to_string(),
                line,
                field: field.to_string(),
                message,
            };
            let window = step.window_fn();
            if !scenarios
                .iter()
                .any(|(n, w, _)| *n == step.scenario && *w == window)
            {
                let s = Scenario::built_in(step.scenario, &window)
                    .map_err(|e| err(step.line, "scenario", e.to_string()))?;
                scenarios.push((step.scenario, window, Arc::new(s)));
            }
            let s = &scenarios
                .iter()
                .find(|(n, w, _)| *n == step.scenario && *w == window)
                .expect("built above")
                .2;
            if let At::Time(t) = step.playhead {
                if t > s.oracle.proc_time.1 {
                    return Err(err(
                        step.playhead_line,
                        "playhead",
                        format!(
                            "{} s is past the end of the {} stream ({:.0} s): write \"end\"",
                            t / 1_000.0,
                            step.scenario.label(),
                            s.oracle.proc_time.1 / 1_000.0
                        ),
                    ));
                }
            }
            let key = match &step.key {
                None => None,
                Some((name, line)) => Some(
                    s.stream
                        .keys
                        .iter()
                        .position(|k| k == name)
                        .ok_or_else(|| {
                            let first: Vec<&str> =
                                s.stream.keys.iter().take(4).map(String::as_str).collect();
                            err(
                                *line,
                                "key",
                                format!(
                                    "the {} stream has no key {name:?}: its keys are {}{}",
                                    step.scenario.label(),
                                    first.join(", "),
                                    if s.stream.keys.len() > 4 { ", …" } else { "" }
                                ),
                            )
                        })? as KeyId,
                ),
            };
            if let Some((ask, line)) = step.predict {
                let cfg = step.run_dials().config();
                let arrived = match step.playhead {
                    At::Start => 0,
                    At::Time(t) => s.stream.events.partition_point(|e| e.proc_time <= t),
                    At::End => s.stream.len(),
                };
                let key = key.or((s.keys() > 0).then_some(0));
                let key = matches!(ask, Ask::NextPane).then_some(key).flatten();
                if predict::ask(cfg, &s.stream, &s.oracle.truth, arrived, ask, key).is_none() {
                    return Err(err(
                        line,
                        "predict",
                        format!(
                            "after the playhead the {} stream has no {}: move the playhead back",
                            step.scenario.label(),
                            match ask {
                                Ask::NextLate => "late or dropped event".to_string(),
                                Ask::NextPane => "pane of the key".to_string(),
                                Ask::Event(i) => format!(
                                    "event {i} (it has {} events; {arrived} have arrived)",
                                    s.stream.len()
                                ),
                            }
                        ),
                    ));
                }
            }
            if let Some((w, line)) = step.window {
                let n = s.windows_of(key.or(Some(0))).len();
                if w >= n {
                    let whose = match (&step.key, s.oracle.merging) {
                        (Some((name, _)), true) => format!("key {name} has {}", sessions(n)),
                        (None, true) => format!("its first key has {}", sessions(n)),
                        _ => format!("has {n} windows"),
                    };
                    return Err(err(
                        line,
                        "window",
                        format!(
                            "the {} stream {whose}: 0 to {}",
                            step.scenario.label(),
                            n.saturating_sub(1)
                        ),
                    ));
                }
            }
        }
        Ok(Tour {
            file: file.to_string(),
            steps,
            at: 0,
            scenarios,
        })
    }

    /// The step shown.
    pub fn step(&self) -> &Step {
        &self.steps[self.at.min(self.steps.len() - 1)]
    }

    /// The stream `step` plays, cut by its window function, built when the tour was read.
    pub fn scenario(&self, step: &Step) -> Option<Arc<Scenario>> {
        let window = step.window_fn();
        self.scenarios
            .iter()
            .find(|(n, w, _)| *n == step.scenario && *w == window)
            .map(|(_, _, s)| s.clone())
    }

    /// The key `step` selects, by its place in its stream's keys (checked when the tour was
    /// read); None: the first.
    pub fn key_of(&self, step: &Step) -> Option<KeyId> {
        let (name, _) = step.key.as_ref()?;
        let s = self.scenario(step)?;
        s.stream
            .keys
            .iter()
            .position(|k| k == name)
            .map(|i| i as KeyId)
    }

    /// The step `name` opens on (`twoclocks tour --from NAME`): a step's name, or its number
    /// from 1. Anything else is an error listing the names and the numbers.
    pub fn find(&self, name: &str) -> Result<usize, String> {
        let want = name.trim();
        if let Ok(k) = want.parse::<usize>() {
            if (1..=self.steps.len()).contains(&k) {
                return Ok(k - 1);
            }
        }
        if let Some(i) = self
            .steps
            .iter()
            .position(|s| s.name.as_deref() == Some(want))
        {
            return Ok(i);
        }
        let names: Vec<&str> = self
            .steps
            .iter()
            .filter_map(|s| s.name.as_deref())
            .collect();
        let numbers = format!("a number from 1 to {}", self.steps.len());
        Err(if names.is_empty() {
            format!("{name:?} is not a step of {}: {numbers}", self.file)
        } else {
            format!(
                "{name:?} is not a step of {}: one of {}, or {numbers}",
                self.file,
                names.join(", ")
            )
        })
    }

    /// The tour opened on step `at` (from 0; past the last, the last).
    pub fn from(mut self, at: usize) -> Tour {
        self.at = at.min(self.steps.len().saturating_sub(1));
        self
    }
}
