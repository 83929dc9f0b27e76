//! Reading scripted streams from YAML in the format of Beam's trigger transcripts
//! (`apache_beam/testing/data/trigger_transcripts.yaml`), as it is: one script per YAML
//! document, with `name`, `window_fn`, `trigger_fn`, `timestamp_combiner`,
//! `allowed_lateness`, `accumulation_mode`, `error` and the `transcript` of steps (`input`,
//! `watermark`, `clock`, `expect`, `state`). Beam's driver ignores keys it does not know;
//! here each one is a warning naming its line, so a typo (`windowfn:`) is seen, and
//! `broken_on` (Beam's list of runners a document fails on) is read silently. Any value that
//! cannot be read is an error naming the file, the line and the value, and so is what a YAML
//! loader would keep once, drop or copy without a word: a key given twice, a tag, an alias.
//!
//! Beam Java's `closing_behavior` and `on_time_behavior` (`FIRE_ALWAYS`, `FIRE_IF_NON_EMPTY`)
//! are read too: the transcripts written from Beam Java's `ReduceFnRunnerTest` set them.

use anyhow::{anyhow, bail, Result};
use saphyr::{LoadableYamlNode, MarkedYamlOwned, ScalarOwned, YamlDataOwned};
use twoclocks_engine::script::{Action, Expected, Script, ScriptWindows, Step};
use twoclocks_engine::trigger::{Accumulation, TimestampCombiner, Trigger};

/// The scripts of one file and the warnings reading them raised.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptFile {
    /// The scripts, in file order.
    pub scripts: Vec<Script>,
    /// One line per key ignored: `FILE:LINE: …`.
    pub warnings: Vec<String>,
}

/// Reads every script in `text`; `file` names it in messages.
pub fn read(text: &str, file: &str) -> Result<ScriptFile> {
    let text = as_pyyaml_reads(text);
    plain_yaml(&text, file)?;
    let docs = MarkedYamlOwned::load_from_str(&text)
        .map_err(|e| anyhow!("{file}:{}: not YAML: {}", e.marker().line(), e.info()))?;
    let mut out = ScriptFile {
        scripts: Vec::new(),
        warnings: Vec::new(),
    };
    let lines: Vec<&str> = text.lines().collect();
    for doc in &docs {
        if matches!(doc.data, YamlDataOwned::Value(ScalarOwned::Null)) {
            continue;
        }
        let script = Reader {
            file,
            lines: &lines,
            out: &mut out.warnings,
            watermark: None,
            clock: None,
        }
        .script(doc)?;
        out.scripts.push(script);
    }
    if out.scripts.is_empty() {
        bail!("{file}: no script in it (a YAML document with a `transcript:` list)");
    }
    Ok(out)
}

/// The YAML schema's own tags, which say what a plain value would be (`!!str 5`); any other
/// tag asks for an object the reader does not make (`!!python/object`, `!custom`).
const PLAIN_TAGS: [&str; 7] = ["str", "int", "float", "bool", "null", "seq", "map"];

/// The deepest lists and mappings may nest in a script: a script nests six levels (the
/// document, its transcript, a step, its expected panes, a pane, its window), and the loader
/// and every walk over what it loaded recurse once per level, so the bound keeps them within
/// the stack.
const MAX_NESTING: usize = 100;

/// A mapping or a list open around the YAML event being read.
enum Open {
    /// A mapping: its keys so far (their text and line) and whether a key comes next.
    Mapping {
        keys: Vec<(String, usize)>,
        key_next: bool,
    },
    List,
}

/// Refuses what the loader would otherwise drop, keep once or multiply without a word: a key
/// given twice in one mapping (PyYAML keeps the last), a tag other than the schema's own (it
/// would read the value under it as if untagged) and an alias (`*a`, a copy of what its
/// anchor names, so that a few lines could stand for billions of values); and lists or
/// mappings nested deeper than [`MAX_NESTING`]. The error names the file, the line and the key,
/// tag or alias.
fn plain_yaml(text: &str, file: &str) -> Result<()> {
    let mut open: Vec<Open> = Vec::new();
    for event in saphyr_parser::Parser::new_from_str(text) {
        // A text that is not YAML is left to the loader, which says where and why.
        let Ok((event, span)) = event else {
            return Ok(());
        };
        let line = span.start.line();
        // A node begun here: a key or a value of the mapping around it.
        let begun = match &event {
            saphyr_parser::Event::Scalar(text, ..) => Some(Some(text.to_string())),
            saphyr_parser::Event::SequenceStart(..)
            | saphyr_parser::Event::MappingStart(..)
            | saphyr_parser::Event::Alias(_) => Some(None),
            _ => None,
        };
        if let (Some(key), Some(Open::Mapping { keys, key_next })) = (begun, open.last_mut()) {
            if *key_next {
                if let Some(key) = key {
                    if let Some((_, first)) = keys.iter().find(|(k, _)| *k == key) {
                        bail!(
                            "{file}:{line}: the key {} is given twice in one mapping (first on \
                             line {first})",
                            crate::quote::quoted(&key)
                        );
                    }
                    keys.push((key, line));
                }
            }
            *key_next = !*key_next;
        }
        if matches!(
            event,
            saphyr_parser::Event::MappingStart(..) | saphyr_parser::Event::SequenceStart(..)
        ) && open.len() >= MAX_NESTING
        {
            bail!(
                "{file}:{line}: lists and mappings nest more than {MAX_NESTING} deep here: at \
                 most {MAX_NESTING} levels are read (a script nests six)"
            );
        }
        match &event {
            saphyr_parser::Event::MappingStart(..) => open.push(Open::Mapping {
                keys: Vec::new(),
                key_next: true,
            }),
            saphyr_parser::Event::SequenceStart(..) => open.push(Open::List),
            saphyr_parser::Event::MappingEnd | saphyr_parser::Event::SequenceEnd => {
                open.pop();
            }
            _ => {}
        }
        let tag = match &event {
            saphyr_parser::Event::Scalar(_, _, _, tag)
            | saphyr_parser::Event::SequenceStart(_, tag)
            | saphyr_parser::Event::MappingStart(_, tag) => tag.as_deref(),
            saphyr_parser::Event::Alias(_) => bail!(
                "{file}:{line}: an alias (`*name`) is not read: write the value out where it \
                 is used"
            ),
            _ => None,
        };
        if let Some(tag) = tag {
            if tag.is_yaml_core_schema() && PLAIN_TAGS.contains(&tag.suffix.as_str()) {
                continue;
            }
            let shown = if tag.is_yaml_core_schema() {
                format!("!!{}", tag.suffix)
            } else if tag.handle == "!" {
                format!("!{}", tag.suffix)
            } else {
                format!("!<{}{}>", tag.handle, tag.suffix)
            };
            bail!(
                "{file}:{line}: the YAML tag {} is not read: a script holds plain values \
                 (numbers, texts, lists and mappings)",
                crate::quote::quoted(&shown)
            );
        }
    }
    Ok(())
}

/// The text with a space after every `:` that directly precedes a `[` or `{` inside a flow
/// collection (`{values:[1, 2]}`): YAML 1.2 refuses that, PyYAML (with which Beam reads its
/// transcripts) takes the `:` as the value indicator, and Beam's own file has one. Lines are
/// kept, so messages still name the right line.
fn as_pyyaml_reads(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains(":[") && !text.contains(":{") {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let (mut depth, mut quote, mut comment) = (0usize, None::<char>, false);
    let mut prev = '\n';
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if comment {
            comment = c != '\n';
        } else if let Some(q) = quote {
            if c == q {
                quote = None;
            }
        } else {
            match c {
                '#' if prev.is_whitespace() => comment = true,
                '\'' | '"' => quote = Some(c),
                '[' | '{' => depth += 1,
                ']' | '}' => depth = depth.saturating_sub(1),
                ':' if depth > 0 && matches!(chars.peek(), Some('[' | '{')) => out.push(' '),
                _ => {}
            }
        }
        prev = c;
    }
    std::borrow::Cow::Owned(out)
}

struct Reader<'a> {
    file: &'a str,
    /// The text's lines, as the loader read them.
    lines: &'a [&'a str],
    out: &'a mut Vec<String>,
    /// The script's last watermark and its line, and its last clock time and its line.
    watermark: Option<(i64, usize)>,
    clock: Option<(i64, usize)>,
}

/// The two clocks a script moves.
#[derive(Clone, Copy)]
enum Clock {
    Watermark,
    Processing,
}

fn line(node: &MarkedYamlOwned) -> usize {
    node.span.start.line()
}

impl Reader<'_> {
    /// A node for messages: a number as the file writes it (`1e30`, `0x10`, not the value
    /// it stands for), anything else as read.
    fn shown(&self, node: &MarkedYamlOwned) -> String {
        match &node.data {
            YamlDataOwned::Value(ScalarOwned::Integer(_) | ScalarOwned::FloatingPoint(_))
                if self.written(node).is_some() =>
            {
                self.written(node).unwrap_or_default()
            }
            YamlDataOwned::Value(ScalarOwned::String(s)) => s.clone(),
            YamlDataOwned::Value(ScalarOwned::Integer(i)) => i.to_string(),
            YamlDataOwned::Value(ScalarOwned::FloatingPoint(f)) => f.to_string(),
            YamlDataOwned::Value(ScalarOwned::Boolean(b)) => b.to_string(),
            YamlDataOwned::Value(ScalarOwned::Null) => "null".to_string(),
            YamlDataOwned::Sequence(items) => {
                let inner: Vec<String> = items.iter().map(|i| self.shown(i)).collect();
                format!("[{}]", inner.join(", "))
            }
            YamlDataOwned::Mapping(m) => {
                let inner: Vec<String> = m
                    .iter()
                    .map(|(k, v)| format!("{}: {}", self.shown(k), self.shown(v)))
                    .collect();
                format!("{{{}}}", inner.join(", "))
            }
            _ => "(a value)".to_string(),
        }
    }

    /// The text of a scalar on one line, as the file has it.
    fn written(&self, node: &MarkedYamlOwned) -> Option<String> {
        let (start, end) = (node.span.start, node.span.end);
        if start.line() != end.line() || end.col() <= start.col() {
            return None;
        }
        let line = self.lines.get(start.line().checked_sub(1)?)?;
        let text: String = line
            .chars()
            .skip(start.col())
            .take(end.col() - start.col())
            .collect();
        (!text.trim().is_empty()).then(|| text.trim().to_string())
    }

    fn err(
        &self,
        node: &MarkedYamlOwned,
        what: &str,
        why: impl std::fmt::Display,
    ) -> anyhow::Error {
        let shown = self.shown(node);
        let cut = match shown.char_indices().nth(crate::quote::SHOWN_CHARS) {
            Some((at, _)) => format!("`{}…` ({} characters)", &shown[..at], shown.chars().count()),
            None => format!("`{shown}`"),
        };
        anyhow!("{}:{}: {what} {cut}: {why}", self.file, line(node))
    }

    fn text(&self, node: &MarkedYamlOwned, what: &str) -> Result<String> {
        match &node.data {
            YamlDataOwned::Value(ScalarOwned::String(s)) => Ok(s.clone()),
            YamlDataOwned::Value(ScalarOwned::Integer(i)) => Ok(i.to_string()),
            _ => Err(self.err(node, what, "expected a text")),
        }
    }

    /// A whole number within Beam's range of time (±9223372036854775 ms), so that no
    /// time, sum of times or window bound overflows.
    fn int(&self, node: &MarkedYamlOwned, what: &str) -> Result<i64> {
        let n = self.any_int(node, what)?;
        if n.unsigned_abs() > Script::END_OF_TIME.unsigned_abs() {
            return Err(self.err(
                node,
                what,
                format!("beyond Beam's range of time, ±{}", Script::END_OF_TIME),
            ));
        }
        Ok(n)
    }

    /// A whole number: an integer, or a number written with an exponent or a point that is
    /// whole (`1e3`, `5.0`). One too large for a 64-bit integer (`100000000000000000000000`,
    /// `1e30`), which the loader reads as a floating-point number, is beyond Beam's range.
    fn any_int(&self, node: &MarkedYamlOwned, what: &str) -> Result<i64> {
        match &node.data {
            YamlDataOwned::Value(ScalarOwned::Integer(i)) => Ok(*i),
            YamlDataOwned::Value(ScalarOwned::FloatingPoint(f))
                if f.0.fract() == 0.0 && f.0.abs() < 9.0e15 =>
            {
                Ok(f.0 as i64)
            }
            YamlDataOwned::Value(ScalarOwned::FloatingPoint(f))
                if f.0.is_infinite() || f.0.fract() == 0.0 =>
            {
                Err(self.err(
                    node,
                    what,
                    format!("beyond Beam's range of time, ±{}", Script::END_OF_TIME),
                ))
            }
            _ => Err(self.err(node, what, "expected a whole number")),
        }
    }

    fn ints(&self, node: &MarkedYamlOwned, what: &str) -> Result<Vec<i64>> {
        match &node.data {
            YamlDataOwned::Sequence(items) => items.iter().map(|i| self.int(i, what)).collect(),
            _ => Err(self.err(node, what, "expected a list of whole numbers, `[1, 2, 3]`")),
        }
    }

    fn boolean(&self, node: &MarkedYamlOwned, what: &str) -> Result<bool> {
        match &node.data {
            YamlDataOwned::Value(ScalarOwned::Boolean(b)) => Ok(*b),
            _ => Err(self.err(node, what, "expected true or false")),
        }
    }

    fn entries<'n>(
        &self,
        node: &'n MarkedYamlOwned,
        what: &str,
    ) -> Result<Vec<(String, &'n MarkedYamlOwned, &'n MarkedYamlOwned)>> {
        match &node.data {
            YamlDataOwned::Mapping(m) => m
                .iter()
                .map(|(k, v)| Ok((self.text(k, "a key")?, k, v)))
                .collect(),
            _ => Err(self.err(node, what, "expected a mapping (`key: value` lines)")),
        }
    }

    fn script(&mut self, doc: &MarkedYamlOwned) -> Result<Script> {
        let mut script = Script::new("unnamed");
        script.line = line(doc);
        let mut transcript = None;
        for (key, k, v) in self.entries(doc, "a script")? {
            match key.as_str() {
                "name" => script.name = self.text(v, "name")?,
                "window_fn" => {
                    let text = self.text(v, "window_fn")?;
                    script.windows =
                        ScriptWindows::parse(&text).map_err(|e| self.err(v, "window_fn", e))?;
                }
                "trigger_fn" => {
                    let text = self.text(v, "trigger_fn")?;
                    script.trigger =
                        Trigger::parse(&text).map_err(|e| self.err(v, "trigger_fn", e))?;
                }
                "timestamp_combiner" => {
                    let text = self.text(v, "timestamp_combiner")?;
                    script.combiner = TimestampCombiner::from_name(&text).ok_or_else(|| {
                        self.err(
                            v,
                            "timestamp_combiner",
                            "expected OUTPUT_AT_EOW, OUTPUT_AT_EARLIEST, OUTPUT_AT_LATEST or OUTPUT_AT_EARLIEST_TRANSFORMED",
                        )
                    })?;
                }
                "allowed_lateness" => {
                    script.allowed_lateness = self.int(v, "allowed_lateness")?;
                    if script.allowed_lateness < 0 {
                        return Err(self.err(v, "allowed_lateness", "cannot be negative"));
                    }
                }
                "accumulation_mode" => {
                    let text = self.text(v, "accumulation_mode")?;
                    script.accumulation = text
                        .to_ascii_lowercase()
                        .parse::<Accumulation>()
                        .ok()
                        .filter(|&mode| beam_has(mode))
                        .ok_or_else(|| {
                            let modes: Vec<&str> = Accumulation::ALL
                                .into_iter()
                                .filter(|&mode| beam_has(mode))
                                .map(|mode| mode.name())
                                .collect();
                            let expected = format!("expected {}", modes.join(" or "));
                            self.err(v, "accumulation_mode", &expected)
                        })?;
                }
                "closing_behavior" => {
                    let text = self.text(v, "closing_behavior")?;
                    script.empty_panes.closing =
                        text.parse().map_err(|e| self.err(v, "closing_behavior", e))?;
                }
                "on_time_behavior" => {
                    let text = self.text(v, "on_time_behavior")?;
                    script.empty_panes.on_time =
                        text.parse().map_err(|e| self.err(v, "on_time_behavior", e))?;
                }
                "error" => script.error = Some(self.text(v, "error")?),
                "transcript" => transcript = Some(v),
                "broken_on" => {}
                other => self.out.push(format!(
                    "{}:{}: unknown key `{other}` ignored, as Beam's driver ignores it (known: name, window_fn, trigger_fn, timestamp_combiner, allowed_lateness, accumulation_mode, closing_behavior, on_time_behavior, transcript, error, broken_on)",
                    self.file,
                    line(k)
                )),
            }
        }
        let Some(transcript) = transcript else {
            bail!(
                "{}:{}: script `{}` has no `transcript:` list of steps",
                self.file,
                script.line,
                script.name
            );
        };
        let YamlDataOwned::Sequence(items) = &transcript.data else {
            return Err(self.err(transcript, "transcript", "expected a list of steps"));
        };
        for item in items {
            script.steps.push(self.step(item)?);
        }
        Ok(script)
    }

    fn step(&mut self, item: &MarkedYamlOwned) -> Result<Step> {
        let entries = self.entries(item, "a step")?;
        let [(key, _, v)] = entries.as_slice() else {
            return Err(self.err(
                item,
                "a step",
                "expected one of `input: [...]`, `watermark: T`, `clock: T`, `expect: [...]`, `state: ...`",
            ));
        };
        let action = match key.as_str() {
            "input" => Action::Input(self.ints(v, "input")?),
            "watermark" => {
                let t = self.int(v, "watermark")?;
                self.moves_forward(v, Clock::Watermark, t)?;
                Action::Watermark(t)
            }
            "clock" => {
                let t = self.int(v, "clock")?;
                self.moves_forward(v, Clock::Processing, t)?;
                Action::Clock(t)
            }
            "state" => Action::State(self.shown(v)),
            "expect" => {
                let YamlDataOwned::Sequence(panes) = &v.data else {
                    return Err(self.err(v, "expect", "expected a list of panes"));
                };
                let mut expected = Vec::new();
                for p in panes {
                    expected.push(self.expected(p)?);
                }
                Action::Expect(expected)
            }
            other => {
                return Err(self.err(
                    item,
                    "a step",
                    format!("unknown step `{other}` (input, watermark, clock, expect, state)"),
                ))
            }
        };
        Ok(Step {
            line: line(item),
            action,
        })
    }

    /// Refuses a `watermark` or `clock` step that moves its clock back: Beam's `TestStream`
    /// refuses a watermark that goes back (Java's `TestStream.Builder.advanceWatermarkTo`:
    /// "The watermark must monotonically advance"; Python's `advance_watermark_to` asserts
    /// it) and moves processing time only forward (`advanceProcessingTime` takes a positive
    /// duration, "Must advance the processing time by a positive amount"; `clock: T` sets the
    /// time, so it may stay, but not go back). Applied, a watermark moved back would keep
    /// elements its earlier value had already made late.
    fn moves_forward(&mut self, node: &MarkedYamlOwned, clock: Clock, t: i64) -> Result<()> {
        let at = line(node);
        let last = match clock {
            Clock::Watermark => &mut self.watermark,
            Clock::Processing => &mut self.clock,
        };
        match *last {
            Some((before, from)) if t < before => {
                let (what, rule) = match clock {
                    Clock::Watermark => (
                        "watermark",
                        "a watermark only moves forward (Beam's TestStream: `The watermark must \
                         monotonically advance`)",
                    ),
                    Clock::Processing => (
                        "clock",
                        "processing time only moves forward (Beam's TestStream: `Must advance \
                         the processing time by a positive amount`)",
                    ),
                };
                Err(self.err(
                    node,
                    what,
                    format!("goes back from {before} (line {from}): {rule}"),
                ))
            }
            _ => {
                *last = Some((t, at));
                Ok(())
            }
        }
    }

    fn expected(&mut self, node: &MarkedYamlOwned) -> Result<Expected> {
        let mut e = Expected {
            line: line(node),
            ..Expected::default()
        };
        for (key, k, v) in self.entries(node, "an expected pane")? {
            match key.as_str() {
                "window" => {
                    let w = self.ints(v, "window")?;
                    let [a, b] = w.as_slice() else {
                        return Err(self.err(v, "window", "expected [start, last instant]"));
                    };
                    if b < a {
                        return Err(self.err(
                            v,
                            "window",
                            "a window's end must be after its start (its last instant at or \
                             after its first: [start, last instant])",
                        ));
                    }
                    e.window = Some((*a, *b));
                }
                "values" => e.values = Some(self.ints(v, "values")?),
                "timestamp" => e.timestamp = Some(self.int(v, "timestamp")?),
                "index" => e.index = Some(self.int(v, "index")?),
                "nonspeculative_index" => {
                    e.nonspeculative_index = Some(self.int(v, "nonspeculative_index")?)
                }
                "early" => e.early = Some(self.boolean(v, "early")?),
                "late" => e.late = Some(self.boolean(v, "late")?),
                "final" => e.last = Some(self.boolean(v, "final")?),
                other => self.out.push(format!(
                    "{}:{}: unknown pane field `{other}` ignored (known: window, values, timestamp, index, nonspeculative_index, early, late, final)",
                    self.file,
                    line(k)
                )),
            }
        }
        Ok(e)
    }
}

/// Whether Beam has the accumulation mode, so that a transcript may give it: Beam accumulates
/// or discards fired panes; retracting is the Dataflow model's, which Beam never shipped. A
/// mode added to the engine does not compile here until it is said whether Beam has it.
fn beam_has(mode: Accumulation) -> bool {
    match mode {
        Accumulation::Accumulating | Accumulation::Discarding => true,
        Accumulation::Retracting => false,
    }
}
