//! The teacher's guide (`docs/teaching.md`) quotes the program, and every figure it quotes is
//! the program's answer today, so the guide cannot drift from the tour or the scenarios:
//!
//! - a ```` ```text ```` block whose first line is `$ twoclocks …` is that command's output
//!   (`| head -N` or `| tail -N` after it keeps the first or last lines), run here through
//!   the binary;
//! - a block whose first line is `$ twoclocks tour --from NAME` (maybe `# then press KEYS`)
//!   is that step's title and its caption as the tour fills it at the step's settings (after
//!   those keys), the step found by its name, never by its number;
//! - a Markdown table after `<!-- drops: ARGS -->` lists the events `twoclocks run ARGS`
//!   drops, each with its window's end and the watermark at its arrival;
//! - a figure in prose is followed by `<!--= SOURCE: FIELD -->`, where SOURCE is
//!   `tour NAME` (maybe `then KEYS`) and FIELD a caption placeholder (`dropped`), or a
//!   command (`run …`, `advise …`, `frontier …`) and FIELD a path into its `--format json`
//!   answer (`dropped`, `advised.grace_ms in s`, `first(accuracy>=99.9).lag_ms in s`: the
//!   first point of the array that is so);
//! - and no other figure stands in the prose: a number outside code, outside a checked block
//!   and without a marker is refused (the plan's minutes, `5 min`, are the teacher's).
//!
//! `TWOCLOCKS_WRITE_GOLDEN=1 cargo test --test cli teaching_guide` writes every checked block
//! and figure anew from the program.

use std::process::Command;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::Value;
use twoclocks::tui::app::App;
use twoclocks::tui::keymap;
use twoclocks::tui::theme::Theme;
use twoclocks::tui::tour::{placeholders, Tour};
use twoclocks::tui::view::caption;

use crate::tour_common::act;

/// The guide, from the crate's root.
const GUIDE: &str = "docs/teaching.md";

/// The width a caption is wrapped to in the guide.
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

/// A key as the guide writes it (`G`, `Space`, `Esc`, `]`) pressed as the terminal sends it.
fn key(name: &str) -> KeyEvent {
    let code = match name {
        "Space" => KeyCode::Char(' '),
        "Esc" => KeyCode::Esc,
        "Enter" => KeyCode::Enter,
        "Left" => KeyCode::Left,
        "Right" => KeyCode::Right,
        "Up" => KeyCode::Up,
        "Down" => KeyCode::Down,
        c if c.chars().count() == 1 => KeyCode::Char(c.chars().next().unwrap()),
        other => panic!("{GUIDE}: unknown key {other:?}"),
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
fn tour_at(name: &str, keys: &[&str]) -> App {
    let tour = Tour::built_in().unwrap();
    let at = tour.find(name).unwrap_or_else(|e| panic!("{GUIDE}: {e}"));
    let mut a = App::open_tour(tour.from(at), Theme::dark()).expect("the step opens");
    a.settle();
    for k in keys {
        let action = keymap::lookup(&key(k)).unwrap_or_else(|| panic!("{k:?} is bound to nothing"));
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

/// Seconds as the guide writes them: `50 s`, `1.5 s`.
fn secs(ms: f64) -> String {
    let s = ms / 1_000.0;
    if (s - s.round()).abs() < 1e-9 {
        format!("{:.0} s", s)
    } else {
        format!("{}", (s * 1_000.0).round() / 1_000.0) + " s"
    }
}

/// A JSON value as prose writes it: whole numbers without a point; `… in s`: ms as seconds;
/// `… in %`: a percentage to two places, as `run` prints accuracy.
fn shown(v: &Value, unit: Option<&str>) -> String {
    let number = v.as_f64();
    match (unit, number) {
        (Some("s"), Some(ms)) => secs(ms),
        (Some("%"), Some(p)) => format!("{p:.2}%"),
        (None, Some(x)) if x.fract() == 0.0 => format!("{x:.0}"),
        (None, _) => match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        },
        (Some(u), _) => panic!("{GUIDE}: unknown unit {u:?}"),
    }
}

/// The value a figure's marker names: `tour NAME [then KEYS]: placeholder` or
/// `COMMAND ARGS: path.in.json [in s|%]`.
fn figure(key: &str) -> String {
    let (source, field) = key
        .rsplit_once(": ")
        .unwrap_or_else(|| panic!("{GUIDE}: a figure's marker is SOURCE: FIELD, not {key:?}"));
    if source.starts_with("tour ") {
        let (name, keys) = tour_source(source);
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        let a = tour_at(&name, &keys);
        return placeholders::value(field, &a.quoted())
            .unwrap_or_else(|| panic!("{GUIDE}: {field:?} is not a placeholder"));
    }
    let (path, unit) = match field.split_once(" in ") {
        Some((p, u)) => (p, Some(u)),
        None => (field, None),
    };
    let args: Vec<&str> = source.split_whitespace().collect();
    let mut v = json_of(&args);
    for part in path_parts(path) {
        v = match (part.parse::<usize>(), select(part)) {
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
        assert!(!v.is_null(), "{GUIDE}: {key}: no {part:?} in the answer");
    }
    shown(&v, unit)
}

/// A step's title and its caption as the tour fills it, wrapped as the guide shows it.
fn caption_block(name: &str, keys: &[&str]) -> Vec<String> {
    let a = tour_at(name, keys);
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
fn select(part: &str) -> Option<(&str, &'static str, f64)> {
    let inner = part.strip_prefix("first(")?.strip_suffix(')')?;
    for op in [">=", "<=", "=="] {
        if let Some((field, x)) = inner.split_once(op) {
            return Some((field, op, x.parse().expect("a number")));
        }
    }
    panic!("{GUIDE}: first(FIELD>=X), first(FIELD<=X) or first(FIELD==X), not {part:?}")
}

/// A command block's body: the command's output, maybe its first or last lines.
fn output_block(command: &str) -> Vec<String> {
    let (cmd, cut) = match command.split_once(" | ") {
        Some((c, cut)) => (c, Some(cut)),
        None => (command, None),
    };
    let args: Vec<&str> = cmd.split_whitespace().skip(1).collect();
    let out = twoclocks(&args);
    let lines: Vec<String> = out.lines().map(|l| l.trim_end().to_string()).collect();
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
                .unwrap_or_else(|| panic!("{GUIDE}: sed -n A,Bp"));
            let (a, b): (usize, usize) = (a.parse().unwrap(), b.parse().unwrap());
            lines.into_iter().skip(a - 1).take(b + 1 - a).collect()
        }
        Some(c) => panic!(
            "{GUIDE}: `| {}`: only head -N, tail -N and sed -n A,Bp",
            c.join(" ")
        ),
    }
}

/// The Markdown table of the events `twoclocks run ARGS` drops: the event, its window's end,
/// the watermark when it arrived and how far that was past the end.
fn drops_table(args: &str) -> Vec<String> {
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

/// A line's figures with their markers: (byte range of the figure as written, the marker's
/// key), for `FIGURE<!--= KEY -->`. The figure is the last word before the marker, or the last
/// two when the value holds a space (`20 s`).
fn markers(line: &str) -> Vec<(usize, usize, String)> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(open) = line[from..].find("<!--=") {
        let open = from + open;
        let close = open
            + line[open..]
                .find("-->")
                .unwrap_or_else(|| panic!("{GUIDE}: an unclosed marker: {line}"));
        let key = line[open + 5..close].trim().to_string();
        // The figure: back to the start of the word, and over one more word if it is a unit.
        let before = &line[..open];
        let mut start = before
            .rfind(|c: char| c.is_whitespace() || c == '(')
            .map_or(0, |i| i + 1);
        let word = &before[start..];
        if matches!(word, "s" | "ms" | "%") {
            let head = before[..start].trim_end();
            start = head
                .rfind(|c: char| c.is_whitespace() || c == '(')
                .map_or(0, |i| i + 1);
        }
        found.push((start, open, key));
        from = close + 3;
    }
    found
}

/// A number left in prose: the line with code spans, markers and their figures, links'
/// targets, a numbered list's item numbers and the plan's timing (`5 min`, `50-minute`) taken
/// out, must hold no digit.
fn stray_figures(line: &str) -> Option<String> {
    let mut rest = String::new();
    let mut in_code = false;
    for part in line.split('`') {
        if !in_code {
            rest.push_str(part);
        }
        rest.push(' ');
        in_code = !in_code;
    }
    // Markers and their figures.
    let mut clean = rest.clone();
    for (start, open, _) in markers(&rest).into_iter().rev() {
        let close = open + rest[open..].find("-->").unwrap() + 3;
        clean.replace_range(start..close, " ");
    }
    // Other comments.
    while let Some(open) = clean.find("<!--") {
        let close = open
            + clean[open..]
                .find("-->")
                .map_or(clean.len() - open, |c| c + 3);
        clean.replace_range(open..close, " ");
    }
    // Links' targets (`docs/x.svg`, `#a-section-1`).
    let mut no_links = String::new();
    let mut r = clean.as_str();
    while let Some(i) = r.find("](") {
        no_links.push_str(&r[..i + 1]);
        r = &r[i + 2..];
        r = &r[r.find(')').map_or(r.len(), |j| j + 1)..];
    }
    no_links.push_str(r);
    let words: Vec<&str> = no_links.split_whitespace().collect();
    for (i, w) in words.iter().enumerate() {
        // A numbered list's item number is Markdown, not a figure.
        let item = i == 0 && w.ends_with('.') && w[..w.len() - 1].parse::<u32>().is_ok();
        if item || !w.chars().any(|c| c.is_ascii_digit()) {
            continue;
        }
        let next = words
            .get(i + 1)
            .map(|n| n.trim_matches(|c: char| !c.is_alphanumeric()));
        let timing = next == Some("min") || w.contains("-minute");
        if !timing {
            return Some(w.to_string());
        }
    }
    None
}

/// What the guide should say: every checked block and figure as the program gives it today,
/// and what differs from what it says.
fn regenerate(text: &str) -> (String, Vec<String>) {
    let mut out: Vec<String> = Vec::new();
    let mut faults = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        // A fenced block: checked when it starts with `$ twoclocks`.
        if line.starts_with("```") {
            let end = i
                + 1
                + lines[i + 1..]
                    .iter()
                    .position(|l| l.starts_with("```"))
                    .unwrap_or_else(|| panic!("{GUIDE}: line {}: an unclosed block", i + 1));
            out.push(line.to_string());
            let first = lines.get(i + 1).copied().unwrap_or("");
            if let Some(command) = first
                .strip_prefix("$ ")
                .filter(|c| c.starts_with("twoclocks "))
            {
                let want = if let Some(rest) = command.strip_prefix("twoclocks tour --from ") {
                    let (name, keys) = match rest.split_once('#') {
                        Some((n, k)) => (
                            n.trim(),
                            k.trim()
                                .strip_prefix("then press")
                                .unwrap_or_else(|| {
                                    panic!("{GUIDE}: `# then press KEYS`, not {k:?}")
                                })
                                .split_whitespace()
                                .collect::<Vec<_>>(),
                        ),
                        None => (rest.trim(), vec![]),
                    };
                    caption_block(name, &keys)
                } else {
                    output_block(command)
                };
                let got: Vec<String> = lines[i + 2..end]
                    .iter()
                    .map(|l| l.trim_end().to_string())
                    .collect();
                if got != want {
                    faults.push(format!(
                        "line {}: `{command}` gives today:\n{}\nthe guide says:\n{}",
                        i + 2,
                        want.join("\n"),
                        got.join("\n")
                    ));
                }
                out.push(first.to_string());
                out.extend(want);
            } else {
                out.extend(lines[i + 1..end].iter().map(|l| l.to_string()));
            }
            out.push(lines[end].to_string());
            i = end + 1;
            continue;
        }
        // A table of drops.
        if let Some(args) = line
            .trim()
            .strip_prefix("<!-- drops:")
            .and_then(|r| r.strip_suffix("-->"))
        {
            out.push(line.to_string());
            let end = i
                + 1
                + lines[i + 1..]
                    .iter()
                    .position(|l| !l.starts_with('|'))
                    .unwrap_or(lines.len() - i - 1);
            let want = drops_table(args.trim());
            let got: Vec<String> = lines[i + 1..end].iter().map(|l| l.to_string()).collect();
            if got != want {
                faults.push(format!(
                    "line {}: the drops of `run {}` are today:\n{}\nthe guide says:\n{}",
                    i + 2,
                    args.trim(),
                    want.join("\n"),
                    got.join("\n")
                ));
            }
            out.extend(want);
            i = end;
            continue;
        }
        // Prose: each figure against its marker, and no figure without one.
        let mut fixed = line.to_string();
        for (start, open, key) in markers(line).into_iter().rev() {
            let written = &line[start..open];
            let want = figure(&key);
            let bare = written.trim_matches(|c: char| "*_".contains(c));
            if bare != want {
                faults.push(format!(
                    "line {}: {written:?} should be {want:?} ({key})",
                    i + 1
                ));
            }
            fixed.replace_range(start..open, &written.replacen(bare, &want, 1));
        }
        if let Some(stray) = stray_figures(line) {
            faults.push(format!(
                "line {}: {stray:?} is a figure nothing checks: follow it with <!--= SOURCE: FIELD -->, or quote it in a checked block",
                i + 1
            ));
        }
        out.push(fixed);
        i += 1;
    }
    let mut new = out.join("\n");
    if text.ends_with('\n') {
        new.push('\n');
    }
    (new, faults)
}

#[test]
fn every_figure_in_the_teachers_guide_is_the_programs_today() {
    let path = format!("{}/{GUIDE}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("the guide");
    let (new, faults) = regenerate(&text);
    if std::env::var_os("TWOCLOCKS_WRITE_GOLDEN").is_some() {
        std::fs::write(&path, &new).unwrap();
        let (_, left) = regenerate(&new);
        let strays: Vec<&String> = left
            .iter()
            .filter(|f| f.contains("nothing checks"))
            .collect();
        assert!(strays.is_empty(), "{strays:#?}");
        return;
    }
    assert!(
        faults.is_empty(),
        "{GUIDE} is not what the program says today \
         (TWOCLOCKS_WRITE_GOLDEN=1 cargo test --test cli teaching_guide writes it anew):\n\n{}",
        faults.join("\n\n")
    );
}

#[test]
fn the_guide_checks_what_it_quotes() {
    let text = std::fs::read_to_string(format!("{}/{GUIDE}", env!("CARGO_MANIFEST_DIR")))
        .expect("the guide");
    // A section for every step of the tour, found by its name: its caption quoted in a
    // checked block, or (a step whose figures the guide leaves to the room, as a vote) its
    // command named.
    let tour = Tour::built_in().unwrap();
    for step in &tour.steps {
        let name = step.name.as_deref().expect("every step has a name");
        assert!(
            text.contains(&format!("twoclocks tour --from {name}\n"))
                || text.contains(&format!("`twoclocks tour --from {name}`")),
            "{GUIDE} has no section for the step {name:?}"
        );
    }
    // The three exercises' commands, each checked above.
    for cmd in [
        "$ twoclocks frontier",
        "$ twoclocks advise",
        "$ twoclocks report",
    ] {
        assert!(text.contains(cmd), "{GUIDE} quotes no `{cmd}`");
    }
    // A wrong figure is caught, in a block and in prose.
    for command in [
        "$ twoclocks tour --from late-data\n",
        "$ twoclocks advise\n",
    ] {
        let at = text.find(command).expect("the block") + command.len();
        let mut wrong = text.clone();
        wrong.insert(at, '1');
        assert!(
            !regenerate(&wrong).1.is_empty(),
            "a wrong figure after `{command}` passes"
        );
    }
    let first = markers_in(&text).expect("a figure in prose");
    let mut wrong = text.clone();
    wrong.replace_range(first.0..first.1, "9999");
    assert!(
        regenerate(&wrong).1.iter().any(|f| f.contains("9999")),
        "a wrong figure in prose passes"
    );
    let stray = text.replacen("\n\n", "\n\nOnly 17 events are dropped.\n\n", 1);
    assert!(regenerate(&stray)
        .1
        .iter()
        .any(|f| f.contains("nothing checks")));
}

/// The byte range of the first figure in the guide's prose with a marker.
fn markers_in(text: &str) -> Option<(usize, usize)> {
    let mut offset = 0;
    let mut fenced = false;
    for line in text.split_inclusive('\n') {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            if let Some((s, e, _)) = markers(line).first() {
                return Some((offset + s, offset + e));
            }
        }
        offset += line.len();
    }
    None
}
