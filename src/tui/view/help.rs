//! The `?` overlay: every binding of the keymap, grouped, and what the plot's glyphs mean.
//! Built from the same table as the key handler and the footer.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Widget};

use super::super::app::App;
use super::super::keymap::{Group, KEYMAP};
use super::super::theme::glyph;

/// The help text, one entry per line.
pub fn lines(app: &App) -> Vec<Line<'static>> {
    let t = &app.theme;
    let mut v = Vec::new();
    for g in Group::ALL {
        v.push(Line::from(Span::styled(g.title(), t.title)));
        for b in KEYMAP.iter().filter(|b| b.group == g) {
            v.push(Line::from(vec![
                Span::styled(format!(" {:<8}", b.label), t.key),
                Span::styled(b.help, t.text),
            ]));
        }
    }
    v.push(Line::from(Span::styled("Mouse", t.title)));
    for (what, how) in [
        ("dial", "click or drag its track"),
        ("plot", "click: inspect the nearest event"),
        ("window", "click its row to select it"),
        ("point", "frontier: adopt lag and grace"),
        ("op row", "job: pick operator to crash"),
    ] {
        v.push(Line::from(vec![
            Span::styled(format!(" {what:<8}"), t.key),
            Span::styled(how, t.text),
        ]));
    }
    v.push(Line::from(Span::styled("Plot", t.title)));
    for (g, style, what) in [
        (glyph::ON_TIME, t.on_time, "event on time"),
        (glyph::LATE, t.late, "event late, within grace"),
        (glyph::DROPPED, t.dropped, "event dropped, past grace"),
        (glyph::WATERMARK, t.watermark, "watermark"),
        (
            glyph::IDEAL,
            t.ideal,
            "ideal watermark: event = processing time",
        ),
        (glyph::WINDOW_EDGE, t.window_edge, "window end"),
        (
            glyph::REPLAYED,
            t.policy,
            "job: event taken again in a replay",
        ),
        (
            glyph::CHECKPOINT,
            t.key,
            "job: a completed checkpoint (axis)",
        ),
        (glyph::CRASH, t.warn, "job: a crash (axis)"),
    ] {
        v.push(Line::from(vec![
            Span::styled(format!(" {g:<8}"), style),
            Span::styled(what, t.text),
        ]));
    }
    v.push(Line::from(Span::styled("Topology", t.title)));
    for (g, what) in [
        ("12 ┃8", "12 in flight, checkpoint 8's barrier behind"),
        ("⏸", "input held back: its operator is aligning"),
        ("⧗ #8 1/2", "aligning on #8, barrier in on 1 of 2"),
        ("✓ #8", "snapshotted for checkpoint #8"),
    ] {
        v.push(Line::from(vec![
            Span::styled(format!(" {g:<9}"), t.key),
            Span::styled(what, t.text),
        ]));
    }
    v.push(Line::from(Span::styled("Windows", t.title)));
    for (g, what) in [
        ("○", "open: the watermark has not reached its end"),
        ("●", "fired on time: ON_TIME pane out"),
        ("◆", "taking late data: LATE panes, within grace"),
        ("■", "finalised: past grace, state freed"),
    ] {
        v.push(Line::from(vec![
            Span::styled(format!(" {g:<8}"), t.key),
            Span::styled(what, t.text),
        ]));
    }
    v
}

/// `line` in lines at most `width` columns wide: a key's description too long is continued on
/// the next line, under itself.
fn wrap(line: Line<'static>, width: usize) -> Vec<Line<'static>> {
    if line.width() <= width || line.spans.is_empty() || line.spans.len() > 2 {
        return vec![line];
    }
    let (key, what) = match &line.spans[..] {
        [what] => (Span::raw(""), what),
        [key, what] => (key.clone(), what),
        _ => return vec![line],
    };
    let indent = key.width();
    let room = width.saturating_sub(indent).max(1);
    let mut rows: Vec<String> = vec![String::new()];
    for word in what.content.split(' ') {
        let last = rows.last_mut().expect("one row at least");
        let n = last.chars().count();
        if n > 0 && n + 1 + word.chars().count() > room {
            rows.push(word.to_string());
        } else {
            if n > 0 {
                last.push(' ');
            }
            last.push_str(word);
        }
    }
    rows.into_iter()
        .enumerate()
        .map(|(i, r)| {
            let head = if i == 0 {
                key.clone()
            } else {
                Span::raw(" ".repeat(indent))
            };
            Line::from(vec![head, Span::styled(r, what.style)])
        })
        .collect()
}

fn wrap_all(lines: &[Line<'static>], width: usize) -> Vec<Line<'static>> {
    lines.iter().cloned().flat_map(|l| wrap(l, width)).collect()
}

pub fn render(app: &App, screen: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let all = lines(app);
    let inner_h = usize::from(screen.height.saturating_sub(4));
    // One column if it fits, two otherwise; each line wrapped to its column (a column keeps
    // one blank column to its right, so two columns never touch).
    let one_w = 76.min(screen.width.saturating_sub(2));
    let one = wrap_all(&all, usize::from(one_w.saturating_sub(2)));
    let (cols, w, all) = if one.len() <= inner_h {
        (1u16, one_w, one)
    } else {
        let w = 150.min(screen.width.saturating_sub(2));
        let cw = usize::from(w.saturating_sub(2) / 2);
        (2, w, wrap_all(&all, cw.saturating_sub(1)))
    };
    let per = all.len().div_ceil(cols as usize);
    let h = (per as u16 + 2).min(screen.height.saturating_sub(2));
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
    let rows = usize::from(area.height.saturating_sub(2));
    let max_scroll = per.saturating_sub(rows);
    let scroll = app.help_scroll.min(max_scroll);
    let title = if max_scroll > 0 {
        " Keys · ↑↓ scroll · Esc or ? closes "
    } else {
        " Keys · Esc or ? closes "
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.title)
        .title(Span::styled(title, t.title));
    let inner = block.inner(area);
    block.render(area, buf);
    let cw = inner.width / cols;
    for (i, chunk) in all.chunks(per.max(1)).enumerate() {
        let r = Rect {
            x: inner.x + cw * i as u16,
            width: cw,
            ..inner
        };
        let shown: Vec<Line> = chunk.iter().skip(scroll).cloned().collect();
        super::text::lines(buf, r, shown);
    }
}
