//! The teacher's guide works as written: every key `docs/teaching.md` tells the teacher to press
//! is pressed, in process, at the tour step its section is about, and must do something there,
//! and what the guide says will then appear is on the screen.
//!
//! How the guide is read:
//!
//! - a section (`### …`) is about the step its first `$ twoclocks tour --from NAME` block opens;
//!   the keys it names are pressed one after the other on that step as the tour opens it, at
//!   120×40 (the size the guide asks the teacher to project at);
//! - a key instruction is a `**Press:**` item, or a sentence that says "press": each key in it
//!   written in backticks (`` `G` ``, `` `Space` ``, `` `Esc` ``, `` `←` ``) is pressed in order,
//!   as often as the words after it say (`once`, `twice`, `three times`, `a few times`: three);
//!   anything else in backticks there is refused, as a key instruction outside a step's section
//!   is;
//! - keys listed with an "or" (`` `1`, `2` or `3` ``) are the room's choice: each is pressed
//!   from the same moment, what the guide says after the last holds for each, and the guide
//!   goes on from the last;
//! - three seconds pass after each key, which moves the run while the clock plays (after
//!   `Space`);
//! - `<!--shows: "TEXT", "TEXT" -->` right after a key says what the guide promises then: the
//!   screen holds each text (spaces and line breaks counted alike).
//!
//! A key does something when the screen apart from the footer's message is not what it would
//! have been three seconds on had the key not been pressed: a refusal
//! ("this is the last window", "no late or dropped event left: at the end", "the room votes
//! first") only says so in the footer, and fails. The same holds at 80×24.

use std::time::Duration;

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use twoclocks::tui::app::{update, App, Msg};

use crate::tour_common::{screen, tour_from};

use super::{read, GUIDE};

/// The size the guide projects at, and the smallest the program draws.
const PROJECTED: (u16, u16) = (120, 40);
const SMALL: (u16, u16) = (80, 24);
/// The real time that passes after each key, which moves the run while the clock plays.
const PLAYED: Duration = Duration::from_secs(3);

/// One key as the guide names it, pressed `times` over, and what must show after it.
#[derive(Debug, Clone, PartialEq)]
struct Press {
    key: String,
    times: usize,
    shows: Vec<String>,
}

/// One key instruction: its keys in order, each group one key or the room's choice of several.
#[derive(Debug, PartialEq)]
struct Instruction {
    line: usize,
    groups: Vec<Vec<Press>>,
}

/// A section of the guide: the step it is about and its key instructions.
#[derive(Debug)]
struct Section {
    heading: String,
    step: Option<String>,
    instructions: Vec<Instruction>,
}

/// What a sentence is made of: text, a code span, an annotation.
#[derive(Debug, PartialEq)]
enum Piece {
    Text(String),
    Code(String),
    Shows(Vec<String>),
}

/// A run of prose cut into pieces; other comments are left out.
fn pieces(line: usize, text: &str) -> Result<Vec<Piece>, String> {
    let mut out = Vec::new();
    let mut rest = text;
    let mut plain = String::new();
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("<!--") {
            let close = after
                .find("-->")
                .ok_or(format!("{GUIDE}, line {line}: an unclosed comment"))?;
            let inner = after[..close].trim();
            if let Some(list) = inner.strip_prefix("shows:") {
                out.push(Piece::Text(std::mem::take(&mut plain)));
                out.push(Piece::Shows(quoted(line, list)?));
            }
            rest = &after[close + 3..];
        } else if let Some(after) = rest.strip_prefix('`') {
            let close = after
                .find('`')
                .ok_or(format!("{GUIDE}, line {line}: an unclosed code span"))?;
            out.push(Piece::Text(std::mem::take(&mut plain)));
            out.push(Piece::Code(after[..close].to_string()));
            rest = &after[close + 1..];
        } else {
            let c = rest.chars().next().unwrap();
            plain.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out.push(Piece::Text(plain));
    out.retain(|p| !matches!(p, Piece::Text(t) if t.is_empty()));
    Ok(out)
}

/// `"A", "B"`: the texts an annotation names.
fn quoted(line: usize, list: &str) -> Result<Vec<String>, String> {
    let texts: Vec<String> = list
        .split('"')
        .skip(1)
        .step_by(2)
        .map(String::from)
        .collect();
    let back: Vec<String> = texts.iter().map(|t| format!("\"{t}\"")).collect();
    if texts.is_empty() || back.join(", ") != list.trim() {
        return Err(format!(
            "{GUIDE}, line {line}: `<!--shows: \"TEXT\", \"TEXT\" -->`, not {list:?}"
        ));
    }
    Ok(texts)
}

/// A unit of prose cut into sentences at `.`, `?` or `!` before a space, outside code spans
/// and comments.
fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let (mut code, mut comment) = (false, false);
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        current.push(c);
        if comment {
            comment = !current.ends_with("-->");
        } else if c == '`' {
            code = !code;
        } else if !code && current.ends_with("<!--") {
            comment = true;
        } else if !code && ".?!".contains(c) && chars.get(i + 1).is_none_or(|n| n.is_whitespace()) {
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.trim().is_empty() {
        out.push(current);
    }
    out
}

/// Whether a sentence tells the teacher to press something.
fn says_press(sentence: &str) -> bool {
    let mut prose = String::new();
    for p in pieces(0, sentence).unwrap_or_default() {
        if let Piece::Text(t) = p {
            prose.push_str(&t);
        }
    }
    prose
        .split(|c: char| !c.is_alphabetic())
        .any(|w| w.to_lowercase().starts_with("press"))
}

/// How many times the words right after a key say to press it.
fn times(after: &str) -> usize {
    let words = after.trim_start().to_lowercase();
    [
        ("twice", 2),
        ("three times", 3),
        ("a few times", 3),
        ("once", 1),
    ]
    .into_iter()
    .find(|(w, _)| words.starts_with(w))
    .map_or(1, |(_, n)| n)
}

/// An instruction's keys, in order, grouped where the room chooses one of them.
fn instruction(line: usize, text: &str) -> Result<Instruction, String> {
    let pieces = pieces(line, text)?;
    let mut presses: Vec<Press> = Vec::new();
    // Whether each key is listed with the one before it (only a comma, "and" or "or"
    // between), and whether that link is an "or".
    let mut listed: Vec<(bool, bool)> = Vec::new();
    let mut between = String::new();
    for (i, p) in pieces.iter().enumerate() {
        match p {
            Piece::Code(k) => {
                key_event(k).map_err(|e| format!("{GUIDE}, line {line}: {e}"))?;
                let after = match pieces.get(i + 1) {
                    Some(Piece::Text(t)) => t.as_str(),
                    _ => "",
                };
                let link = between.trim().trim_start_matches(',').trim();
                let is_list = !presses.is_empty() && matches!(link, "" | "or" | "and");
                listed.push((is_list, link == "or"));
                presses.push(Press {
                    key: k.clone(),
                    times: times(after),
                    shows: Vec::new(),
                });
                between.clear();
            }
            Piece::Shows(texts) => match presses.last_mut() {
                Some(last) => last.shows.extend(texts.iter().cloned()),
                None => {
                    return Err(format!(
                        "{GUIDE}, line {line}: <!--shows: … --> before any key"
                    ))
                }
            },
            Piece::Text(t) => between.push_str(t),
        }
    }
    // A list of keys with an "or" in it is the room's choice; any other key is a group alone.
    let mut groups: Vec<Vec<Press>> = Vec::new();
    let mut i = 0;
    while i < presses.len() {
        let mut end = i + 1;
        while end < presses.len() && listed[end].0 {
            end += 1;
        }
        if listed[i + 1..end].iter().any(|&(_, or)| or) {
            // What the guide says after the last choice holds for each.
            let mut choices = presses[i..end].to_vec();
            let shows = choices.last().map(|p| p.shows.clone()).unwrap_or_default();
            for p in &mut choices {
                if p.shows.is_empty() {
                    p.shows = shows.clone();
                }
            }
            groups.push(choices);
        } else {
            groups.extend(presses[i..end].iter().map(|p| vec![p.clone()]));
        }
        i = end;
    }
    Ok(Instruction { line, groups })
}

/// The guide's sections, each with the step it is about and its key instructions.
fn sections(text: &str) -> Result<Vec<Section>, String> {
    let mut out: Vec<Section> = Vec::new();
    // Units of prose: a paragraph, or a list item with its continuation lines.
    let mut unit: Option<(usize, String)> = None;
    let mut fenced = false;
    let lines: Vec<&str> = text.lines().collect();
    let flush = |out: &mut Vec<Section>, unit: &mut Option<(usize, String)>| {
        let Some((line, text)) = unit.take() else {
            return Ok::<(), String>(());
        };
        let Some(section) = out.last_mut() else {
            return Ok(());
        };
        let press_item = text.trim_start().starts_with("- **Press:**");
        let found: Vec<String> = if press_item {
            vec![text.replacen("**Press:**", "", 1)]
        } else {
            sentences(&text)
                .into_iter()
                .filter(|s| says_press(s))
                .collect()
        };
        for s in found {
            let ins = instruction(line, &s)?;
            if press_item && ins.groups.is_empty() {
                return Err(format!(
                    "{GUIDE}, line {line}: a **Press:** item names no key in backticks"
                ));
            }
            if !ins.groups.is_empty() {
                section.instructions.push(ins);
            }
        }
        Ok(())
    };
    for (i, line) in lines.iter().enumerate() {
        let number = i + 1;
        if line.trim_start().starts_with("```") {
            flush(&mut out, &mut unit)?;
            fenced = !fenced;
            if fenced {
                let first = lines.get(i + 1).copied().unwrap_or("");
                if let Some(name) = first.strip_prefix("$ twoclocks tour --from ") {
                    if let Some(section) = out.last_mut() {
                        if section.step.is_none() && !name.contains('#') {
                            section.step = Some(name.trim().to_string());
                        }
                    }
                }
            }
            continue;
        }
        if fenced {
            continue;
        }
        if line.starts_with('#') {
            flush(&mut out, &mut unit)?;
            out.push(Section {
                heading: line.trim_start_matches('#').trim().to_string(),
                step: None,
                instructions: Vec::new(),
            });
            continue;
        }
        let item = line.starts_with("- ")
            || line
                .split_once(". ")
                .is_some_and(|(n, _)| n.parse::<u32>().is_ok());
        if line.trim().is_empty() || item {
            flush(&mut out, &mut unit)?;
        }
        if !line.trim().is_empty() {
            match &mut unit {
                Some((_, t)) => {
                    t.push(' ');
                    t.push_str(line.trim());
                }
                None => unit = Some((number, line.to_string())),
            }
        }
    }
    flush(&mut out, &mut unit)?;
    Ok(out)
}

/// A key as the guide writes it, as the terminal sends it.
fn key_event(name: &str) -> Result<KeyEvent, String> {
    let code = match name {
        "Space" => KeyCode::Char(' '),
        "Esc" => KeyCode::Esc,
        "Enter" => KeyCode::Enter,
        "Tab" => KeyCode::Tab,
        "End" => KeyCode::End,
        "Home" => KeyCode::Home,
        "←" => KeyCode::Left,
        "→" => KeyCode::Right,
        "↑" => KeyCode::Up,
        "↓" => KeyCode::Down,
        c if c.chars().count() == 1 => KeyCode::Char(c.chars().next().unwrap()),
        other => return Err(format!("`{other}` in a key instruction is not a key")),
    };
    let shift = matches!(code, KeyCode::Char(c) if c.is_ascii_uppercase());
    let ev = KeyEvent::new(
        code,
        if shift {
            KeyModifiers::SHIFT
        } else {
            KeyModifiers::NONE
        },
    );
    if twoclocks::tui::messages(&Event::Key(ev)).is_empty() {
        return Err(format!("`{name}` is bound to nothing"));
    }
    Ok(ev)
}

/// The screen at `size` without the footer's message: what a key changed, if anything.
fn without_message(a: &App, size: (u16, u16)) -> String {
    let mut b = a.clone();
    b.status = None;
    screen(&mut b, size.0, size.1)
}

/// Text with its runs of spaces and line breaks made one space.
fn spaced(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// One key pressed as the terminal sends it, as often as the guide says; what went wrong.
/// Each press is held against the same moment left alone: while the clock plays, the screen
/// moves by itself, and a pause shows only in what no longer moves.
fn press(a: &mut App, step: &str, line: usize, p: &Press, faults: &mut Vec<String>) {
    let ev = key_event(&p.key).expect("checked when read");
    for n in 1..=p.times {
        let mut left = a.clone();
        for msg in twoclocks::tui::messages(&Event::Key(ev)) {
            update(a, msg, Duration::ZERO);
        }
        a.settle();
        let said = a
            .status
            .as_ref()
            .map_or("", |s| s.text.as_str())
            .to_string();
        for b in [&mut *a, &mut left] {
            update(b, Msg::Tick, PLAYED);
            b.settle();
        }
        for size in [PROJECTED, SMALL] {
            if without_message(a, size) == without_message(&left, size) {
                faults.push(format!(
                    "{GUIDE}, line {line}: at the step {step}, `{}` (press {n} of {}) does nothing at {}×{}: the footer says {said:?}",
                    p.key, p.times, size.0, size.1
                ));
            }
        }
    }
    if p.shows.is_empty() {
        return;
    }
    let shown = spaced(&screen(a, PROJECTED.0, PROJECTED.1));
    for text in &p.shows {
        if !shown.contains(&spaced(text)) {
            faults.push(format!(
                "{GUIDE}, line {line}: at the step {step}, after `{}` the guide says {text:?} shows; the screen at {}×{}:\n{}",
                p.key,
                PROJECTED.0,
                PROJECTED.1,
                screen(a, PROJECTED.0, PROJECTED.1)
            ));
        }
    }
}

/// Every key instruction of a page like the guide pressed at its step: what went wrong.
fn faults_of(text: &str) -> Vec<String> {
    let sections = match sections(text) {
        Ok(s) => s,
        Err(e) => return vec![e],
    };
    let mut faults = Vec::new();
    for section in &sections {
        let Some(step) = &section.step else {
            faults.extend(section.instructions.iter().map(|i| {
                format!(
                    "{GUIDE}, line {}: a key to press in \"{}\", which opens no step of the tour",
                    i.line, section.heading
                )
            }));
            continue;
        };
        let mut a = tour_from(step);
        update(
            &mut a,
            Msg::Resize(PROJECTED.0, PROJECTED.1),
            Duration::ZERO,
        );
        for ins in &section.instructions {
            for group in &ins.groups {
                let at = a.clone();
                for p in group {
                    a = at.clone();
                    press(&mut a, step, ins.line, p, &mut faults);
                }
            }
        }
    }
    faults
}

#[test]
fn every_key_the_guide_names_works_at_its_step() {
    let text = read(GUIDE);
    let sections = sections(&text).unwrap();
    let pressed: usize = sections
        .iter()
        .flat_map(|s| &s.instructions)
        .flat_map(|i| i.groups.iter().flatten())
        .map(|p| p.times)
        .sum();
    assert!(pressed >= 20, "the guide's keys were not found: {pressed}");
    let faults = faults_of(&text);
    assert!(faults.is_empty(), "{}", faults.join("\n\n"));
}

#[test]
fn the_guide_is_read_as_the_teacher_reads_it() {
    let ins = instruction(
        1,
        " `l` three times (a smaller lag), then `r`<!--shows: \"lag 7s\" -->.",
    )
    .unwrap();
    let keys: Vec<(&str, usize, usize)> = ins
        .groups
        .iter()
        .map(|g| (g[0].key.as_str(), g[0].times, g[0].shows.len()))
        .collect();
    assert_eq!(keys, [("l", 3, 0), ("r", 1, 1)]);
    // The room's choice, each from the same moment; a plain list, one after the other.
    let vote = instruction(1, "press `1`, `2` or `3`<!--shows: \"chose\" -->.").unwrap();
    assert_eq!(vote.groups.len(), 1);
    assert_eq!(vote.groups[0].len(), 3);
    assert!(vote.groups[0].iter().all(|p| p.shows == ["chose"]));
    let policies = instruction(1, "`1`, `2`, `3` to pick a policy.").unwrap();
    assert_eq!(policies.groups.len(), 3);
    // A sentence says press; another in the same item does not.
    let s = sections(
        "### A\n\n```text\n$ twoclocks tour --from windowing\n```\n\n- **Say:** a `?` mark. Press `]` twice.\n",
    )
    .unwrap();
    assert_eq!(s[0].step.as_deref(), Some("windowing"));
    assert_eq!(s[0].instructions.len(), 1);
    assert_eq!(s[0].instructions[0].groups[0][0].key, "]");
    // What is not a key, or a key bound to nothing, is refused.
    assert!(instruction(1, "press `ctrl-x`").is_err());
    assert!(instruction(1, "press `F`<!--shows: 12 -->").is_err());
}

#[test]
fn a_key_refused_at_its_step_or_a_promise_not_kept_fails() {
    let at = |step: &str, press: &str| {
        format!(
            "### A step\n\n```text\n$ twoclocks tour --from {step}\n```\n\n- **Press:** {press}\n"
        )
    };
    // The windowing step opens on the second window: a third [ finds none before it.
    let refused = faults_of(&at("windowing", "`[` twice."));
    assert_eq!(refused.len(), 2, "{refused:?}");
    assert!(
        refused[0].contains("(press 2 of 2) does nothing"),
        "{refused:?}"
    );
    assert!(
        refused[0].contains("this is the first window"),
        "{refused:?}"
    );
    let broken = faults_of(&at("late-data", "`G` twice<!--shows: \"grace 99s\" -->."));
    assert_eq!(broken.len(), 1, "{broken:?}");
    assert!(broken[0].contains("\"grace 99s\" shows"), "{broken:?}");
    assert!(faults_of(&at("late-data", "`G` twice<!--shows: \"30s\" -->.")).is_empty());
    let nowhere = faults_of("### Opening\n\nPress `n` to begin.\n");
    assert!(nowhere[0].contains("opens no step"), "{nowhere:?}");
}
