//! Rehearsable demos: every input the UI took (a key, a click, a drag, a resize) and every
//! simulation tick with the real time it covered, each with its time since the start, written
//! as one line (`--record FILE`) and played back (`--replay FILE`). The engine is deterministic
//! and a tick's elapsed time comes from the recording, so the replay goes through the same
//! states and draws the same screens. [`cast`] writes what the terminal showed as an
//! asciicast (`--cast FILE`).
//!
//! The format, one entry a line, times in microseconds since the UI opened:
//!
//! ```text
//! twoclocks-record 1
//! 0 flags ["--paused","--scenario","stormy"]
//! 0 resize 120 40
//! 812004 key Space
//! 845311 tick 33000
//! 2010377 key l
//! 2400120 click 30 12
//! 3001002 key c ctrl
//! 3001002 end
//! ```
//!
//! A key is its character (`Space` for a blank) or its name (`Home`, `End`, `Tab`, `BackTab`,
//! `Up`, `Down`, `Left`, `Right`, `Esc`, `Enter`, `Backspace`, `Delete`, `PageUp`,
//! `PageDown`, `Insert`, `F1`…`F12`), then its modifiers (`ctrl`, `alt`, `shift`). The last
//! line is `end`: a file without it was cut short. The `flags` line (a JSON list) keeps the
//! command line the demo was recorded with (the demo's own flags and `--theme` left out): a
//! replay is refused with other flags, since it would go through other states.

pub mod cast;

use std::fs::File;
use std::io::{LineWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEventKind,
};

use crate::action::Action;
use crate::app::{update, App, Msg};
use twoclocks_io::bounded::Unread;
use twoclocks_io::staged::StagedFile;

/// The first line of a recording: the format and its version.
pub const HEADER: &str = "twoclocks-record 1";

/// One input the UI took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// A key pressed (or repeated).
    Key(KeyEvent),
    /// The left button pressed at (column, row).
    Click(u16, u16),
    /// The left button dragged to (column, row).
    Drag(u16, u16),
    /// The terminal's new size (columns, rows).
    Resize(u16, u16),
    /// The simulation clock moved on by this much real time.
    Tick(Duration),
}

/// An input and when it came, since the UI opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// Time since the UI opened.
    pub at: Duration,
    /// What came.
    pub input: Input,
}

impl Input {
    /// The input a terminal event is, if it is one the UI reads.
    pub fn from_event(ev: &Event) -> Option<Input> {
        match ev {
            Event::Key(k) if k.kind != KeyEventKind::Release => {
                Some(Input::Key(KeyEvent::new(k.code, k.modifiers)))
            }
            Event::Mouse(m) => match m.kind {
                MouseEventKind::Down(MouseButton::Left) => Some(Input::Click(m.column, m.row)),
                MouseEventKind::Drag(MouseButton::Left) => Some(Input::Drag(m.column, m.row)),
                _ => None,
            },
            Event::Resize(w, h) => Some(Input::Resize(*w, *h)),
            _ => None,
        }
    }

    /// The messages the input gives the update.
    pub fn messages(&self) -> Vec<Msg> {
        match *self {
            Input::Key(k) => crate::keymap::key_messages(&k),
            Input::Click(c, r) => vec![Msg::Click(c, r)],
            Input::Drag(c, r) => vec![Msg::Drag(c, r)],
            Input::Resize(w, h) => vec![Msg::Resize(w, h)],
            Input::Tick(_) => vec![Msg::Tick],
        }
    }

    /// Whether it quits: a key bound to quit.
    pub fn quits(&self) -> bool {
        self.messages()
            .iter()
            .any(|m| matches!(m, Msg::Action(Action::Quit)))
    }
}

/// Turns a terminal event into the messages it gives the update (none if it means nothing):
/// the input it is, and that input's messages, as the event loop and a replay read them.
pub fn messages(ev: &Event) -> Vec<Msg> {
    Input::from_event(ev).map_or_else(Vec::new, |i| i.messages())
}

/// Applies an input to the state (a tick covering its recorded time); returns whether the
/// screen changed.
pub fn apply(app: &mut App, input: &Input) -> bool {
    let dt = match input {
        Input::Tick(dt) => *dt,
        _ => Duration::ZERO,
    };
    input
        .messages()
        .into_iter()
        .fold(false, |changed, m| update(app, m, dt) | changed)
}

const NAMED: [(KeyCode, &str); 14] = [
    (KeyCode::Home, "Home"),
    (KeyCode::End, "End"),
    (KeyCode::Tab, "Tab"),
    (KeyCode::BackTab, "BackTab"),
    (KeyCode::Up, "Up"),
    (KeyCode::Down, "Down"),
    (KeyCode::Left, "Left"),
    (KeyCode::Right, "Right"),
    (KeyCode::Esc, "Esc"),
    (KeyCode::Enter, "Enter"),
    (KeyCode::Backspace, "Backspace"),
    (KeyCode::Delete, "Delete"),
    (KeyCode::PageUp, "PageUp"),
    (KeyCode::PageDown, "PageDown"),
];

const MODIFIERS: [(KeyModifiers, &str); 3] = [
    (KeyModifiers::CONTROL, "ctrl"),
    (KeyModifiers::ALT, "alt"),
    (KeyModifiers::SHIFT, "shift"),
];

fn key_token(code: KeyCode) -> Option<String> {
    match code {
        KeyCode::Char(' ') => Some("Space".into()),
        KeyCode::Char(c) if !c.is_whitespace() && !c.is_control() => Some(c.to_string()),
        KeyCode::F(n) => Some(format!("F{n}")),
        KeyCode::Insert => Some("Insert".into()),
        code => NAMED
            .iter()
            .find(|(k, _)| *k == code)
            .map(|(_, n)| n.to_string()),
    }
}

fn key_code(token: &str) -> Option<KeyCode> {
    if token == "Space" {
        return Some(KeyCode::Char(' '));
    }
    if token == "Insert" {
        return Some(KeyCode::Insert);
    }
    if let Some((code, _)) = NAMED.iter().find(|(_, n)| *n == token) {
        return Some(*code);
    }
    if let Some(n) = token.strip_prefix('F').and_then(|n| n.parse::<u8>().ok()) {
        return (1..=24).contains(&n).then_some(KeyCode::F(n));
    }
    let mut chars = token.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if !c.is_control() => Some(KeyCode::Char(c)),
        _ => None,
    }
}

/// An entry as its line (no newline); None for a key the format has no name for.
pub fn line(e: &Entry) -> Option<String> {
    let at = e.at.as_micros();
    Some(match e.input {
        Input::Key(k) => {
            let mut s = format!("{at} key {}", key_token(k.code)?);
            for (m, name) in MODIFIERS {
                if k.modifiers.contains(m) {
                    s.push(' ');
                    s.push_str(name);
                }
            }
            s
        }
        Input::Click(c, r) => format!("{at} click {c} {r}"),
        Input::Drag(c, r) => format!("{at} drag {c} {r}"),
        Input::Resize(w, h) => format!("{at} resize {w} {h}"),
        Input::Tick(dt) => format!("{at} tick {}", dt.as_micros()),
    })
}

/// What is wrong with a recording: the line (1-based) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    /// The line, counted from 1.
    pub line: usize,
    /// What is wrong with it.
    pub why: String,
}

fn bad(line: usize, why: impl Into<String>) -> BadLine {
    BadLine {
        line,
        why: why.into(),
    }
}

/// The longest a recording may last (a bound, so that no time overflows).
const MAX_MICROS: u64 = 366 * 24 * 3_600 * 1_000_000;

/// A recording read: the flags it was recorded with, if it says, and its entries.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Recording {
    /// The command line's flags the demo was recorded with (see [`demo_flags`]).
    pub flags: Option<Vec<String>>,
    /// The inputs, in order.
    pub entries: Vec<Entry>,
}

/// A recording's entries, read from its text; the first thing wrong is an error with its line.
pub fn parse(text: &str) -> Result<Vec<Entry>, BadLine> {
    parse_recording(text).map(|r| r.entries)
}

/// The flags of a command line that decide what a demo goes through: all but the demo's own
/// (`--record`, `--replay`, `--cast`, with their values, and `--force`) and `--theme`
/// (colours only).
pub fn demo_flags<I: IntoIterator<Item = String>>(args: I) -> Vec<String> {
    let mut out = Vec::new();
    let mut skip = false;
    for a in args {
        if std::mem::take(&mut skip) {
            continue;
        }
        let name = a.split('=').next().unwrap_or_default();
        if a == "--force" {
            continue;
        }
        if ["--record", "--replay", "--cast", "--theme"].contains(&name) {
            skip = !a.contains('=');
            continue;
        }
        out.push(a);
    }
    out
}

/// A recording read from its text; the first thing wrong is an error with its line.
pub fn parse_recording(text: &str) -> Result<Recording, BadLine> {
    let mut lines = text.split('\n').enumerate().map(|(i, l)| (i + 1, l));
    match lines.next() {
        Some((_, h)) if h.trim_end_matches('\r') == HEADER => {}
        Some((_, h)) if h.starts_with("twoclocks-record ") => {
            return Err(bad(
                1,
                format!(
                    "the version {} is not one this twoclocks reads (it reads \"{HEADER}\")",
                    twoclocks_io::quote::quoted(h.trim_start_matches("twoclocks-record "))
                ),
            ));
        }
        _ => {
            return Err(bad(
                1,
                format!("not a twoclocks recording: the first line should be \"{HEADER}\""),
            ))
        }
    }
    let mut out = Vec::new();
    let mut flags = None;
    let mut last = 0u64;
    let mut ended = false;
    let mut total = 1;
    // The text after the last newline, if any, is a line that was cut short.
    let cut = (!text.ends_with('\n')).then(|| text.split('\n').count());
    for (n, raw) in lines {
        let l = raw.trim_end_matches('\r');
        if l.trim().is_empty() {
            continue;
        }
        total = n;
        if cut == Some(n) {
            return Err(bad(
                n,
                "the line is cut short (no newline at its end): the recording is truncated",
            ));
        }
        if ended {
            return Err(bad(n, "an entry after the `end` line"));
        }
        let words: Vec<&str> = l.split_whitespace().collect();
        let at: u64 = words[0].parse().map_err(|_| {
            bad(
                n,
                format!(
                    "{} is not a time: give the microseconds since the start",
                    twoclocks_io::quote::quoted(words[0])
                ),
            )
        })?;
        if at > MAX_MICROS {
            return Err(bad(n, format!("{at} µs is longer than a year")));
        }
        if at < last {
            return Err(bad(
                n,
                format!("the time {at} µs goes back from {last} µs on the line before"),
            ));
        }
        last = at;
        let kind = words.get(1).copied().unwrap_or("");
        let args = &words[words.len().min(2)..];
        let input = match kind {
            "end" if args.is_empty() => {
                ended = true;
                continue;
            }
            "flags" if out.is_empty() && flags.is_none() => {
                let json = l.split_once("flags").map_or("", |(_, rest)| rest.trim());
                flags = Some(
                    serde_json::from_str::<Vec<String>>(json)
                        .map_err(|_| bad(n, "the flags are not a JSON list of strings"))?,
                );
                continue;
            }
            "flags" => return Err(bad(n, "the flags come once, before the first input")),
            "key" => Input::Key(key(n, args)?),
            "click" | "drag" | "resize" => {
                let [a, b] = pair(n, kind, args)?;
                match kind {
                    "click" => Input::Click(a, b),
                    "drag" => Input::Drag(a, b),
                    _ if a == 0 || b == 0 => return Err(bad(n, "a size is at least 1×1")),
                    _ => Input::Resize(a, b),
                }
            }
            "tick" => match args {
                [dt] => match dt.parse::<u64>() {
                    Ok(dt) if dt <= MAX_MICROS => Input::Tick(Duration::from_micros(dt)),
                    _ => {
                        return Err(bad(
                            n,
                            format!(
                                "{} is not a tick's length: give microseconds",
                                twoclocks_io::quote::quoted(dt)
                            ),
                        ))
                    }
                },
                _ => return Err(bad(n, "a tick takes one number: its microseconds")),
            },
            "" => return Err(bad(n, "the time is not followed by what happened")),
            other => {
                return Err(bad(
                    n,
                    format!(
                        "{} is not an input: give key, click, drag, resize, tick or end",
                        twoclocks_io::quote::quoted(other)
                    ),
                ))
            }
        };
        out.push(Entry {
            at: Duration::from_micros(at),
            input,
        });
    }
    if !ended {
        return Err(bad(
            total,
            "the recording stops here without its `end` line: it is truncated",
        ));
    }
    Ok(Recording {
        flags,
        entries: out,
    })
}

fn key(n: usize, args: &[&str]) -> Result<KeyEvent, BadLine> {
    let Some((token, mods)) = args.split_first() else {
        return Err(bad(n, "a key line names the key"));
    };
    let code = key_code(token).ok_or_else(|| {
        bad(
            n,
            format!(
                "{} is not a key: give a character, Space or a key's name",
                twoclocks_io::quote::quoted(token)
            ),
        )
    })?;
    let mut modifiers = KeyModifiers::NONE;
    for m in mods {
        let (flag, _) = MODIFIERS
            .iter()
            .find(|(_, name)| name == m)
            .ok_or_else(|| {
                bad(
                    n,
                    format!(
                        "{} is not a modifier: give ctrl, alt or shift",
                        twoclocks_io::quote::quoted(m)
                    ),
                )
            })?;
        modifiers |= *flag;
    }
    Ok(KeyEvent::new(code, modifiers))
}

fn pair(n: usize, kind: &str, args: &[&str]) -> Result<[u16; 2], BadLine> {
    let what = if kind == "resize" {
        "columns and rows"
    } else {
        "a column and a row"
    };
    match args {
        [a, b] => match (a.parse(), b.parse()) {
            (Ok(a), Ok(b)) => Ok([a, b]),
            _ => Err(bad(
                n,
                format!("a {kind} takes two whole numbers from 0 to 65535: {what}"),
            )),
        },
        _ => Err(bad(n, format!("a {kind} takes two numbers: {what}"))),
    }
}

/// Reads and checks a recording; an error names the file and the line.
pub fn load(path: &Path) -> anyhow::Result<Recording> {
    let name = twoclocks_io::quote::quoted(&path.display().to_string());
    let bytes =
        twoclocks_io::bounded::read_file(path, twoclocks_io::bounded::RECORDING).map_err(|e| {
            match e {
                Unread::Failed(e) => anyhow::anyhow!("cannot read {name} ({e})"),
                too_large => anyhow::anyhow!("{name}: {too_large}"),
            }
        })?;
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("{name} is not text (UTF-8): not a recording"))?;
    parse_recording(&text).map_err(|b| anyhow::anyhow!("{name} line {}: {}", b.line, b.why))
}

/// Writes a recording as the UI runs: its file taken (and so checked) before the UI opens,
/// written to an unfinished copy and put in place by [`Recorder::finish`], so that the path
/// holds a whole recording or is left as it was.
#[derive(Debug)]
pub struct Recorder {
    path: PathBuf,
    out: Option<LineWriter<File>>,
    /// The file, put in place when the recording is finished.
    file: Option<StagedFile>,
    /// Why writing stopped, if it failed.
    failed: Option<String>,
    last: Duration,
}

impl Recorder {
    /// Writes to `file` (taken for `path`) the header and the `flags` the demo is recorded
    /// with ([`demo_flags`]).
    pub fn create(path: &Path, file: StagedFile, flags: &[String]) -> anyhow::Result<Recorder> {
        let name = twoclocks_io::quote::quoted(&path.display().to_string());
        let mut out = file
            .writer()
            .map(LineWriter::new)
            .with_context(|| format!("cannot write the recording {name}"))?;
        let flags = serde_json::to_string(flags).unwrap_or_else(|_| "[]".into());
        writeln!(out, "{HEADER}\n0 flags {flags}")
            .with_context(|| format!("cannot write the recording {name}"))?;
        Ok(Recorder {
            path: path.to_path_buf(),
            out: Some(out),
            file: Some(file),
            failed: None,
            last: Duration::ZERO,
        })
    }

    /// Where it writes.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes one input at `at`. A write that fails stops the recording (the UI goes on) and
    /// says why.
    pub fn write(&mut self, at: Duration, input: Input) -> Result<(), String> {
        let at = at.max(self.last);
        self.last = at;
        let Some(out) = self.out.as_mut() else {
            return Ok(());
        };
        let Some(l) = line(&Entry { at, input }) else {
            return Ok(());
        };
        if let Err(e) = writeln!(out, "{l}") {
            self.out = None;
            self.failed = Some(e.to_string());
            return Err(format!("the recording stopped: {e}"));
        }
        Ok(())
    }

    /// Writes the `end` line at `at`, flushes and puts the file in place. A recording whose
    /// writing failed is not put in place (the path is left as it was).
    pub fn finish(&mut self, at: Duration) -> Result<(), String> {
        let at = at.max(self.last);
        let name = twoclocks_io::quote::quoted(&self.path.display().to_string());
        if let Some(mut out) = self.out.take() {
            if let Err(e) = writeln!(out, "{} end", at.as_micros()).and_then(|()| out.flush()) {
                self.failed = Some(e.to_string());
            }
        }
        let Some(file) = self.file.take() else {
            return Ok(());
        };
        if let Some(why) = self.failed.take() {
            drop(file);
            return Err(format!(
                "the recording {name} could not be written ({why}); nothing was saved"
            ));
        }
        file.commit()
            .map_err(|e| format!("the recording {name} could not be saved: {e:#}"))
    }
}
