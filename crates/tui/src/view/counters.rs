//! The counters panel: events arrived, on time, late within grace, dropped, panes emitted,
//! windows open, state size: bold and right-aligned, to read from the back of a room. What the
//! trace counts: for the parallel job, its operators' counters, summed (they roll back with a
//! crash), and its cells over its operators. Rows to spare under the counters show the
//! state over time ([`super::state`]).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use twoclocks_engine::frontier::slack::StateCost;
use twoclocks_engine::Counters;

use crate::app::App;
use crate::theme::glyph;

/// The three fates and the panes emitted.
fn fate_rows(app: &App, c: &Counters) -> [(String, String, Style); 4] {
    let t = &app.theme;
    let bold = t.text.add_modifier(Modifier::BOLD);
    [
        (
            format!("{} on time", glyph::ON_TIME),
            c.on_time.to_string(),
            t.on_time.add_modifier(Modifier::BOLD),
        ),
        (
            format!("{} late in grace", glyph::LATE),
            c.late.to_string(),
            t.late,
        ),
        (
            format!("{} dropped", glyph::DROPPED),
            c.dropped.to_string(),
            t.dropped,
        ),
        (
            "panes emitted".into(),
            format!(
                "{}  (E{} O{} L{})",
                c.panes(),
                c.early_panes,
                c.on_time_panes,
                c.late_panes
            ),
            bold,
        ),
    ]
}

/// The rows: (label, value, style of the value), as the trace counts them.
pub fn rows(app: &App) -> Vec<(String, String, Style)> {
    let t = &app.theme;
    let tr = &app.trace();
    let c = tr.counters();
    let bold = t.text.add_modifier(Modifier::BOLD);
    // Events the run has read (a parallel run's roll back with a crash); while a restored run
    // reads again what it had read before, the replay's mark says so (the count is still the
    // events read: how many of them are read again, the crash report says).
    let label = if tr.is_replaying() {
        format!("arrived {}", glyph::REPLAYED)
    } else {
        "arrived".into()
    };
    let mut rows = vec![(
        label,
        format!("{} / {}", c.events, app.scenario().len()),
        bold,
    )];
    rows.extend(fate_rows(app, &c));
    // A single processor counts its windows and their cells; a parallel run its cells, over
    // its operators.
    let cells = tr.open_cells();
    let open = match tr.open_windows() {
        Some(windows) => ("windows open".into(), format!("{windows}  ({cells} cells)")),
        None => (
            "cells open".into(),
            format!("{cells}  ({} operators)", tr.operators().unwrap_or(0)),
        ),
    };
    rows.extend([
        (open.0, open.1, bold),
        ("state".into(), StateCost::bytes(tr.state_bytes()), bold),
    ]);
    // Rows of the input file that were skipped as bad: a count for the whole file.
    if app.scenario().skipped_rows > 0 {
        rows.push((
            "skipped rows".into(),
            format!("{} in the file", app.scenario().skipped_rows),
            t.text,
        ));
    }
    rows
}

/// The panel's title: the counters stop at the playhead ("so far"); with sliding windows an
/// event counts once per window it falls in, so the fates count placements.
pub fn title(app: &App, width: u16) -> &'static str {
    if app.dials().window.places_once() {
        " Counters · so far "
    } else if width >= 32 {
        " Counters · placements so far "
    } else {
        " Placements so far "
    }
}

/// The rows as lines for an inner area `width` × `height`: one row per counter, each value
/// right-aligned; when fewer rows fit, the same numbers condensed into fewer lines.
pub fn lines(app: &App, width: u16, height: u16) -> Vec<Line<'static>> {
    let t = &app.theme;
    let w = usize::from(width);
    let rows = rows(app);
    if usize::from(height) < rows.len() {
        return condensed(app, &rows, width);
    }
    rows.into_iter()
        .map(|(label, value, style)| {
            // A space between label and value at least: drop the value's detail if needed.
            let value = if label.chars().count() + value.chars().count() + 1 > w {
                value.split("  (").next().unwrap_or_default().to_string()
            } else {
                value
            };
            let pad = w
                .saturating_sub(label.chars().count() + value.chars().count())
                .max(1);
            Line::from(vec![
                Span::styled(label, t.text),
                Span::raw(" ".repeat(pad)),
                Span::styled(value, style),
            ])
        })
        .collect()
}

/// The counters in as few lines as will do: the first row, the three fates on one line, then
/// the rest as label and value.
fn condensed(app: &App, rows: &[(String, String, Style)], width: u16) -> Vec<Line<'static>> {
    let t = &app.theme;
    let mut v = Vec::new();
    if let Some((label, value, style)) = rows.first() {
        v.push(Line::from(vec![
            Span::styled(format!("{label} "), t.text),
            Span::styled(value.clone(), *style),
        ]));
    }
    let fates: Vec<Span<'static>> = rows
        .iter()
        .skip(1)
        .take(3)
        .enumerate()
        .flat_map(|(i, (label, value, style))| {
            let glyph: String = label.chars().take(1).collect();
            let sep = if i == 0 { "" } else { "  " };
            [
                Span::styled(format!("{sep}{glyph} "), t.text),
                Span::styled(value.clone(), *style),
            ]
        })
        .collect();
    v.push(Line::from(fates));
    for (label, value, style) in rows.iter().skip(4) {
        let line = Line::from(vec![
            Span::styled(format!("{label} "), t.text),
            Span::styled(value.clone(), *style),
        ]);
        let short = Line::from(vec![
            Span::styled(format!("{label} "), t.text),
            Span::styled(
                value.split("  (").next().unwrap_or_default().to_string(),
                *style,
            ),
        ]);
        v.push(super::fit(width, vec![line, short]));
    }
    v
}

/// Draws the counters panel into `area`: one right-aligned row per counter, condensed into
/// fewer lines when the panel is short; with two rows or more to spare, the state over time
/// under them.
pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.border)
        .title(Span::styled(title(app, area.width), t.title));
    let inner = block.inner(area);
    block.render(area, buf);
    let lines = lines(app, inner.width, inner.height);
    let n = (lines.len() as u16).min(inner.height);
    super::text::lines(buf, inner, lines);
    if inner.height >= n + 2 {
        let chart = Rect {
            y: inner.y + n,
            height: inner.height - n,
            ..inner
        };
        super::state::render(app, chart, buf);
    }
}
