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
        let mut hints: Vec<(&str, &str)> = footer_hints(app.job.is_some()).collect();
        let width = |h: &[(&str, &str)]| -> usize {
            h.iter()
                .map(|(k, d)| {
                    k.chars().count() + usize::from(!k.is_empty()) + d.chars().count() + 2
                })
                .sum()
        };
        let room = usize::from(area.width).saturating_sub(spans[0].width());
        // Drop hints from the end, keeping help and quit, until the rest fits.
        while width(&hints) > room && hints.len() > 2 {
            hints.remove(hints.len() - 3);
        }
        for (keys, hint) in hints {
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
