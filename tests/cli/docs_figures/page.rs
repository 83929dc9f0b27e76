//! One page read line by line: its checked blocks and tables against the program's output, the
//! figures in its prose against their markers, and what is left over refused when it holds a
//! figure. Gives the page as the program would have it today, and what differs.

use super::sources::{drops_table, figure, output_block, tour_block};

/// What follows a figure in prose: a marker naming its source, or a note that it is not an
/// answer of the program.
#[derive(Debug, PartialEq)]
pub(super) enum Note {
    /// `<!--= SOURCE: FIELD -->`
    Checked(String),
    /// `<!--: why -->`
    Given(String),
}

/// A line's figures with their notes: (byte range of the figure as written, the note), for
/// `FIGURE<!--= KEY -->` or `FIGURE<!--: why -->`. The figure is the last word before the
/// note, or the last two when the second is a unit (`20 s`).
pub(super) fn notes(page: &str, line: &str) -> Vec<(usize, usize, Note)> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(open) = line[from..].find("<!--") {
        let open = from + open;
        let close = open
            + line[open..]
                .find("-->")
                .unwrap_or_else(|| panic!("{page}: an unclosed comment: {line}"));
        from = close + 3;
        let inner = &line[open + 4..close];
        let note = if let Some(key) = inner.strip_prefix('=') {
            Note::Checked(key.trim().to_string())
        } else if let Some(why) = inner.strip_prefix(':') {
            let why = why.trim();
            assert!(!why.is_empty(), "{page}: `<!--: -->` says why: {line}");
            Note::Given(why.to_string())
        } else {
            continue;
        };
        // The figure: back to the start of the word, and over one more word if it is a unit.
        let before = &line[..open];
        let opens = |c: char| c.is_whitespace() || c == '(' || c == '[';
        let mut start = before.rfind(opens).map_or(0, |i| i + 1);
        let word = &before[start..];
        if matches!(word, "s" | "ms" | "%") {
            let head = before[..start].trim_end();
            start = head.rfind(opens).map_or(0, |i| i + 1);
        }
        found.push((start, open, note));
    }
    found
}

/// A number left in prose: the line with code spans, noted figures and their notes, links'
/// targets, a numbered list's item numbers and a plan's timing (`5 min`, `50-minute`) taken
/// out, must hold no digit.
pub(super) fn stray_figures(page: &str, line: &str) -> Option<String> {
    let mut rest = String::new();
    let mut in_code = false;
    for part in line.split('`') {
        if !in_code {
            rest.push_str(part);
        }
        rest.push(' ');
        in_code = !in_code;
    }
    // Noted figures and their notes.
    let mut clean = rest.clone();
    for (start, open, _) in notes(page, &rest).into_iter().rev() {
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

/// What the page should say: every checked block and figure as the program gives it today,
/// and what differs from what it says, each fault naming the page and the line.
pub(super) fn regenerate(page: &str, text: &str) -> (String, Vec<String>) {
    let mut out: Vec<String> = Vec::new();
    let mut faults = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        // A fenced block (in a list item too): checked when it starts with `$ twoclocks`.
        if line.trim_start().starts_with("```") {
            let end = i
                + 1
                + lines[i + 1..]
                    .iter()
                    .position(|l| l.trim_start().starts_with("```"))
                    .unwrap_or_else(|| panic!("{page}, line {}: an unclosed block", i + 1));
            out.push(line.to_string());
            let first = lines.get(i + 1).copied().unwrap_or("");
            if let Some(command) = first
                .strip_prefix("$ ")
                .filter(|c| c.starts_with("twoclocks "))
            {
                let want = match command.strip_prefix("twoclocks tour --from ") {
                    Some(rest) => tour_block(page, rest),
                    None => output_block(page, command),
                };
                let got: Vec<String> = lines[i + 2..end]
                    .iter()
                    .map(|l| l.trim_end().to_string())
                    .collect();
                if got != want {
                    faults.push(format!(
                        "{page}, line {}: `{command}` gives today:\n{}\nthe page says:\n{}",
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
        // The README's tour table, which tests/cli/guide.rs writes and checks, and the screen
        // page's keys table, which tests/tui/readme_keys.rs does.
        let written = [
            ("README.md", "<!-- tour: written", "<!-- tour: end -->"),
            ("docs/screen.md", "<!-- keys: written", "<!-- keys: end -->"),
        ]
        .into_iter()
        .find(|&(on, open, _)| on == page && line.starts_with(open));
        if let Some((_, _, close)) = written {
            let end = i + lines[i..]
                .iter()
                .position(|l| l.trim() == close)
                .unwrap_or_else(|| panic!("{page}, line {}: an unclosed table", i + 1));
            out.extend(lines[i..=end].iter().map(|l| l.to_string()));
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
                    "{page}, line {}: the drops of `run {}` are today:\n{}\nthe page says:\n{}",
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
        for (start, open, note) in notes(page, line).into_iter().rev() {
            let Note::Checked(key) = note else { continue };
            let written = &line[start..open];
            let want = figure(page, &key);
            let bare = written.trim_matches(|c: char| "*_".contains(c));
            if bare != want {
                faults.push(format!(
                    "{page}, line {}: {written:?} should be {want:?} ({key})",
                    i + 1
                ));
            }
            fixed.replace_range(start..open, &written.replacen(bare, &want, 1));
        }
        if let Some(stray) = stray_figures(page, line) {
            faults.push(format!(
                "{page}, line {}: {stray:?} is a figure nothing checks: follow it with <!--= SOURCE: FIELD -->, quote it in a checked block, or say why it is not the program's (<!--: given -->)",
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
