//! Beam's trigger algebra as an expression: `AfterWatermark(early=AfterCount(3),
//! late=AfterCount(1))`, `Repeatedly(AfterProcessingTime(5s))`, `AfterEach(AfterCount(2),
//! Never)`… The names and arguments are Beam Python's (`apache_beam.transforms.trigger`), as
//! Beam's trigger transcripts write them; a few of Beam Java's names are accepted too. A
//! duration is a number of milliseconds, or a number with a unit (`500ms`, `5s`, `2m`, `1h`).
//!
//! Beam's transcript test calls each trigger class with the arguments as written, so they bind
//! as Python binds them: in the order of the constructor's parameters or by name
//! (`AfterWatermark(AfterCount(3))` is `AfterWatermark(early=AfterCount(3))`), with Python's
//! spacing and a trailing comma; what Python refuses (too many arguments, an unknown name, a
//! parameter given twice, a required one missing) is refused in Beam's words. A trigger nests
//! at most [`MAX_DEPTH`] deep.
//!
//! [`Trigger::parse`] reads one; [`fmt::Display`] writes it back the same way, so a parsed
//! trigger prints as it would be typed. The state machine that runs it is
//! [`super::machine`].

use std::fmt;
use std::str::FromStr;

use crate::conventions::Conventions;

/// A trigger: when a window emits a pane.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Trigger {
    /// Beam's default: `Repeatedly(AfterWatermark())`, firing once when the watermark passes
    /// the window's end and again for every late element.
    Default,
    /// Fires once when the watermark passes the window's end; before that its `early`
    /// trigger, after it its `late` trigger, each repeated.
    AfterWatermark {
        /// Speculative firings before the end of the window (always a `Repeatedly`).
        early: Option<Box<Trigger>>,
        /// Firings for late data after it (always a `Repeatedly`).
        late: Option<Box<Trigger>>,
    },
    /// Fires once the pane holds at least this many elements.
    AfterCount(u64),
    /// Fires once, this many ms of processing time after the pane's first element.
    AfterProcessingTime(i64),
    /// Its trigger, again and again: never finishes.
    Repeatedly(Box<Trigger>),
    /// Fires when any of its triggers fires; finishes when any finishes.
    AfterAny(Vec<Trigger>),
    /// Fires when all of its triggers would fire; finishes when all finish.
    AfterAll(Vec<Trigger>),
    /// Its triggers one after the other: each in turn until it finishes.
    AfterEach(Vec<Trigger>),
    /// `OrFinally(main, until)`: fires as either fires, finishes when either finishes.
    OrFinally(Box<Trigger>, Box<Trigger>),
    /// Fires for every element.
    Always,
    /// Never fires (a window's data is released only at its end, if ever).
    Never,
}

/// Why a trigger expression could not be read: the column (1-based, in characters) and
/// what was wrong there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at column {column}: {message}")]
pub struct TriggerError {
    /// Where, 1-based, in characters.
    pub column: usize,
    /// What was expected or found.
    pub message: String,
}

/// Every trigger name the parser knows, as its errors list them.
pub(crate) const TRIGGER_NAMES: &str = "Default, AfterWatermark(early=…, late=…), AfterCount(n), \
     AfterProcessingTime(delay), Repeatedly(t), AfterAny(t, …), AfterAll(t, …), \
     AfterEach(t, …), OrFinally(t, until), Always, Never";

impl Trigger {
    /// Whether the trigger can run under `conventions`: every trigger can, except under Kafka
    /// Streams' rules, which know only [`Trigger::kafka_streams_emit`]'s two.
    pub fn runs_under(&self, conventions: Conventions) -> bool {
        !conventions.uses_stream_time() || self.kafka_streams_emit().is_some()
    }

    /// What the trigger means under Kafka Streams' rules, which have no triggers but two
    /// ways to emit: an update for every record (`Always`, or `Repeatedly(AfterCount(1))`:
    /// `EmitStrategy.onWindowUpdate`, with record caching off) and one result when the window
    /// closes (the default, `AfterWatermark()` or `Never`: `EmitStrategy.onWindowClose`, the
    /// result emitted as the window is collected). `None` for any other trigger.
    pub fn kafka_streams_emit(&self) -> Option<Trigger> {
        match self {
            Trigger::Always => Some(Trigger::Always),
            Trigger::Repeatedly(t) if **t == Trigger::AfterCount(1) => Some(Trigger::Always),
            Trigger::Default
            | Trigger::Never
            | Trigger::AfterWatermark {
                early: None,
                late: None,
            } => Some(Trigger::Never),
            _ => None,
        }
    }

    /// Reads a trigger expression.
    pub fn parse(text: &str) -> Result<Trigger, TriggerError> {
        let mut p = Parser {
            chars: text.chars().collect(),
            at: 0,
            depth: 0,
        };
        let t = p.trigger()?;
        p.skip_space();
        if p.at < p.chars.len() {
            return Err(p.error(format!("unexpected `{}` after the trigger", p.rest())));
        }
        Ok(t)
    }

    /// `AfterWatermark(early, late)`, each sub-trigger wrapped in `Repeatedly` unless it
    /// already is one (as both SDKs do).
    pub fn after_watermark(early: Option<Trigger>, late: Option<Trigger>) -> Trigger {
        let repeated = |t: Trigger| match t {
            Trigger::Repeatedly(_) => Box::new(t),
            other => Box::new(Trigger::Repeatedly(Box::new(other))),
        };
        Trigger::AfterWatermark {
            early: early.map(repeated),
            late: late.map(repeated),
        }
    }

    /// twoclocks' own trigger with an early interval: `AfterWatermark(early=
    /// AfterProcessingTime(early), late=AfterCount(1))`, or `Default`-like without one. What
    /// `--early DUR` stands for.
    pub fn shorthand(early: Option<f64>) -> Trigger {
        Trigger::after_watermark(
            early.map(|ms| Trigger::AfterProcessingTime(ms.round() as i64)),
            Some(Trigger::AfterCount(1)),
        )
    }
}

impl fmt::Display for Trigger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, name: &str, ts: &[Trigger]| {
            write!(f, "{name}(")?;
            for (i, t) in ts.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{t}")?;
            }
            f.write_str(")")
        };
        // Inside AfterWatermark one Repeatedly is implied: it prints what was typed. A
        // Repeatedly of a Repeatedly prints whole, as the reader wraps only what is not one.
        let unwrapped = |t: &Trigger| match t {
            Trigger::Repeatedly(inner) if !matches!(**inner, Trigger::Repeatedly(_)) => {
                inner.to_string()
            }
            other => other.to_string(),
        };
        match self {
            Trigger::Default => f.write_str("Default"),
            Trigger::AfterWatermark { early, late } => {
                f.write_str("AfterWatermark(")?;
                if let Some(e) = early {
                    write!(f, "early={}", unwrapped(e))?;
                }
                if let Some(l) = late {
                    if early.is_some() {
                        f.write_str(", ")?;
                    }
                    write!(f, "late={}", unwrapped(l))?;
                }
                f.write_str(")")
            }
            Trigger::AfterCount(n) => write!(f, "AfterCount({n})"),
            Trigger::AfterProcessingTime(ms) => {
                write!(f, "AfterProcessingTime({})", duration(*ms))
            }
            Trigger::Repeatedly(t) => write!(f, "Repeatedly({t})"),
            Trigger::AfterAny(ts) => list(f, "AfterAny", ts),
            Trigger::AfterAll(ts) => list(f, "AfterAll", ts),
            Trigger::AfterEach(ts) => list(f, "AfterEach", ts),
            Trigger::OrFinally(a, b) => write!(f, "OrFinally({a}, {b})"),
            Trigger::Always => f.write_str("Always"),
            Trigger::Never => f.write_str("Never"),
        }
    }
}

impl FromStr for Trigger {
    type Err = TriggerError;

    /// Reads a trigger expression as [`Trigger::parse`] does; `Display` writes it back.
    fn from_str(s: &str) -> Result<Trigger, TriggerError> {
        Trigger::parse(s)
    }
}

/// A duration as the parser reads it back: whole seconds as `5s`, else milliseconds.
fn duration(ms: i64) -> String {
    if ms != 0 && ms % 1000 == 0 {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}")
    }
}

/// The deepest a trigger may nest, triggers inside triggers: far beyond any real one (Beam's
/// own transcripts nest three deep; Python, with which Beam reads a trigger, refuses 200
/// nested parentheses). Every walk over a trigger (reading it, printing it, building its state
/// machine) recurses once per level, so the bound keeps them all within the stack.
pub const MAX_DEPTH: usize = 100;

/// A recursive-descent reader over the expression's characters.
struct Parser {
    chars: Vec<char>,
    at: usize,
    /// How many triggers the one being read is inside.
    depth: usize,
}

/// The constructors an expression calls, each with its parameters as Beam Python's
/// `apache_beam.transforms.trigger` declares them (`AfterWatermark(early=None, late=None)`,
/// `AfterCount(count)`, `AfterProcessingTime(delay=0)`, `Repeatedly(underlying)`,
/// `AfterAny(*triggers)`…), so that arguments bind as Python binds them: positional in the
/// parameters' order, or by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Constructor {
    Default,
    Always,
    Never,
    AfterWatermark,
    AfterCount,
    AfterProcessingTime,
    Repeatedly,
    AfterAny,
    AfterAll,
    AfterEach,
    OrFinally,
}

/// A constructor's parameters: named ones, each required or not, or any number of triggers.
enum Params {
    Named(&'static [(&'static str, bool)]),
    Triggers,
}

impl Constructor {
    /// The constructor a name calls: Beam Python's names, Beam's transcripts' `Default`, and
    /// a few of Beam Java's.
    fn named(name: &str) -> Option<Constructor> {
        Some(match name {
            "Default" | "DefaultTrigger" => Constructor::Default,
            "Always" => Constructor::Always,
            "Never" | "_Never" => Constructor::Never,
            "AfterWatermark" | "AfterWatermark.pastEndOfWindow" => Constructor::AfterWatermark,
            "AfterCount" | "AfterPane.elementCountAtLeast" => Constructor::AfterCount,
            "AfterProcessingTime" => Constructor::AfterProcessingTime,
            "Repeatedly" | "Repeatedly.forever" => Constructor::Repeatedly,
            "AfterAny" | "AfterFirst" => Constructor::AfterAny,
            "AfterAll" => Constructor::AfterAll,
            "AfterEach" | "AfterEach.inOrder" => Constructor::AfterEach,
            "OrFinally" => Constructor::OrFinally,
            _ => return None,
        })
    }

    /// Its name in twoclocks' messages.
    fn name(self) -> &'static str {
        match self {
            Constructor::Default => "Default",
            Constructor::Always => "Always",
            Constructor::Never => "Never",
            Constructor::AfterWatermark => "AfterWatermark",
            Constructor::AfterCount => "AfterCount",
            Constructor::AfterProcessingTime => "AfterProcessingTime",
            Constructor::Repeatedly => "Repeatedly",
            Constructor::AfterAny => "AfterAny",
            Constructor::AfterAll => "AfterAll",
            Constructor::AfterEach => "AfterEach",
            Constructor::OrFinally => "OrFinally",
        }
    }

    /// The Python class whose `__init__` Beam's messages name.
    fn python_class(self) -> &'static str {
        match self {
            Constructor::Default => "DefaultTrigger",
            Constructor::Never => "_Never",
            Constructor::AfterAny | Constructor::AfterAll | Constructor::OrFinally => {
                "_ParallelTriggerFn"
            }
            other => other.name(),
        }
    }

    fn params(self) -> Params {
        match self {
            Constructor::Default | Constructor::Always | Constructor::Never => Params::Named(&[]),
            Constructor::AfterWatermark => Params::Named(&[("early", false), ("late", false)]),
            Constructor::AfterCount => Params::Named(&[("count", true)]),
            Constructor::AfterProcessingTime => Params::Named(&[("delay", false)]),
            Constructor::Repeatedly => Params::Named(&[("underlying", true)]),
            Constructor::AfterAny
            | Constructor::AfterAll
            | Constructor::AfterEach
            | Constructor::OrFinally => Params::Triggers,
        }
    }

    /// What Beam says of a call, as Python words it: `AfterCount.__init__() …`.
    fn beam_says(self, what: &str) -> String {
        format!("(Beam: `{}.__init__() {what}`)", self.python_class())
    }

    /// The arguments bound to the parameters, as Python binds them: the positional ones in
    /// order (wherever they stand: Beam's transcript reader gathers them apart from the named
    /// ones), then each named one to its parameter. What Python refuses is refused with
    /// Beam's words: too many arguments, a name the constructor does not have, a parameter
    /// given twice, a required one missing.
    fn bind(self, args: Vec<Arg>, column: usize) -> Result<Bound, TriggerError> {
        let name = self.name();
        let (positional, named): (Vec<Arg>, Vec<Arg>) =
            args.into_iter().partition(|a| a.name.is_none());
        let Params::Named(params) = self.params() else {
            if let Some(a) = named.first() {
                return Err(TriggerError {
                    column: a.column,
                    message: format!(
                        "{name} takes its triggers in order, without names {}",
                        self.beam_says(&format!(
                            "got an unexpected keyword argument '{}'",
                            a.name.as_deref().unwrap_or_default()
                        ))
                    ),
                });
            }
            return Ok(Bound {
                slots: Vec::new(),
                rest: positional,
                column,
            });
        };
        if let Some(extra) = positional.get(params.len()) {
            let required = params.iter().filter(|(_, r)| *r).count();
            let takes = if required == params.len() {
                format!(
                    "takes {} positional argument{}",
                    params.len() + 1,
                    if params.is_empty() { "" } else { "s" }
                )
            } else {
                format!(
                    "takes from {} to {} positional arguments",
                    required + 1,
                    params.len() + 1
                )
            };
            let list: Vec<String> = params.iter().map(|(p, _)| format!("`{p}`")).collect();
            return Err(TriggerError {
                column: extra.column,
                message: format!(
                    "{name} takes {} {}",
                    if params.is_empty() {
                        "no arguments".to_string()
                    } else {
                        format!(
                            "at most {} argument{} ({}), not {}",
                            params.len(),
                            if params.len() == 1 { "" } else { "s" },
                            list.join(", "),
                            positional.len()
                        )
                    },
                    self.beam_says(&format!("{takes} but {} were given", positional.len() + 1))
                ),
            });
        }
        let mut slots: Vec<Option<Arg>> = params.iter().map(|_| None).collect();
        let given = positional.len();
        for (slot, a) in slots.iter_mut().zip(positional) {
            *slot = Some(a);
        }
        let mut seen: Vec<&str> = Vec::new();
        for a in named {
            let key = a.name.clone().unwrap_or_default();
            let Some(i) = params.iter().position(|(p, _)| *p == key) else {
                let only = if params.is_empty() {
                    "no arguments".to_string()
                } else {
                    let list: Vec<String> = params.iter().map(|(p, _)| format!("`{p}=`")).collect();
                    format!("only {}", list.join(" and "))
                };
                return Err(TriggerError {
                    column: a.column,
                    message: format!(
                        "{name} takes {only} {}",
                        self.beam_says(&format!("got an unexpected keyword argument '{key}'"))
                    ),
                });
            };
            if seen.contains(&params[i].0) {
                return Err(TriggerError {
                    column: a.column,
                    message: format!(
                        "{name} takes `{key}=` once (Python: `keyword argument repeated: {key}`)"
                    ),
                });
            }
            seen.push(params[i].0);
            if i < given {
                return Err(TriggerError {
                    column: a.column,
                    message: format!(
                        "{name} is given its `{key}` twice, in order and as `{key}=` {}",
                        self.beam_says(&format!("got multiple values for argument '{key}'"))
                    ),
                });
            }
            slots[i] = Some(a);
        }
        let missing: Vec<&str> = params
            .iter()
            .zip(&slots)
            .filter(|((_, required), slot)| *required && slot.is_none())
            .map(|((p, _), _)| *p)
            .collect();
        if !missing.is_empty() {
            let quoted: Vec<String> = missing.iter().map(|p| format!("'{p}'")).collect();
            return Err(TriggerError {
                column,
                message: format!(
                    "{name} needs its `{}`: `{name}({})` {}",
                    missing.join("`, `"),
                    missing.join(", "),
                    self.beam_says(&format!(
                        "missing {} required positional argument{}: {}",
                        missing.len(),
                        if missing.len() == 1 { "" } else { "s" },
                        quoted.join(" and ")
                    ))
                ),
            });
        }
        Ok(Bound {
            slots,
            rest: Vec::new(),
            column,
        })
    }
}

/// A call's arguments bound to its constructor's parameters.
struct Bound {
    /// One per named parameter, in order.
    slots: Vec<Option<Arg>>,
    /// The triggers of a constructor that takes any number.
    rest: Vec<Arg>,
    /// Where the call is.
    column: usize,
}

impl Bound {
    /// The trigger given for parameter `i`, if any.
    fn trigger(&mut self, class: Constructor, i: usize) -> Result<Option<Trigger>, TriggerError> {
        match self.slots.get_mut(i).and_then(Option::take) {
            None => Ok(None),
            Some(Arg {
                value: Value::Trigger(t),
                ..
            }) => Ok(Some(t)),
            Some(a) => Err(TriggerError {
                column: a.column,
                message: format!("{} takes triggers, not numbers", class.name()),
            }),
        }
    }

    /// The number given for parameter `i`, if any.
    fn number(&mut self, class: Constructor, i: usize) -> Result<Option<i64>, TriggerError> {
        match self.slots.get_mut(i).and_then(Option::take) {
            None => Ok(None),
            Some(Arg {
                value: Value::Number(n),
                ..
            }) => Ok(Some(n)),
            Some(Arg {
                value: Value::Trigger(t),
                column,
                ..
            }) => Err(TriggerError {
                column,
                message: format!("{} takes a number, not `{t}`", class.name()),
            }),
        }
    }

    /// The triggers of a constructor that takes any number: at least one.
    fn triggers(&mut self, class: Constructor) -> Result<Vec<Trigger>, TriggerError> {
        let mut out = Vec::new();
        for a in std::mem::take(&mut self.rest) {
            match a.value {
                Value::Trigger(t) => out.push(t),
                Value::Number(_) => {
                    return Err(TriggerError {
                        column: a.column,
                        message: format!("{} takes triggers, not numbers", class.name()),
                    })
                }
            }
        }
        if out.is_empty() {
            return Err(TriggerError {
                column: self.column,
                message: format!("{} takes at least 1 trigger", class.name()),
            });
        }
        Ok(out)
    }
}

/// One argument: positional or `name=value`.
struct Arg {
    name: Option<String>,
    value: Value,
    column: usize,
}

/// An argument's value: a trigger, or a number with its unit.
enum Value {
    Trigger(Trigger),
    Number(i64),
}

impl Parser {
    fn error(&self, message: String) -> TriggerError {
        TriggerError {
            column: self.at + 1,
            message,
        }
    }

    fn rest(&self) -> String {
        self.chars[self.at..].iter().take(24).collect()
    }

    fn skip_space(&mut self) {
        while self.chars.get(self.at).is_some_and(|c| c.is_whitespace()) {
            self.at += 1;
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_space();
        if self.chars.get(self.at) == Some(&c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn ident(&mut self) -> String {
        self.skip_space();
        let start = self.at;
        while self
            .chars
            .get(self.at)
            .is_some_and(|c| c.is_alphanumeric() || *c == '_' || *c == '.')
        {
            self.at += 1;
        }
        self.chars[start..self.at].iter().collect()
    }

    fn trigger(&mut self) -> Result<Trigger, TriggerError> {
        self.skip_space();
        if self.depth >= MAX_DEPTH {
            return Err(self.error(format!(
                "the trigger nests more than {MAX_DEPTH} deep (triggers inside triggers): \
                 at most {MAX_DEPTH} levels are read"
            )));
        }
        self.depth += 1;
        let t = self.call();
        self.depth -= 1;
        t
    }

    /// One trigger: its name and, if given, its arguments bound to its constructor's
    /// parameters as Python binds them.
    fn call(&mut self) -> Result<Trigger, TriggerError> {
        let column = self.at + 1;
        let name = self.ident();
        if name.is_empty() {
            return Err(if self.at >= self.chars.len() {
                self.error(format!("expected a trigger ({TRIGGER_NAMES})"))
            } else {
                self.error(format!("expected a trigger, found `{}`", self.rest()))
            });
        }
        let Some(class) = Constructor::named(&name) else {
            return Err(TriggerError {
                column,
                message: format!("unknown trigger `{name}` (known: {TRIGGER_NAMES})"),
            });
        };
        let args = if self.eat('(') {
            self.args()?
        } else {
            Vec::new()
        };
        let err = |message: String| TriggerError { column, message };
        let mut bound = class.bind(args, column)?;
        Ok(match class {
            Constructor::Default => Trigger::Default,
            Constructor::Always => Trigger::Always,
            Constructor::Never => Trigger::Never,
            Constructor::AfterWatermark => {
                let late = bound.trigger(class, 1)?;
                let early = bound.trigger(class, 0)?;
                Trigger::after_watermark(early, late)
            }
            Constructor::AfterCount => {
                // Bound: `count` is required.
                let n = bound.number(class, 0)?.unwrap_or_default();
                if n < 1 {
                    return Err(err(format!(
                        "AfterCount({n}): the count must be at least 1 (Beam: `count ({n}) \
                         must be a positive integer.`)"
                    )));
                }
                Trigger::AfterCount(n as u64)
            }
            Constructor::AfterProcessingTime => {
                let delay = bound.number(class, 0)?.unwrap_or(0);
                if delay < 0 {
                    return Err(err(format!(
                        "AfterProcessingTime({delay}): the delay cannot be negative"
                    )));
                }
                Trigger::AfterProcessingTime(delay)
            }
            Constructor::Repeatedly => {
                // Bound: `underlying` is required.
                let underlying = bound.trigger(class, 0)?.unwrap_or(Trigger::Never);
                Trigger::Repeatedly(Box::new(underlying))
            }
            Constructor::AfterAny => Trigger::AfterAny(bound.triggers(class)?),
            Constructor::AfterAll => Trigger::AfterAll(bound.triggers(class)?),
            Constructor::AfterEach => Trigger::AfterEach(bound.triggers(class)?),
            Constructor::OrFinally => match <[Trigger; 2]>::try_from(bound.triggers(class)?) {
                Ok([main, until]) => Trigger::OrFinally(Box::new(main), Box::new(until)),
                Err(ts) => {
                    return Err(err(format!(
                        "OrFinally takes two triggers, the main one and `until`, not {} \
                         (Beam Python's constructor takes any number, as AfterAny's does, but \
                         its runner API and Beam Java keep two)",
                        ts.len()
                    )))
                }
            },
        })
    }

    fn args(&mut self) -> Result<Vec<Arg>, TriggerError> {
        let mut args = Vec::new();
        if self.eat(')') {
            return Ok(args);
        }
        loop {
            self.skip_space();
            let column = self.at + 1;
            let mark = self.at;
            let word = self.ident();
            let name = if !word.is_empty() && self.eat('=') {
                Some(word)
            } else {
                self.at = mark;
                None
            };
            self.skip_space();
            let value = if self
                .chars
                .get(self.at)
                .is_some_and(|c| c.is_ascii_digit() || *c == '-' || *c == '+')
            {
                Value::Number(self.number()?)
            } else {
                Value::Trigger(self.trigger()?)
            };
            args.push(Arg {
                name,
                value,
                column,
            });
            // A trailing comma, as Python allows: `AfterAny(AfterCount(1),)`.
            if self.eat(',') {
                if self.eat(')') {
                    return Ok(args);
                }
                continue;
            }
            if self.eat(')') {
                return Ok(args);
            }
            return Err(if self.at >= self.chars.len() {
                self.error("a `(` is not closed".to_string())
            } else {
                self.error(format!("expected `,` or `)`, found `{}`", self.rest()))
            });
        }
    }

    /// An integer, optionally with a unit: milliseconds by default.
    fn number(&mut self) -> Result<i64, TriggerError> {
        let start = self.at;
        if matches!(self.chars.get(self.at), Some('-' | '+')) {
            self.at += 1;
        }
        while self
            .chars
            .get(self.at)
            .is_some_and(|c| c.is_ascii_digit() || *c == '_')
        {
            self.at += 1;
        }
        let digits: String = self.chars[start..self.at].iter().collect();
        // Python's `int`, with which Beam reads a number, takes `_` between digits (`1_000`).
        let spaced_well = !digits.contains("__")
            && !digits.ends_with('_')
            && !digits.trim_start_matches(['-', '+']).starts_with('_');
        let unit_at = self.at;
        while self
            .chars
            .get(self.at)
            .is_some_and(|c| c.is_ascii_alphabetic())
        {
            self.at += 1;
        }
        let unit: String = self.chars[unit_at..self.at].iter().collect();
        let plain = digits.replace('_', "");
        if !spaced_well || plain.trim_start_matches(['-', '+']).is_empty() {
            return Err(TriggerError {
                column: start + 1,
                message: format!("`{digits}` is not a whole number"),
            });
        }
        let beyond = || TriggerError {
            column: start + 1,
            message: format!(
                "`{digits}{unit}` is beyond Beam's range of time, ±{} ms",
                super::END_OF_TIME
            ),
        };
        // All digits: one that does not parse does not fit.
        let n: i64 = plain.parse().map_err(|_| beyond())?;
        let scale = match unit.as_str() {
            "" | "ms" => 1,
            "s" => 1_000,
            "m" | "min" => 60_000,
            "h" => 3_600_000,
            other => {
                return Err(TriggerError {
                    column: unit_at + 1,
                    message: format!("unknown unit `{other}` (ms, s, m or h)"),
                })
            }
        };
        n.checked_mul(scale)
            .filter(|n| n.unsigned_abs() <= super::END_OF_TIME.unsigned_abs())
            .ok_or_else(beyond)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_beams_transcripts_write() {
        for (text, shown) in [
            ("Default", "Default"),
            (
                "AfterWatermark(early=AfterCount(3), late=AfterCount(1))",
                "AfterWatermark(early=AfterCount(3), late=AfterCount(1))",
            ),
            ("AfterWatermark()", "AfterWatermark()"),
            ("AfterCount(2)", "AfterCount(2)"),
            (
                "Repeatedly(AfterProcessingTime(5s))",
                "Repeatedly(AfterProcessingTime(5s))",
            ),
            ("AfterProcessingTime(delay=250)", "AfterProcessingTime(250)"),
            (
                "AfterEach(AfterCount(2), Never)",
                "AfterEach(AfterCount(2), Never)",
            ),
            (
                "OrFinally(Repeatedly(AfterCount(1)), AfterCount(5))",
                "OrFinally(Repeatedly(AfterCount(1)), AfterCount(5))",
            ),
            (
                "AfterAny( AfterCount(2) ,AfterProcessingTime(1m))",
                "AfterAny(AfterCount(2), AfterProcessingTime(60s))",
            ),
        ] {
            let t = Trigger::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(t.to_string(), shown);
            assert_eq!(Trigger::parse(shown).unwrap(), t, "{shown} reads back");
        }
    }

    #[test]
    fn after_watermark_repeats_its_phases() {
        let t = Trigger::parse("AfterWatermark(early=AfterCount(2))").unwrap();
        assert_eq!(
            t,
            Trigger::AfterWatermark {
                early: Some(Box::new(Trigger::Repeatedly(Box::new(
                    Trigger::AfterCount(2)
                )))),
                late: None
            }
        );
    }

    #[test]
    fn errors_say_where_and_what() {
        for (text, column, part) in [
            ("AfterFoo(3)", 1, "unknown trigger `AfterFoo`"),
            ("AfterCount(0)", 1, "at least 1"),
            ("AfterCount(2", 13, "not closed"),
            (
                "AfterWatermark(soon=AfterCount(1))",
                16,
                "only `early=` and `late=`",
            ),
            ("AfterProcessingTime(5 parsecs)", 23, "expected `,` or `)`"),
            ("AfterProcessingTime(5y)", 22, "unknown unit `y`"),
            ("AfterCount(2) x", 15, "unexpected `x`"),
            ("", 1, "expected a trigger"),
            ("Repeatedly(3)", 12, "takes triggers"),
        ] {
            let e = Trigger::parse(text).unwrap_err();
            assert_eq!(e.column, column, "{text}: {e}");
            assert!(e.message.contains(part), "{text}: {e}");
        }
    }

    /// Each spelling as Beam 2.78 reads it: its transcript reader (`TranscriptTest`'s
    /// `parse_fn` in `apache_beam/transforms/trigger_test.py`) calls each class with the
    /// arguments as written, so they bind as Python binds them. On the right, the trigger as
    /// twoclocks prints it; Beam built the same one (its `repr` spells two differently:
    /// `AfterProcessingTime(delay=5)`, `DefaultTrigger()`). The last group Python reads but
    /// Beam's reader does not take apart (it fails on empty parentheses, a trailing comma and
    /// spaces before `=`): twoclocks reads them as Python does.
    #[test]
    fn arguments_bind_as_python_binds_them() {
        for (text, beam) in [
            (
                "AfterWatermark(AfterCount(3))",
                "AfterWatermark(early=AfterCount(3))",
            ),
            (
                "AfterWatermark(AfterCount(1), AfterCount(2))",
                "AfterWatermark(early=AfterCount(1), late=AfterCount(2))",
            ),
            (
                "AfterWatermark(AfterCount(1), late=AfterCount(2))",
                "AfterWatermark(early=AfterCount(1), late=AfterCount(2))",
            ),
            // Beam's reader gathers the positional arguments apart from the named ones.
            (
                "AfterWatermark(late=AfterCount(1), AfterCount(2))",
                "AfterWatermark(early=AfterCount(2), late=AfterCount(1))",
            ),
            ("AfterCount(count=3)", "AfterCount(3)"),
            ("AfterCount (3)", "AfterCount(3)"),
            ("AfterProcessingTime(5)", "AfterProcessingTime(5)"),
            (
                "Repeatedly(underlying=AfterCount(1))",
                "Repeatedly(AfterCount(1))",
            ),
            (
                "OrFinally(AfterCount(1), AfterCount(2))",
                "OrFinally(AfterCount(1), AfterCount(2))",
            ),
            // Numbers as Python's `int` reads them.
            ("AfterCount(1_000)", "AfterCount(1000)"),
            ("AfterCount(+3)", "AfterCount(3)"),
            // Python's, not Beam's reader's.
            ("AfterProcessingTime()", "AfterProcessingTime(0)"),
            ("Always()", "Always"),
            ("_Never()", "Never"),
            ("DefaultTrigger()", "Default"),
            (
                "AfterWatermark( early = AfterCount(1) ,\n late=AfterCount(2), )",
                "AfterWatermark(early=AfterCount(1), late=AfterCount(2))",
            ),
            ("AfterAny(AfterCount(1),)", "AfterAny(AfterCount(1))"),
        ] {
            let t = Trigger::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(t.to_string(), beam, "{text}");
        }
    }

    /// What Python refuses, with what Beam 2.78 said for each.
    #[test]
    fn what_python_refuses_is_refused_with_beams_words() {
        for (text, column, part) in [
            (
                "AfterWatermark(AfterCount(1), AfterCount(2), AfterCount(3))",
                46,
                "AfterWatermark.__init__() takes from 1 to 3 positional arguments but 4 were given",
            ),
            (
                "AfterWatermark(AfterCount(1), early=AfterCount(2))",
                31,
                "AfterWatermark.__init__() got multiple values for argument 'early'",
            ),
            (
                "AfterWatermark(soon=AfterCount(1))",
                16,
                "AfterWatermark.__init__() got an unexpected keyword argument 'soon'",
            ),
            (
                "AfterCount()",
                1,
                "AfterCount.__init__() missing 1 required positional argument: 'count'",
            ),
            (
                "AfterCount(3, 4)",
                15,
                "AfterCount.__init__() takes 2 positional arguments but 3 were given",
            ),
            (
                "AfterCount(n=3)",
                12,
                "AfterCount.__init__() got an unexpected keyword argument 'n'",
            ),
            ("AfterCount(0)", 1, "count (0) must be a positive integer."),
            (
                "Repeatedly(AfterCount(1), AfterCount(2))",
                27,
                "Repeatedly.__init__() takes 2 positional arguments but 3 were given",
            ),
            (
                "Repeatedly()",
                1,
                "Repeatedly.__init__() missing 1 required positional argument: 'underlying'",
            ),
            (
                "AfterAny(triggers=AfterCount(1))",
                10,
                "_ParallelTriggerFn.__init__() got an unexpected keyword argument 'triggers'",
            ),
            (
                "Always(1)",
                8,
                "Always.__init__() takes 1 positional argument but 2 were given",
            ),
            (
                "Default(AfterCount(1))",
                9,
                "DefaultTrigger.__init__() takes 1 positional argument but 2 were given",
            ),
            ("AfterAny(,)", 10, "expected a trigger, found `,)`"),
            ("AfterAny()", 1, "AfterAny takes at least 1 trigger"),
            ("AfterCount(1__0)", 12, "`1__0` is not a whole number"),
            ("AfterCount(1_)", 12, "`1_` is not a whole number"),
            ("AfterCount(-)", 12, "`-` is not a whole number"),
            (
                "AfterCount(100000000000000000000000)",
                12,
                "`100000000000000000000000` is beyond Beam's range of time",
            ),
            (
                "OrFinally(AfterCount(1))",
                1,
                "OrFinally takes two triggers",
            ),
        ] {
            let e = Trigger::parse(text).unwrap_err();
            assert_eq!(e.column, column, "{text}: {e}");
            assert!(e.message.contains(part), "{text}: {e}");
        }
    }

    #[test]
    fn a_trigger_nested_beyond_the_limit_is_refused_at_any_depth() {
        let nested =
            |n: usize| format!("{}AfterCount(1){}", "Repeatedly(".repeat(n), ")".repeat(n));
        // MAX_DEPTH triggers inside one another are read and printed (and run: the state
        // machine's own test builds one).
        let deepest = nested(MAX_DEPTH - 1);
        let t = Trigger::parse(&deepest).unwrap();
        assert_eq!(t.to_string(), deepest);
        for n in [MAX_DEPTH, 20_000, 1_000_000] {
            let e = Trigger::parse(&nested(n)).unwrap_err();
            assert_eq!(e.column, MAX_DEPTH * "Repeatedly(".len() + 1, "{n}");
            assert!(e.message.contains("nests more than 100 deep"), "{n}: {e}");
        }
    }

    fn any_trigger() -> impl proptest::strategy::Strategy<Value = Trigger> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just(Trigger::Default),
            Just(Trigger::Always),
            Just(Trigger::Never),
            (1u64..1_000).prop_map(Trigger::AfterCount),
            prop_oneof![0i64..10_000, (1i64..10_000).prop_map(|s| s * 1_000)]
                .prop_map(Trigger::AfterProcessingTime),
        ];
        leaf.prop_recursive(4, 24, 3, |inner| {
            let many = proptest::collection::vec(inner.clone(), 1..4);
            prop_oneof![
                (
                    proptest::option::of(inner.clone()),
                    proptest::option::of(inner.clone())
                )
                    .prop_map(|(e, l)| Trigger::after_watermark(e, l)),
                inner.clone().prop_map(|t| Trigger::Repeatedly(Box::new(t))),
                many.clone().prop_map(Trigger::AfterAny),
                many.clone().prop_map(Trigger::AfterAll),
                many.prop_map(Trigger::AfterEach),
                (inner.clone(), inner)
                    .prop_map(|(a, b)| Trigger::OrFinally(Box::new(a), Box::new(b))),
            ]
        })
    }

    #[test]
    fn a_repeatedly_of_a_repeatedly_inside_after_watermark_reads_back_the_same() {
        let twice = Trigger::Repeatedly(Box::new(Trigger::Repeatedly(Box::new(Trigger::Default))));
        let t = Trigger::after_watermark(None, Some(twice));
        assert_eq!(
            t.to_string(),
            "AfterWatermark(late=Repeatedly(Repeatedly(Default)))"
        );
        assert_eq!(t.to_string().parse::<Trigger>(), Ok(t));
    }

    proptest::proptest! {
        #[test]
        fn what_is_written_reads_back_the_same(t in any_trigger()) {
            proptest::prop_assert_eq!(t.to_string().parse::<Trigger>(), Ok(t));
        }
    }
}
