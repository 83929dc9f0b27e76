//! Scripted streams, as Beam's `TestStream` and its trigger transcripts run them: a bundle of
//! elements arrives (`input`), the watermark is set (`watermark`), the clock is set
//! (`clock`), and the panes emitted since the last check are compared with what the script
//! expects (`expect`). A script names its windowing strategy as Beam does (`window_fn`,
//! `trigger_fn`, `accumulation_mode`, `timestamp_combiner`, `allowed_lateness`, and Beam
//! Java's `closing_behavior` and `on_time_behavior`); this
//! module holds the script as read ([`Script`]), the driver that runs a windowing strategy
//! over explicit watermark and clock moves ([`Driver`]), and the check ([`Script::run`]).
//!
//! Times are whole units, read as milliseconds; an element is its own timestamp, as in
//! Beam's transcripts. Reading the YAML is the I/O layer's; everything here is pure.

mod check;
mod driver;

use std::fmt;

pub use check::{Outcome, Run, StepRun, Verdict};
pub(crate) use driver::END_OF_TIME;
pub use driver::{Driver, ScriptPane};

use super::conventions::Conventions;
use super::trigger::{Accumulation, EmptyPanes, TimestampCombiner, Trigger};
use super::window::{WindowFn, WindowId};

/// One scripted stream and what it expects.
#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    /// Its name (`name:`), or `unnamed`.
    pub name: String,
    /// The window function.
    pub windows: ScriptWindows,
    /// The trigger.
    pub trigger: Trigger,
    /// What each pane carries.
    pub accumulation: Accumulation,
    /// A pane's output time.
    pub combiner: TimestampCombiner,
    /// Allowed lateness, ms.
    pub allowed_lateness: i64,
    /// Beam Java's `ClosingBehavior` and `OnTimeBehavior` (`closing_behavior:`,
    /// `on_time_behavior:`): whether an empty last pane and an empty ON_TIME pane are
    /// emitted. Only Beam Java's rules have them.
    pub empty_panes: EmptyPanes,
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// The failure the script is written to produce (`error:`), if any: the run must fail
    /// with a message containing it.
    pub error: Option<String>,
    /// The line the script starts on in its file.
    pub line: usize,
}

/// A step of a script, with the line it is written on.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// Line in the file, 1-based.
    pub line: usize,
    /// What the step does.
    pub action: Action,
}

/// What a step does.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// One bundle of elements, each its own timestamp; the watermark does not move.
    Input(Vec<i64>),
    /// The input watermark moves to this time.
    Watermark(i64),
    /// The processing-time clock moves to this time.
    Clock(i64),
    /// The panes emitted since the last `expect` (or the start), in any order.
    Expect(Vec<Expected>),
    /// A check of the windows' state, which no Beam driver performs: kept and shown, not
    /// checked.
    State(String),
}

impl Action {
    /// The step's keyword, as written.
    pub fn keyword(&self) -> &'static str {
        match self {
            Action::Input(_) => "input",
            Action::Watermark(_) => "watermark",
            Action::Clock(_) => "clock",
            Action::Expect(_) => "expect",
            Action::State(_) => "state",
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Input(ts) => write!(f, "input: {}", list(ts)),
            Action::Watermark(t) => write!(f, "watermark: {t}"),
            Action::Clock(t) => write!(f, "clock: {t}"),
            Action::Expect(es) => write!(f, "expect: {} pane{}", es.len(), plural(es.len())),
            Action::State(s) => write!(f, "state: {s}"),
        }
    }
}

/// An expected pane: only the fields given are compared.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Expected {
    /// `[start, last instant]`, as Beam's transcripts write a window.
    pub window: Option<(i64, i64)>,
    /// The pane's elements, in the order a pane lists them (sorted).
    pub values: Option<Vec<i64>>,
    /// The output timestamp.
    pub timestamp: Option<i64>,
    /// The pane's index.
    pub index: Option<i64>,
    /// Its index among on-time and late panes (−1 for early).
    pub nonspeculative_index: Option<i64>,
    /// Whether it is early.
    pub early: Option<bool>,
    /// Whether it is late.
    pub late: Option<bool>,
    /// Whether it is the window's last (`final`).
    pub last: Option<bool>,
    /// The line it is written on.
    pub line: usize,
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some((a, b)) = self.window {
            parts.push(format!("window: [{a}, {b}]"));
        }
        if let Some(v) = &self.values {
            parts.push(format!("values: {}", list(v)));
        }
        if let Some(t) = self.timestamp {
            parts.push(format!("timestamp: {t}"));
        }
        if let Some(i) = self.index {
            parts.push(format!("index: {i}"));
        }
        if let Some(i) = self.nonspeculative_index {
            parts.push(format!("nonspeculative_index: {i}"));
        }
        for (name, v) in [
            ("early", self.early),
            ("late", self.late),
            ("final", self.last),
        ] {
            if let Some(v) = v {
                parts.push(format!("{name}: {v}"));
            }
        }
        write!(f, "{{{}}}", parts.join(", "))
    }
}

/// A script's window function: one of Beam's, and the output-time transform of Beam's test
/// window function `CustomTimestampingFixedWindowsWindowFn` (fixed windows whose elements'
/// transformed output times are 100 units later).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScriptWindows {
    /// How elements are assigned to windows.
    pub window: WindowFn,
    /// Added to an element's time by `OUTPUT_AT_EARLIEST_TRANSFORMED`.
    pub output_shift: i64,
    /// Whether it is Beam's custom-timestamping test window function (for printing).
    pub custom_timestamping: bool,
}

/// The window functions a script may name, as its errors list them.
pub(crate) const WINDOW_FN_NAMES: &str =
    "FixedWindows(size, offset=0), SlidingWindows(size, period, \
     offset=0), Sessions(gap_size), GlobalWindows, CustomTimestampingFixedWindowsWindowFn(size)";

/// Each window function's parameters as Beam Python's `apache_beam.transforms.window` declares
/// them (`FixedWindows(size, offset=0)`…), each required or not; `CustomTimestamping…` is
/// Beam's test subclass of `FixedWindows`.
fn window_params(name: &str) -> Option<&'static [(&'static str, bool)]> {
    Some(match name {
        "FixedWindows" | "CustomTimestampingFixedWindowsWindowFn" => {
            &[("size", true), ("offset", false)]
        }
        "SlidingWindows" => &[("size", true), ("period", true), ("offset", false)],
        "Sessions" => &[("gap_size", true)],
        "GlobalWindows" => &[],
        _ => return None,
    })
}

/// A window function's arguments bound to its parameters as Python binds them (Beam's
/// transcript test calls the class with the arguments as written): positional in order, or by
/// name; what Python refuses is refused in Beam's words.
fn bind_window_args(
    name: &str,
    params: &[(&'static str, bool)],
    args: Vec<(Option<String>, i64)>,
) -> Result<Vec<Option<i64>>, String> {
    // GlobalWindows has no `__init__` of its own: Python says `GlobalWindows() takes no
    // arguments`.
    let beam = |what: String| {
        if params.is_empty() {
            format!("(Beam: `{name}() takes no arguments`)")
        } else {
            format!("(Beam: `{name}.__init__() {what}`)")
        }
    };
    // The numbers in order wherever they stand, as Beam's transcript reader gathers them
    // apart from the named ones.
    let (positional, named): (Vec<_>, Vec<_>) = args.into_iter().partition(|(k, _)| k.is_none());
    if positional.len() > params.len() {
        let required = params.iter().filter(|(_, r)| *r).count();
        let takes = if required == params.len() {
            format!(
                "takes {} positional argument{}",
                params.len() + 1,
                plural(params.len() + 1)
            )
        } else {
            format!(
                "takes from {} to {} positional arguments",
                required + 1,
                params.len() + 1
            )
        };
        return Err(format!(
            "{name} takes {} number{}, not {} {}",
            params.len(),
            plural(params.len()),
            positional.len(),
            beam(format!("{takes} but {} were given", positional.len() + 1))
        ));
    }
    let mut slots: Vec<Option<i64>> = vec![None; params.len()];
    for (slot, (_, n)) in slots.iter_mut().zip(positional) {
        *slot = Some(n);
    }
    for (key, n) in named {
        let key = key.unwrap_or_default();
        let Some(at) = params.iter().position(|(p, _)| *p == key) else {
            let names: Vec<String> = params.iter().map(|(p, _)| format!("`{p}=`")).collect();
            let only = match names.split_last() {
                None => "no arguments".to_string(),
                Some((last, [])) => format!("only {last}"),
                Some((last, rest)) => format!("only {} and {last}", rest.join(", ")),
            };
            return Err(format!(
                "{name} takes {only} {}",
                beam(format!("got an unexpected keyword argument '{key}'"))
            ));
        };
        if slots[at].is_some() {
            return Err(format!(
                "{name} is given its `{key}` twice {}",
                beam(format!("got multiple values for argument '{key}'"))
            ));
        }
        slots[at] = Some(n);
    }
    if let Some(((missing, _), _)) = params
        .iter()
        .zip(&slots)
        .find(|((_, required), slot)| *required && slot.is_none())
    {
        return Err(format!(
            "{name} needs its `{missing}` {}",
            beam(format!(
                "missing 1 required positional argument: '{missing}'"
            ))
        ));
    }
    Ok(slots)
}

impl ScriptWindows {
    /// Reads a window function as Beam's transcripts write it: `FixedWindows(10)`,
    /// `FixedWindows(size=10, offset=5)`, `SlidingWindows(10, 5)`.
    pub fn parse(text: &str) -> Result<ScriptWindows, String> {
        let text = text.trim();
        let (name, args) = match text.split_once('(') {
            Some((name, rest)) => {
                let inner = rest.strip_suffix(')').ok_or("a `(` is not closed")?;
                let mut pieces: Vec<&str> = inner.split(',').map(str::trim).collect();
                // A trailing comma, as Python allows: `FixedWindows(10,)`.
                if pieces.len() > 1 && pieces.last() == Some(&"") {
                    pieces.pop();
                }
                let args = if inner.trim().is_empty() {
                    Vec::new()
                } else {
                    pieces
                        .into_iter()
                        .map(|a| {
                            let (key, a) = match a.split_once('=') {
                                Some((k, v)) => (Some(k.trim().to_string()), v.trim()),
                                None => (None, a),
                            };
                            a.parse::<i64>()
                                .ok()
                                .filter(|n| n.unsigned_abs() <= super::trigger::END_OF_TIME.unsigned_abs())
                                .map(|n| (key, n))
                                .ok_or_else(|| {
                                    format!(
                                        "`{a}` is not a whole number within Beam's range of time, ±{} ms",
                                        super::trigger::END_OF_TIME
                                    )
                                })
                        })
                        .collect::<Result<Vec<_>, _>>()?
                };
                (name.trim(), args)
            }
            None => (text, Vec::new()),
        };
        let Some(params) = window_params(name) else {
            return Err(format!(
                "unknown window function `{name}` (known: {WINDOW_FN_NAMES})"
            ));
        };
        let slots = bind_window_args(name, params, args)?;
        let arg = |i: usize| slots.get(i).copied().flatten().unwrap_or(0);
        let offset = |window: Result<WindowFn, super::window::WindowError>, i: usize| {
            window.and_then(|w| match slots.get(i).copied().flatten() {
                Some(offset) => w.with_offset(offset),
                None => Ok(w),
            })
        };
        let plain = |window: Result<WindowFn, _>| -> Result<ScriptWindows, String> {
            Ok(ScriptWindows {
                window: window.map_err(|e: super::window::WindowError| e.to_string())?,
                output_shift: 0,
                custom_timestamping: false,
            })
        };
        match name {
            "FixedWindows" => plain(offset(WindowFn::tumbling(arg(0)), 1)),
            "SlidingWindows" => plain(offset(WindowFn::sliding(arg(0), arg(1)), 2)),
            "Sessions" => plain(WindowFn::session(arg(0))),
            "CustomTimestampingFixedWindowsWindowFn" => Ok(ScriptWindows {
                output_shift: 100,
                custom_timestamping: true,
                ..plain(offset(WindowFn::tumbling(arg(0)), 1))?
            }),
            _ => plain(WindowFn::global(None)),
        }
    }
}

impl fmt::Display for ScriptWindows {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.window {
            WindowFn::Tumbling { size, offset } if self.custom_timestamping => {
                write!(
                    f,
                    "CustomTimestampingFixedWindowsWindowFn({size}{})",
                    shown_offset(offset)
                )
            }
            WindowFn::Tumbling { size, offset } => {
                write!(f, "FixedWindows({size}{})", shown_offset(offset))
            }
            WindowFn::Sliding {
                size,
                slide,
                offset,
            } => {
                write!(f, "SlidingWindows({size}, {slide}{})", shown_offset(offset))
            }
            WindowFn::Session { gap } => write!(f, "Sessions({gap})"),
            WindowFn::Global { .. } => f.write_str("GlobalWindows"),
        }
    }
}

impl Script {
    /// The end of time, ms: Beam's `BoundedWindow.TIMESTAMP_MAX_VALUE`, the watermark at the
    /// end of input. A script's times, durations and window sizes stay within ±this, so that
    /// no sum of them overflows.
    pub const END_OF_TIME: i64 = END_OF_TIME;

    /// The global window of a script: from the start of time to Beam's
    /// `GlobalWindow.END_OF_GLOBAL_WINDOW`, a day before the end of time, its last instant (so
    /// the end of input passes it).
    pub const GLOBAL: WindowId = WindowId::new(-END_OF_TIME, END_OF_TIME - 86_400_000 + 1);

    /// A script with Beam's defaults (global windows, the default trigger, accumulating,
    /// output at the end of the window, no allowed lateness) and no steps.
    pub fn new(name: &str) -> Script {
        Script {
            name: name.to_string(),
            windows: ScriptWindows {
                window: WindowFn::Global { ttl: None },
                output_shift: 0,
                custom_timestamping: false,
            },
            trigger: Trigger::Default,
            accumulation: Accumulation::Accumulating,
            combiner: TimestampCombiner::EndOfWindow,
            allowed_lateness: 0,
            empty_panes: EmptyPanes::default(),
            steps: Vec::new(),
            error: None,
            line: 1,
        }
    }

    /// A driver for its windowing strategy under `conventions`, before any step.
    pub fn driver(&self, conventions: Conventions) -> Driver {
        Driver::new(
            self.windows,
            &self.trigger,
            self.accumulation,
            self.combiner,
            self.allowed_lateness,
            conventions,
        )
        .with_empty_panes(self.empty_panes)
    }

    /// The windowing strategy in one line, as Beam names its parts (the closing and on-time
    /// behaviours only when they are not Beam's defaults).
    pub fn strategy(&self) -> String {
        let mut line = format!(
            "{} · {} · {} · {} · allowed lateness {}",
            self.windows,
            self.trigger,
            self.accumulation,
            self.combiner.beam_name(),
            self.allowed_lateness
        );
        if !self.empty_panes.is_default() {
            line.push_str(&format!(
                " · closing {} · on time {}",
                self.empty_panes.closing.beam_name(),
                self.empty_panes.on_time.beam_name()
            ));
        }
        line
    }

    /// Runs the script under `conventions` and checks what it expects.
    pub fn run(&self, conventions: Conventions) -> Run {
        check::run(self, conventions)
    }
}

/// `[1, 2, 3]`.
pub(crate) fn list(ts: &[i64]) -> String {
    let items: Vec<String> = ts.iter().map(|t| t.to_string()).collect();
    format!("[{}]", items.join(", "))
}

/// A window function's offset as an argument: none when it is 0, Beam's default.
fn shown_offset(offset: i64) -> String {
    if offset == 0 {
        String::new()
    } else {
        format!(", offset={offset}")
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
