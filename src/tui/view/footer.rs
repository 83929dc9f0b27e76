//! The footer: the scenario and the key hints, both from the one keymap table.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::super::app::App;
use super::super::keymap::footer_hints;

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let mut spans = vec![Span::styled(format!(" {} ", app.scenario.name), t.dim)];
    if app.overlay.is_some() {
        spans.push(Span::styled("Esc", t.key));
        spans.push(Span::styled(" close ", t.text));
    } else {
        for (keys, hint) in footer_hints() {
            if !keys.is_empty() {
                spans.push(Span::styled(keys, t.key));
                spans.push(Span::raw(" "));
            }
            spans.push(Span::styled(hint, t.text));
            spans.push(Span::raw("  "));
        }
    }
    Paragraph::new(Line::from(spans)).render(area, buf);
}
