//! The tour's caption band, over the plot: `step k/M` and the step's title on its top rule (the
//! keys that move through the tour on the right), then the caption, its placeholders filled from
//! the read model at the playhead and dials whenever it is drawn (or, where the dials have left the
//! step's case, what holds and which dials moved), wrapped to the band's width in at most three
//! lines. And the step's highlight: a panel's border redrawn heavy, in the accent colour; and the
//! panels a step keeps back, each an empty frame in its place.

use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use super::dials;
use crate::app::App;
use crate::dials::Dial;
use crate::geometry::Areas;
use crate::panel::Panel;
use crate::tour::placeholders;

/// The caption's lines at most.
const LINES: usize = 3;

/// The caption of the tour's current step with its figures filled in (None outside a tour),
/// from the run on screen whenever it is drawn; once the room has voted on a predict step's
/// question, the answer revealed instead, as the run now shown answers it. Where the dials
/// (or the playhead) have left the step's case, what holds instead and what moved.
pub fn text(app: &App) -> Option<String> {
    let tour = app.tour.as_ref()?;
    if let Some(answer) = app.revealed() {
        return Some(answer);
    }
    let step = tour.step();
    let quoted = app.quoted();
    if step.case.iter().all(|c| c.holds(&quoted)) {
        return Some(placeholders::fill(&step.caption, &quoted));
    }
    let off = placeholders::fill(&step.off_case, &quoted);
    Some(format!("{off} {}", moved(app)))
}

/// The sentence that says the dials have left the step's case: each dial turned from the
/// step's setting, as the dials panel writes it (`lag 6s, not 5s`), and that `r` puts it back.
fn moved(app: &App) -> String {
    let Some(tour) = app.tour.as_ref() else {
        return String::new();
    };
    let step_dials = tour.step().run_dials();
    let turned: Vec<String> = Dial::order(app.steered.parallel())
        .iter()
        .filter(|d| !matches!(d, Dial::Speed))
        .filter_map(|&d| {
            let (now, was) = (dials::value(&app.dials(), d), dials::value(&step_dials, d));
            // A dial another one has made idle (the lag of a watermark without one) is not
            // one the room turned. No-break spaces keep a dial's name and values on one line.
            (now != was && now != "n/a")
                .then(|| format!("{}\u{a0}{now}, not\u{a0}{was}", d.label()))
        })
        .collect();
    if turned.is_empty() {
        "The run shown is not the step's: r brings it back.".into()
    } else {
        format!(
            "Off the step's dials: {}; r brings it back.",
            turned.join("; ")
        )
    }
}

/// Whether a line may not end between `word` and `next`: a number stands with what follows it
/// (its unit, `110 s`, or what it counts, `0 dropped`), and a key of a list with the next key
/// or number (`1 2 3`, `l L`, `= 110`), so neither is parted across lines.
fn holds_on(word: &str, next: &str) -> bool {
    let number = |w: &str| !w.is_empty() && w.chars().all(|c| c.is_ascii_digit() || c == '.');
    let single = |w: &str| w.chars().count() == 1;
    number(word) || (single(word) && (single(next) || number(next)))
}

/// `text`'s words, each run of words that must stay on one line ([`holds_on`]) joined into
/// one; a run longer than `width` is left as its words.
fn units(text: &str, width: usize) -> Vec<String> {
    // Words part at ASCII white space only: a no-break space keeps `[1] 4` on one line.
    let words: Vec<&str> = text
        .split(|c: char| c.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
        .collect();
    let mut out: Vec<String> = Vec::new();
    let mut run: Vec<&str> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        run.push(w);
        if words.get(i + 1).is_some_and(|next| holds_on(w, next)) {
            continue;
        }
        let joined = run.join(" ");
        if joined.chars().count() <= width {
            out.push(joined);
        } else {
            out.extend(run.iter().map(|w| w.to_string()));
        }
        run.clear();
    }
    out
}

/// `text` wrapped into lines of at most `width` columns, words kept whole (a word longer than
/// the line is cut) and a number never parted from the word after it, nor a key of a list
/// from the next (`holds_on`); past `max` lines the last ends in `…`.
pub fn wrap(text: &str, width: usize, max: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in units(text, width) {
        let word: String = word.chars().take(width).collect();
        let n = cur.chars().count();
        if n > 0 && n + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(&word);
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    if lines.len() > max {
        lines.truncate(max);
        if let Some(last) = lines.last_mut() {
            let keep = width.saturating_sub(1);
            if last.chars().count() > keep {
                *last = last.chars().take(keep).collect();
            }
            last.push('…');
        }
    }
    lines
}

/// Draws the caption band into `r`.
pub fn render(app: &App, r: Rect, buf: &mut Buffer) {
    let (Some(tour), Some(caption)) = (app.tour.as_ref(), text(app)) else {
        return;
    };
    let t = &app.theme;
    let step = tour.step();
    let head = format!(
        " step {}/{} · {} ",
        tour.at + 1,
        tour.steps.len(),
        step.title
    );
    let keys = " n next · N back · r reset ";
    let mut block = Block::default()
        .borders(Borders::TOP)
        .border_style(t.title)
        .title(Span::styled(head.clone(), t.title));
    // Not while a recording plays: it has the keys.
    if app.replay.is_none()
        && head.chars().count() + keys.chars().count() + 2 <= usize::from(r.width)
    {
        block = block.title(Line::from(Span::styled(keys, t.key)).right_aligned());
    }
    let inner = block.inner(r);
    block.render(r, buf);
    let width = usize::from(inner.width.saturating_sub(1));
    let lines = wrap(&caption, width, LINES.min(usize::from(inner.height)))
        .into_iter()
        .map(|l| Line::from(Span::styled(format!(" {l}"), t.text)))
        .collect();
    super::text::lines(buf, inner, lines);
}

/// The heavy line drawn over a light one, for the highlighted panel's border.
fn heavy(c: &str) -> Option<&'static str> {
    Some(match c {
        "─" => "━",
        "│" => "┃",
        "┌" => "┏",
        "┐" => "┓",
        "└" => "┗",
        "┘" => "┛",
        _ => return None,
    })
}

/// Redraws the border of the panel the tour's step highlights: heavy lines in the accent
/// colour (the titles' colour; with no colours, heavy lines alone say it), its title kept.
pub fn highlight(app: &App, a: &Areas, off: (u16, u16), buf: &mut Buffer) {
    let Some(panel) = app.tour_highlight() else {
        return;
    };
    let Some((_, r)) = a.panels().into_iter().find(|(p, _)| *p == panel) else {
        return;
    };
    if r.width == 0 || r.height == 0 {
        return;
    }
    let r = Rect {
        x: r.x.saturating_add(off.0),
        y: r.y.saturating_add(off.1),
        ..r
    };
    let style = app.theme.title.add_modifier(Modifier::BOLD);
    let area = buf.area;
    let mut mark = |x: u16, y: u16| {
        if area.contains(Position::new(x, y)) {
            let cell = &mut buf[(x, y)];
            if let Some(h) = heavy(cell.symbol()) {
                cell.set_symbol(h);
                cell.set_style(style);
            }
        }
    };
    for x in r.left()..r.right() {
        mark(x, r.top());
        mark(x, r.bottom() - 1);
    }
    for y in r.top()..r.bottom() {
        mark(r.left(), y);
        mark(r.right() - 1, y);
    }
}

/// A panel the tour's step keeps back: its frame, dim, with its name and nothing inside, so
/// the screen does not move when a later step shows it.
pub fn withheld(app: &App, panel: Panel, r: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let room = usize::from(r.width.saturating_sub(2));
    let tails: [&str; 3] = if app.tour_shown_before(panel) {
        [" · not in this step ", " · not now ", " "]
    } else {
        [" · later in the tour ", " · later ", " "]
    };
    let title = tails
        .iter()
        .map(|tail| format!(" {panel}{tail}"))
        .find(|s| s.chars().count() <= room)
        .unwrap_or_default();
    Block::default()
        .borders(Borders::ALL)
        .border_style(t.dim)
        .title(Span::styled(title, t.dim))
        .render(r, buf);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captions_wrap_whole_words_and_end_in_an_ellipsis_when_cut() {
        assert_eq!(wrap("one two three", 7, 3), vec!["one two", "three"]);
        let cut = wrap("ab cd ef gh ij", 5, 2);
        assert_eq!(cut, vec!["ab cd", "ef g…"]);
    }

    #[test]
    fn a_number_stays_with_its_unit_and_a_key_list_stays_whole() {
        // Each of these parted at the line's end once.
        let at = |text: &str, width: usize| wrap(text, width, 9);
        assert_eq!(
            at("It trails now by 7 s; past", 18),
            vec!["It trails now by", "7 s; past"]
        );
        assert_eq!(at("grace 20 = 110 s.", 14), vec!["grace", "20 = 110 s."]);
        assert_eq!(
            at("setting. 1 2 3 pick a policy.", 12),
            vec!["setting.", "1 2 3 pick a", "policy."]
        );
        assert_eq!(
            at("the count resets: 0 dropped so far", 19),
            vec!["the count resets:", "0 dropped so far"]
        );
        // A run too long for the line is parted at its words.
        assert_eq!(at("1 2 3 4 5 6", 5), vec!["1 2 3", "4 5 6"]);
    }
}
