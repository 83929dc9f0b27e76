//! Beam's trigger algebra as an expression: `AfterWatermark(early=AfterCount(3),
//! late=AfterCount(1))`, `Repeatedly(AfterProcessingTime(5s))`, `AfterEach(AfterCount(2),
//! Never)`… The names and arguments are Beam Python's (`apache_beam.transforms.trigger`), as
//! Beam's trigger transcripts write them; a few of Beam Java's names are accepted too. A
//! duration is a number of milliseconds, or a number with a unit (`500ms`, `5s`, `2m`, `1h`).
//!
//! [`Trigger::parse`] reads one; [`fmt::Display`] writes it back the same way, so a parsed
//! trigger prints as it would be typed. The state machine that runs it is
//! [`super::machine`].

use std::fmt;

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
pub const TRIGGER_NAMES: &str = "Default, AfterWatermark(early=…, late=…), AfterCount(n), \
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
        // Inside AfterWatermark the Repeatedly is implied: it prints what was typed.
        let unwrapped = |t: &Trigger| match t {
            Trigger::Repeatedly(inner) => inner.to_string(),
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

/// A duration as the parser reads it back: whole seconds as `5s`, else milliseconds.
fn duration(ms: i64) -> String {
    if ms != 0 && ms % 1000 == 0 {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}")
    }
}

/// A recursive-descent reader over the expression's characters.
struct Parser {
    chars: Vec<char>,
    at: usize,
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
        let column = self.at + 1;
        let name = self.ident();
        if name.is_empty() {
            return Err(if self.at >= self.chars.len() {
                self.error(format!("expected a trigger ({TRIGGER_NAMES})"))
            } else {
                self.error(format!("expected a trigger, found `{}`", self.rest()))
            });
        }
        let args = if self.eat('(') {
            Some(self.args()?)
        } else {
            None
        };
        let err = |message: String| TriggerError { column, message };
        let args_of = |args: Option<Vec<Arg>>| args.unwrap_or_default();
        let triggers = |args: Vec<Arg>, name: &str, min: usize| -> Result<Vec<Trigger>, _> {
            let mut out = Vec::new();
            for a in args {
                if let Some(n) = a.name {
                    return Err(TriggerError {
                        column: a.column,
                        message: format!("{name} takes no argument `{n}`"),
                    });
                }
                match a.value {
                    Value::Trigger(t) => out.push(t),
                    Value::Number(_) => {
                        return Err(TriggerError {
                            column: a.column,
                            message: format!("{name} takes triggers, not numbers"),
                        })
                    }
                }
            }
            if out.len() < min {
                return Err(err(format!(
                    "{name} takes at least {min} trigger{}",
                    if min == 1 { "" } else { "s" }
                )));
            }
            Ok(out)
        };
        let number = |args: Vec<Arg>, name: &str, key: &str| -> Result<i64, TriggerError> {
            let mut args = args.into_iter();
            match (args.next(), args.next()) {
                (Some(a), None) if a.name.as_deref().is_none_or(|n| n == key) => match a.value {
                    Value::Number(n) => Ok(n),
                    Value::Trigger(t) => Err(TriggerError {
                        column: a.column,
                        message: format!("{name} takes a number, not `{t}`"),
                    }),
                },
                (Some(a), None) => Err(TriggerError {
                    column: a.column,
                    message: format!(
                        "{name} takes no argument `{}` (only `{key}`)",
                        a.name.unwrap_or_default()
                    ),
                }),
                _ => Err(err(format!("{name} takes one number, `{name}({key})`"))),
            }
        };
        Ok(match name.as_str() {
            "Default" | "DefaultTrigger" => {
                triggers(args_of(args), "Default", 0)?;
                Trigger::Default
            }
            "Always" => Trigger::Always,
            "Never" | "_Never" => Trigger::Never,
            "AfterWatermark" | "AfterWatermark.pastEndOfWindow" => {
                let (mut early, mut late) = (None, None);
                for a in args_of(args) {
                    let slot = match a.name.as_deref() {
                        Some("early") => &mut early,
                        Some("late") => &mut late,
                        _ => {
                            return Err(TriggerError {
                                column: a.column,
                                message: "AfterWatermark takes only `early=` and `late=`"
                                    .to_string(),
                            })
                        }
                    };
                    if slot.is_some() {
                        return Err(TriggerError {
                            column: a.column,
                            message: format!(
                                "AfterWatermark takes `{}=` once",
                                a.name.unwrap_or_default()
                            ),
                        });
                    }
                    match a.value {
                        Value::Trigger(t) => *slot = Some(t),
                        Value::Number(_) => {
                            return Err(TriggerError {
                                column: a.column,
                                message: "AfterWatermark's early and late are triggers".to_string(),
                            })
                        }
                    }
                }
                Trigger::after_watermark(early, late)
            }
            "AfterCount" | "AfterPane.elementCountAtLeast" => {
                let n = number(args_of(args), "AfterCount", "count")?;
                if n < 1 {
                    return Err(err(format!(
                        "AfterCount({n}): the count must be at least 1"
                    )));
                }
                Trigger::AfterCount(n as u64)
            }
            "AfterProcessingTime" => {
                let delay = match args {
                    None => 0,
                    Some(a) if a.is_empty() => 0,
                    Some(a) => number(a, "AfterProcessingTime", "delay")?,
                };
                if delay < 0 {
                    return Err(err(format!(
                        "AfterProcessingTime({delay}): the delay cannot be negative"
                    )));
                }
                Trigger::AfterProcessingTime(delay)
            }
            "Repeatedly" | "Repeatedly.forever" => {
                let mut ts = triggers(args_of(args), "Repeatedly", 1)?;
                if ts.len() > 1 {
                    return Err(err("Repeatedly takes one trigger".to_string()));
                }
                Trigger::Repeatedly(Box::new(ts.remove(0)))
            }
            "AfterAny" | "AfterFirst" => Trigger::AfterAny(triggers(args_of(args), "AfterAny", 1)?),
            "AfterAll" => Trigger::AfterAll(triggers(args_of(args), "AfterAll", 1)?),
            "AfterEach" | "AfterEach.inOrder" => {
                Trigger::AfterEach(triggers(args_of(args), "AfterEach", 1)?)
            }
            "OrFinally" => {
                match <[Trigger; 2]>::try_from(triggers(args_of(args), "OrFinally", 2)?) {
                    Ok([main, until]) => Trigger::OrFinally(Box::new(main), Box::new(until)),
                    Err(_) => {
                        return Err(err(
                            "OrFinally takes two triggers: the main one and `until`".to_string(),
                        ))
                    }
                }
            }
            other => {
                return Err(err(format!(
                    "unknown trigger `{other}` (known: {TRIGGER_NAMES})"
                )))
            }
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
                .is_some_and(|c| c.is_ascii_digit() || *c == '-')
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
            if self.eat(',') {
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
        if self.chars.get(self.at) == Some(&'-') {
            self.at += 1;
        }
        while self.chars.get(self.at).is_some_and(|c| c.is_ascii_digit()) {
            self.at += 1;
        }
        let digits: String = self.chars[start..self.at].iter().collect();
        let unit_at = self.at;
        while self
            .chars
            .get(self.at)
            .is_some_and(|c| c.is_ascii_alphabetic())
        {
            self.at += 1;
        }
        let unit: String = self.chars[unit_at..self.at].iter().collect();
        let n: i64 = digits.parse().map_err(|_| TriggerError {
            column: start + 1,
            message: format!("`{digits}` is not a whole number"),
        })?;
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
            .ok_or_else(|| TriggerError {
                column: start + 1,
                message: format!(
                    "`{digits}{unit}` is beyond Beam's range of time, ±{} ms",
                    super::END_OF_TIME
                ),
            })
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
}
