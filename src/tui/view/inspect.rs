//! The inspector: the picked event (key, both clocks, delay) and, for each of its windows, the
//! engine's sentence that says why it was on time, late or dropped, with the inequality in
//! numbers. Drawn over the bottom of the plot; ← → step to the event before or after.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Widget, Wrap};

use super::super::app::App;
use super::super::theme::Theme;

/// The inspector's text for the inspected event, if any.
pub fn lines(app: &App) -> Option<Vec<Line<'static>>> {
    let t = &app.theme;
    let i = app.selection.inspected?;
    let why = app.timeline.inspect(&app.scenario.stream, i)?;
    let e = why.event;
    let mut v = vec![Line::from(vec![
        Span::styled(
            format!("{} {} ", Theme::fate_glyph(why.fate), why.fate.label()),
            t.fate(why.fate),
        ),
        Span::styled(
            format!(
                "event #{} key {}: event time {}, arrived {} (delay {})",
                i + 1,
                app.scenario.stream.key_name(e.key),
                ms3(e.event_time),
                ms3(e.proc_time),
                ms3(e.delay())
            ),
            t.text,
        ),
    ])];
    for (_, fate, sentence) in why.windows {
        v.push(Line::from(Span::styled(sentence, t.fate(fate))));
    }
    Some(v)
}

pub fn render(app: &App, plot: Rect, buf: &mut Buffer) {
    let Some(lines) = lines(app) else {
        return;
    };
    let t = &app.theme;
    let text_w = usize::from(plot.width.saturating_sub(4)).max(1);
    let rows: usize = lines
        .iter()
        .map(|l| l.width().div_ceil(text_w).max(1))
        .sum();
    let h = (rows as u16 + 2).min(plot.height.saturating_sub(2)).max(3);
    let area = Rect {
        x: plot.x.saturating_add(1),
        y: plot.bottom().saturating_sub(h + 1),
        width: plot.width.saturating_sub(2),
        height: h.min(plot.height),
    };
    if area.width < 4 || area.height < 3 {
        return;
    }
    Clear.render(area, buf);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.border)
        .title(Span::styled(" Inspect · ←→ step · Esc closes ", t.title));
    Paragraph::new(lines)
        .wrap(Wrap { trim: true })
        .block(block)
        .render(area, buf);
}

/// Seconds to the millisecond, so that arrival − event time reads as the delay shown.
fn ms3(ms: f64) -> String {
    format!("{:.3}s", ms / 1000.0)
}
