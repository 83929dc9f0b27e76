//! What the program answers, as the pages quote it: a command's output (maybe cut to some of
//! its lines), a field of its `--format json` answer written as prose writes it, a tour step's
//! caption wrapped as a page shows it, and the table of the events a run drops. Every function
//! takes the page it checks, to name it when a quote cannot be read.

use std::process::Command;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::Value;
use twoclocks::tui::app::App;
use twoclocks::tui::keymap;
use twoclocks::tui::theme::Theme;
use twoclocks::tui::tour::{placeholders, Tour};
use twoclocks::tui::view::caption;

use crate::tour_common::act;

/// The width a caption is wrapped to in a page.
const CAPTION_WIDTH: usize = 78;

/// What `twoclocks ARGS` prints on stdout (it must succeed).
fn twoclocks(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_twoclocks"))
        .args(args)
        .output()
        .expect("the binary runs");
    assert!(
        out.status.success(),
        "twoclocks {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// A command's `--format json` answer.
fn json_of(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    serde_json::from_str(&twoclocks(&all)).expect("JSON")
}

/// A key as a page writes it (`G`, `Space`, `Esc`, `]`) pressed as the terminal sends it.
fn key(page: &str, name: &str) -> KeyEvent {
    let code = match name {
        "Space" => KeyCode::Char(' '),
        "Esc" => KeyCode::Esc,
        "Enter" => KeyCode::Enter,
        "Left" => KeyCode::Left,
        "Right" => KeyCode::Right,
        "Up" => KeyCode::Up,
        "Down" => KeyCode::Down,
        c if c.chars().count() == 1 => KeyCode::Char(c.chars().next().unwrap()),
        other => panic!("{page}: unknown key {other:?}"),
    };
    let shift = matches!(code, KeyCode::Char(c) if c.is_ascii_uppercase());
    KeyEvent::new(
        code,
        if shift {
            KeyModifiers::SHIFT
        } else {
            KeyModifiers::NONE
        },
    )
}

/// The built-in tour opened on the step named `name` (as `twoclocks tour --from NAME`), then
/// `keys` pressed one after the other.
fn tour_at(page: &str, name: &str, keys: &[&str]) -> App {
    let tour = Tour::built_in().unwrap();
    let at = tour.find(name).unwrap_or_else(|e| panic!("{page}: {e}"));
    let mut a = App::open_tour(tour.from(at), Theme::dark()).expect("the step opens");
    a.settle();
    for k in keys {
        let action =
            keymap::lookup(&key(page, k)).unwrap_or_else(|| panic!("{k:?} is bound to nothing"));
        act(&mut a, action);
    }
    a
}

/// `tour NAME` or `tour NAME then K K …`: the step's name and the keys.
fn tour_source(source: &str) -> (String, Vec<String>) {
    let rest = source.strip_prefix("tour ").expect("tour NAME");
    let (name, keys) = match rest.split_once(" then ") {
        Some((n, k)) => (n, k),
        None => (rest, ""),
    };
    (
        name.trim().to_string(),
        keys.split_whitespace().map(String::from).collect(),
    )
}

/// Seconds as the pages write them: `50 s`, `1.5 s`.
fn secs(ms: f64) -> String {
    let s = ms / 1_000.0;
    if (s - s.round()).abs() < 1e-9 {
        format!("{:.0} s", s)
    } else {
        format!("{}", (s * 1_000.0).round() / 1_000.0) + " s"
    }
}

/// A JSON value as prose writes it: whole numbers without a point; `… in s`: ms as seconds
/// (`… in s.1`: to one place, as the tables print them); `… in %`: a percentage to two places,
/// as `run` prints accuracy.
fn shown(page: &str, v: &Value, unit: Option<&str>) -> String {
    let number = v.as_f64();
    match (unit, number) {
        (Some("s"), Some(ms)) => secs(ms),
        (Some(u), Some(ms)) if u.starts_with("s.") => {
            let places: usize = u[2..].parse().expect("s.N");
            format!("{:.*} s", places, ms / 1_000.0)
        }
        (Some("%"), Some(p)) => format!("{p:.2}%"),
        (None, Some(x)) if x.fract() == 0.0 => format!("{x:.0}"),
        (None, _) => match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        },
        (Some(u), _) => panic!("{page}: unknown unit {u:?}"),
    }
}

/// The exit status of `twoclocks ARGS`, which must fail.
fn exit_status(page: &str, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_twoclocks"))
        .args(args)
        .output()
        .expect("the binary runs");
    assert!(
        !out.status.success(),
        "{page}: `twoclocks {}` succeeds",
        args.join(" ")
    );
    out.status.code().expect("an exit status").to_string()
}

/// The value a figure's marker names: `tour NAME [then KEYS]: placeholder`, `COMMAND ARGS:
/// path.in.json [in s|%]` (or `sum(ARRAY.FIELD)`), or `COMMAND ARGS: exit status` of a command
/// refused.
pub(super) fn figure(page: &str, key: &str) -> String {
    let (source, field) = key
        .rsplit_once(": ")
        .unwrap_or_else(|| panic!("{page}: a figure's marker is SOURCE: FIELD, not {key:?}"));
    if field == "exit status" {
        return exit_status(page, &source.split_whitespace().collect::<Vec<_>>());
    }
    if source.starts_with("tour ") {
        let (name, keys) = tour_source(source);
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        let a = tour_at(page, &name, &keys);
        return placeholders::value(field, &a.quoted())
            .unwrap_or_else(|| panic!("{page}: {field:?} is not a placeholder"));
    }
    let (path, unit) = match field.split_once(" in ") {
        Some((p, u)) => (p, Some(u)),
        None => (field, None),
    };
    let args: Vec<&str> = source.split_whitespace().collect();
    let answer = json_of(&args);
    // `sum(ARRAY.FIELD)`: the field added up over the array's items.
    if let Some(inner) = path.strip_prefix("sum(").and_then(|p| p.strip_suffix(')')) {
        let (array, field) = inner
            .split_once('.')
            .unwrap_or_else(|| panic!("{page}: sum(ARRAY.FIELD), not {path:?}"));
        let items = answer[array]
            .as_array()
            .unwrap_or_else(|| panic!("{page}: {key}: no array {array:?} in the answer"));
        let total: f64 = items
            .iter()
            .map(|it| {
                it[field]
                    .as_f64()
                    .unwrap_or_else(|| panic!("{page}: {key}: no {field:?}"))
            })
            .sum();
        return shown(page, &serde_json::json!(total), unit);
    }
    // `count(ARRAY.FIELD==TEXT)`: how many of the array's items have that text.
    if let Some(inner) = path
        .strip_prefix("count(")
        .and_then(|p| p.strip_suffix(')'))
    {
        let (array, test) = inner
            .split_once('.')
            .and_then(|(a, t)| Some((a, t.split_once("==")?)))
            .unwrap_or_else(|| panic!("{page}: count(ARRAY.FIELD==TEXT), not {path:?}"));
        let items = answer[array]
            .as_array()
            .unwrap_or_else(|| panic!("{page}: {key}: no array {array:?} in the answer"));
        let n = items.iter().filter(|it| it[test.0] == test.1).count();
        return n.to_string();
    }
    let mut v = answer;
    for part in path_parts(path) {
        v = match (part.parse::<usize>(), select(page, part)) {
            (Ok(i), _) => v[i].clone(),
            (_, Some((field, op, x))) => v
                .as_array()
                .and_then(|all| {
                    all.iter()
                        .find(|p| {
                            let y = p[field].as_f64().unwrap_or(f64::NAN);
                            match op {
                                ">=" => y >= x,
                                "<=" => y <= x,
                                _ => y == x,
                            }
                        })
                        .cloned()
                })
                .unwrap_or(Value::Null),
            _ => v[part].clone(),
        };
        assert!(!v.is_null(), "{page}: {key}: no {part:?} in the answer");
    }
    shown(page, &v, unit)
}

/// A step's title and its caption as the tour fills it, wrapped as a page shows it.
fn caption_block(page: &str, name: &str, keys: &[&str]) -> Vec<String> {
    let a = tour_at(page, name, keys);
    let title = a.tour.as_ref().unwrap().step().title.clone();
    let text = caption::text(&a).expect("a caption");
    // A figure is kept on one line with its unit (`7 s`): glued while wrapping.
    const GLUE: char = '\u{e000}';
    let mut words: Vec<String> = Vec::new();
    for w in text.split_whitespace() {
        let unit = w.trim_end_matches(|c: char| c.is_ascii_punctuation()) == "s";
        match words.last_mut() {
            Some(last) if unit && last.ends_with(|c: char| c.is_ascii_digit()) => {
                last.push(GLUE);
                last.push_str(w);
            }
            _ => words.push(w.to_string()),
        }
    }
    let mut lines = vec![title];
    lines.extend(
        caption::wrap(&words.join(" "), CAPTION_WIDTH, usize::MAX)
            .into_iter()
            .map(|l| l.replace(GLUE, " ")),
    );
    lines
}

/// A JSON path's parts, split at the dots outside parentheses (`first(accuracy>=99.9).lag_ms`).
fn path_parts(path: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut from) = (0, 0);
    for (i, c) in path.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            '.' if depth == 0 => {
                parts.push(&path[from..i]);
                from = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&path[from..]);
    parts
}

/// `first(FIELD>=X)` (or `<=`, `==`): the first element of an array whose FIELD is so.
fn select<'a>(page: &str, part: &'a str) -> Option<(&'a str, &'static str, f64)> {
    let inner = part.strip_prefix("first(")?.strip_suffix(')')?;
    for op in [">=", "<=", "=="] {
        if let Some((field, x)) = inner.split_once(op) {
            return Some((field, op, x.parse().expect("a number")));
        }
    }
    panic!("{page}: first(FIELD>=X), first(FIELD<=X) or first(FIELD==X), not {part:?}")
}

/// A command block's body: the command's output, maybe its first or last lines, some of them
/// (`sed -n A,Bp`), or those holding one of some words (`grep -E 'on time|p1:|223.4s'`: plain
/// words, where `.` is any character, as grep has it; no other pattern).
pub(super) fn output_block(page: &str, command: &str) -> Vec<String> {
    let (cmd, cut) = match command.split_once(" | ") {
        Some((c, cut)) => (c, Some(cut)),
        None => (command, None),
    };
    let args: Vec<&str> = cmd.split_whitespace().skip(1).collect();
    let out = twoclocks(&args);
    let lines: Vec<String> = out.lines().map(|l| l.trim_end().to_string()).collect();
    if let Some(words) = cut.and_then(|c| c.strip_prefix("grep -E '")?.strip_suffix('\'')) {
        let words: Vec<&str> = words.split('|').collect();
        assert!(
            words
                .iter()
                .all(|w| !w.is_empty() && !w.contains(|c: char| "\\^$*+?()[]{}'".contains(c))),
            "{page}: `grep -E 'A|B'` with plain words only, not {words:?}"
        );
        return lines
            .into_iter()
            .filter(|l| words.iter().any(|w| holds(l, w)))
            .collect();
    }
    match cut.map(|c| c.split_whitespace().collect::<Vec<_>>()) {
        None => lines,
        Some(c) if c.len() == 2 && c[0] == "head" => {
            let n: usize = c[1].trim_start_matches('-').parse().unwrap();
            lines.into_iter().take(n).collect()
        }
        Some(c) if c.len() == 2 && c[0] == "tail" => {
            let n: usize = c[1].trim_start_matches('-').parse().unwrap();
            let skip = lines.len().saturating_sub(n);
            lines.into_iter().skip(skip).collect()
        }
        Some(c) if c.len() == 3 && c[0] == "sed" && c[1] == "-n" => {
            let (a, b) = c[2]
                .strip_suffix('p')
                .and_then(|r| r.split_once(','))
                .unwrap_or_else(|| panic!("{page}: sed -n A,Bp"));
            let (a, b): (usize, usize) = (a.parse().unwrap(), b.parse().unwrap());
            lines.into_iter().skip(a - 1).take(b + 1 - a).collect()
        }
        Some(c) => panic!(
            "{page}: `| {}`: only head -N, tail -N, sed -n A,Bp and grep -E 'A|B'",
            c.join(" ")
        ),
    }
}

/// Whether `line` holds `word`, a `.` in it standing for any character.
fn holds(line: &str, word: &str) -> bool {
    let (line, word): (Vec<char>, Vec<char>) = (line.chars().collect(), word.chars().collect());
    line.windows(word.len())
        .any(|at| at.iter().zip(&word).all(|(c, w)| *w == '.' || c == w))
}

/// The Markdown table of the events `twoclocks run ARGS` drops: the event, its window's end,
/// the watermark when it arrived and how far that was past the end.
pub(super) fn drops_table(args: &str) -> Vec<String> {
    let args: Vec<&str> = args.split_whitespace().collect();
    let v = json_of(&args);
    let mut lines = vec![
        "| key | event time | arrived | window ends | watermark at arrival | watermark past the end |"
            .to_string(),
        "|---|---:|---:|---:|---:|---:|".to_string(),
    ];
    for d in v["dropped_events"].as_array().expect("dropped_events") {
        let ms = |f: &str| d[f].as_f64().expect(f);
        lines.push(format!(
            "| {} | {} | {} | {} | {} | {} |",
            d["key"].as_str().expect("key"),
            secs(ms("event_time_ms")),
            secs(ms("proc_time_ms")),
            secs(ms("window_end_ms")),
            secs(ms("watermark_ms")),
            secs(ms("watermark_ms") - ms("window_end_ms")),
        ));
    }
    lines
}

/// A tour block's source line after `tour --from `: `NAME` or `NAME # then press KEYS`.
pub(super) fn tour_block(page: &str, rest: &str) -> Vec<String> {
    let (name, keys) = match rest.split_once('#') {
        Some((n, k)) => (
            n.trim(),
            k.trim()
                .strip_prefix("then press")
                .unwrap_or_else(|| panic!("{page}: `# then press KEYS`, not {k:?}"))
                .split_whitespace()
                .collect::<Vec<_>>(),
        ),
        None => (rest.trim(), vec![]),
    };
    caption_block(page, name, &keys)
}
