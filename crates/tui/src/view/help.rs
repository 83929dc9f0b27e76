//! The `?` overlay: every binding of the keymap, grouped (a key and its inverse on one row,
//! as the keymap pairs them), then what the plot, the topology and
//! the windows table draw (with session windows, the lanes' glyphs; with the global window,
//! its expiry mark). Built from the same table as the key handler and the footer.
//!
//! The text flows into as many columns as the screen holds, an entry (with its heading) never
//! split across two. The keys come first, so at 80×24 (where the box takes the whole height)
//! every key is on the first page; the rest
//! is a column or two further: ↓ and ↑ move by a column, and the bottom border says "↓ more"
//! while there is more.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};

use super::plot;
use crate::app::{Action, App, EARLY_STEP, GRACE_STEP, LAG_STEP};
use crate::keymap::{dial_step, help_rows, Group, HelpRow};
use crate::theme::glyph;
use twoclocks_engine::{Fate, Timing};

/// The key (or glyph) column: a space, up to 8 columns of key, a space.
const KEY_W: usize = 8;
/// A column's width when the text needs more than one: 37 columns of text and a blank.
const COLUMN_W: u16 = 38;
/// The most columns side by side (wider screens centre them).
const MAX_COLUMNS: u16 = 3;
/// The single column's width, border included.
const ONE_W: u16 = 76;

/// One entry: a heading, or a key (or glyph) with what it does.
#[derive(Debug, Clone)]
enum Entry {
    Heading(&'static str),
    Key(String, Style, String),
}

fn entries(app: &App) -> Vec<Entry> {
    let t = &app.theme;
    let mut v = Vec::new();
    let key = |k: &str, style: Style, what: &str| Entry::Key(k.to_string(), style, what.into());
    let rows = help_rows();
    for g in Group::ALL {
        v.push(Entry::Heading(g.title()));
        for r in rows.iter().filter(|r| r.group == g) {
            v.push(key(r.label, t.key, &scaled(app, r)));
        }
    }
    v.push(Entry::Heading("Plot: heavier = more in the cell"));
    let ramp = |f: Fate| {
        glyph::ramp(f)
            .iter()
            .map(|g| g.0.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    v.push(key(&ramp(Fate::OnTime), t.on_time, "on time"));
    v.push(key(&ramp(Fate::Late), t.late, "late, within grace"));
    v.push(key(&ramp(Fate::Dropped), t.dropped, "dropped, past grace"));
    v.push(key("of N", t.dim, "legend: % of the N so far"));
    v.push(key(&glyph::WATERMARK.to_string(), t.watermark, "watermark"));
    v.push(key(
        &format!("{} {}", glyph::WINDOW_EDGE, glyph::SELECTED_EDGE),
        t.window_edge,
        "window end; selected window",
    ));
    v.push(key(
        &[Timing::Early, Timing::OnTime, Timing::Late]
            .map(|x| plot::bar_glyph(x).to_string())
            .join(" "),
        t.on_time_pane,
        "panes: early, on time, late",
    ));
    v.push(key(
        &format!("{}▶", glyph::PLAYHEAD),
        t.playhead,
        "playhead: processing time",
    ));
    v.push(key(
        &glyph::IDEAL.to_string(),
        t.ideal,
        "ideal watermark (event time = processing time), drawn only under f",
    ));
    v.push(key(
        &glyph::REPLAYED.to_string(),
        t.policy,
        "job: taken again (replay)",
    ));
    v.push(key(
        &glyph::CHECKPOINT.to_string(),
        t.key,
        "job: checkpoint done (axis)",
    ));
    v.push(key(
        &glyph::CRASH.to_string(),
        t.warn,
        "job: a crash (axis)",
    ));
    v.push(key("▓ ░", t.dropped, "job lane: out; idle"));
    v.push(key(
        &glyph::ASKED.to_string(),
        t.title,
        "a tour's question: 1 2 3 vote, then see",
    ));
    v.push(Entry::Heading("Inspected event: why, on its row"));
    v.push(key(
        &format!("{}{}", glyph::INSPECTED, glyph::INSPECTED_WINDOW),
        t.inspected,
        "the event, then its window",
    ));
    v.push(key(
        &glyph::INEQUALITY_EDGE.to_string(),
        t.dropped,
        "its window's end (vertical)",
    ));
    v.push(key(
        &glyph::PAST_GRACE.to_string(),
        t.dropped,
        "dropped: how far past grace",
    ));
    v.push(key(
        &glyph::GRACE_BAND.to_string(),
        t.late,
        "grace band behind watermark",
    ));
    v.push(key(
        &glyph::INEQUALITY_EDGE.to_string(),
        t.watermark,
        "watermark at its arrival",
    ));
    v.push(Entry::Heading("Mouse"));
    for (what, how) in [
        ("dial", "click or drag its track"),
        ("plot", "inspect the nearest event"),
        ("window", "click its row to select it"),
        ("frontier", "adopt a point's lag, grace"),
        ("op row", "job: pick operator to crash"),
    ] {
        v.push(key(what, t.key, how));
    }
    v.push(Entry::Heading("Topology"));
    for (g, what) in [
        ("12 ┃8", "12 in flight, barrier of #8"),
        ("‖", "input held: operator aligns"),
        ("◷ #8 1/2", "aligning #8: 1 of 2 inputs"),
        ("✓ #8", "snapshot taken for #8"),
    ] {
        v.push(key(g, t.key, what));
    }
    v.push(Entry::Heading("Windows"));
    for (g, what) in [
        ("○", "open: watermark before end"),
        ("●", "fired: ON_TIME pane out"),
        ("◆", "taking late data (grace)"),
        ("■", "finalised, state freed"),
    ] {
        v.push(key(g, t.key, what));
    }
    if app.scenario().oracle.merging {
        v.push(Entry::Heading("Sessions: a lane per key"));
        v.push(key(
            &format!(
                "{}{}{}",
                plot::SESSION_START,
                plot::SESSION_RUN,
                plot::SESSION_END
            ),
            t.on_time,
            "a session of the run so far, in event time (dim: finalised)",
        ));
        v.push(key(
            &plot::MERGE.to_string(),
            t.late,
            "merge: an event bridged two sessions, or joined one that had fired",
        ));
        v.push(key(
            &format!("{}{}", glyph::SELECTED_EDGE, glyph::SELECTED_EDGE),
            t.selected_window,
            "the selected key's selected session",
        ));
        v.push(key(
            "row",
            t.key,
            "an oracle session: wrong unless the run has it exactly",
        ));
    }
    if app.scenario().oracle.global {
        v.push(Entry::Heading("Global window: a row per key"));
        v.push(key(
            &plot::EXPIRY.to_string(),
            t.warn,
            "a key's state expired (TTL), on the axis; resets in the table",
        ));
        v.push(key(
            "so far",
            t.key,
            "truth: the key's events arrived so far",
        ));
    }
    v
}

/// A row's help as the dials step: the keymap's, whose delay dials' texts name the
/// classroom's steps (`watermark lag − / + 1 s`), written with a wall-clock log's steps
/// (`watermark lag − / + 15m`).
fn scaled(app: &App, r: &HelpRow) -> String {
    let ranges = &app.dials().ranges;
    let dial = r.bindings.first().and_then(|b| match b.action {
        Action::LagDown | Action::LagUp => Some((LAG_STEP, ranges.lag.1)),
        Action::GraceDown | Action::GraceUp => Some((GRACE_STEP, ranges.grace.1)),
        Action::EarlyDown | Action::EarlyUp => Some((EARLY_STEP, ranges.early.1)),
        _ => None,
    });
    match dial {
        Some((classroom, step)) if ranges.wall => r
            .help
            .replace(&dial_step(classroom), &super::duration(app.clock(), step)),
        _ => r.help.to_string(),
    }
}

/// The help text, one entry per line (unwrapped).
pub fn lines(app: &App) -> Vec<Line<'static>> {
    entries(app)
        .iter()
        .flat_map(|e| rows(app, e, usize::MAX))
        .collect()
}

/// An entry in lines at most `width` columns wide: a description too long is continued on the
/// next line, under itself.
fn rows(app: &App, e: &Entry, width: usize) -> Vec<Line<'static>> {
    let t = &app.theme;
    let (head, what, style) = match e {
        Entry::Heading(h) => (None, *h, t.title),
        Entry::Key(k, s, what) => (Some((format!(" {k:<KEY_W$} "), *s)), what.as_str(), t.text),
    };
    let indent = head.as_ref().map_or(0, |(h, _)| h.chars().count());
    let room = width.saturating_sub(indent).max(1);
    let mut out: Vec<String> = vec![String::new()];
    for word in what.split(' ') {
        let last = out.last_mut().expect("one row at least");
        let n = last.chars().count();
        if n > 0 && n + 1 + word.chars().count() > room {
            out.push(word.to_string());
        } else {
            if n > 0 {
                last.push(' ');
            }
            last.push_str(word);
        }
    }
    out.into_iter()
        .enumerate()
        .map(|(i, r)| {
            let text = Span::styled(r, style);
            match &head {
                None => Line::from(text),
                Some((h, s)) if i == 0 => Line::from(vec![Span::styled(h.clone(), *s), text]),
                Some(_) => Line::from(vec![Span::raw(" ".repeat(indent)), text]),
            }
        })
        .collect()
}

/// The entries laid out in columns of at most `height` rows of `width` columns: an entry is
/// never split across two columns, nor a heading from the entry under it.
fn columns(app: &App, entries: &[Entry], width: usize, height: usize) -> Vec<Vec<Line<'static>>> {
    let height = height.max(1);
    let mut cols: Vec<Vec<Line<'static>>> = vec![Vec::new()];
    let mut i = 0;
    while i < entries.len() {
        let mut block = rows(app, &entries[i], width);
        let mut n = 1;
        if matches!(entries[i], Entry::Heading(_)) {
            if let Some(next) = entries.get(i + 1) {
                block.extend(rows(app, next, width));
                n = 2;
            }
        }
        let len = cols.last().map_or(0, Vec::len);
        if len > 0 && len + block.len() > height {
            cols.push(Vec::new());
        }
        for line in block {
            if cols.last().map_or(0, Vec::len) >= height {
                cols.push(Vec::new());
            }
            if let Some(col) = cols.last_mut() {
                col.push(line);
            }
        }
        i += n;
    }
    cols
}

/// Draws the help overlay centred on `screen`: one column when it fits, else as many as the
/// screen holds, scrolled by [`App::help_scroll`].
pub fn render(app: &App, screen: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let all = entries(app);
    // The box leaves a row above and below it, but on a short screen (24 rows and fewer),
    // where every key must still be on the first page, it takes the whole height.
    let margin = if screen.height > 24 { 2 } else { 0 };
    let max_rows = usize::from(screen.height.saturating_sub(2 + margin)).max(1);
    let one_w = ONE_W.min(screen.width.saturating_sub(2));
    let one = columns(app, &all, usize::from(one_w.saturating_sub(2)), usize::MAX);
    let one_rows = one.first().map_or(0, Vec::len);
    let (w, cols) = if one_rows <= max_rows {
        (one_w, one)
    } else {
        let fit = (screen.width.saturating_sub(4) / COLUMN_W).clamp(1, MAX_COLUMNS);
        let text_w = usize::from(COLUMN_W - 1);
        let mut best = columns(app, &all, text_w, max_rows);
        // When it all fits, as short as it can be in as many columns.
        if best.len() <= usize::from(fit) {
            let mut rows = best.iter().map(Vec::len).max().unwrap_or(0);
            while rows > 1 {
                let c = columns(app, &all, text_w, rows - 1);
                if c.len() > best.len() {
                    break;
                }
                best = c;
                rows -= 1;
            }
        }
        let n = best.len().min(usize::from(fit)) as u16;
        ((COLUMN_W * n + 2).min(screen.width.saturating_sub(2)), best)
    };
    let rows = cols.iter().map(Vec::len).max().unwrap_or(0);
    let per = u16::try_from(rows).unwrap_or(u16::MAX);
    let h = per
        .saturating_add(2)
        .min(screen.height.saturating_sub(margin));
    let area = Rect {
        x: screen.x + (screen.width.saturating_sub(w)) / 2,
        y: screen.y + (screen.height.saturating_sub(h)) / 2,
        width: w,
        height: h,
    };
    if area.width < 4 || area.height < 3 {
        return;
    }
    Clear.render(area, buf);
    // Cleared to the theme's own background (the light theme paints one).
    app.theme.paint(area, buf);
    let inner_w = area.width.saturating_sub(2);
    let cw = if cols.len() > 1 { COLUMN_W } else { inner_w };
    let fit = usize::from((inner_w / cw.max(1)).max(1));
    // ↓ and ↑ move by a column.
    let first = app.help_scroll.min(cols.len().saturating_sub(fit));
    let more = first + fit < cols.len();
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.title)
        .title(Span::styled(" Keys · Esc or ? closes ", t.title));
    let hint = match (first > 0, more) {
        (true, true) => Some(" ↑ back · ↓ more "),
        (false, true) => Some(" ↓ more "),
        (true, false) => Some(" ↑ back "),
        (false, false) => None,
    };
    if let Some(hint) = hint {
        block = block.title_bottom(Line::from(Span::styled(hint, t.key)).right_aligned());
    }
    let inner = block.inner(area);
    block.render(area, buf);
    for (i, col) in cols.iter().skip(first).take(fit).enumerate() {
        let r = Rect {
            x: inner.x + cw * i as u16,
            width: cw.min(inner.width.saturating_sub(cw * i as u16)),
            ..inner
        };
        super::text::lines(buf, r, col.clone());
    }
}
