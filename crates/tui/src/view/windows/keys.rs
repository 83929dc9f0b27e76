//! The windows table for the global window: one row per key, its value now against its truth
//! (its events so far, and at the end), the difference, and how many times its state expired
//! under the TTL. A key whose state was reset reads against its truth in the warning colour.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::app::App;
use crate::geometry::windows::first_row;

/// Draws the per-key rows inside `inner` (the table's border is drawn).
pub(super) fn render(app: &App, inner: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let states = app
        .trace()
        .key_states(app.scenario().keys(), &app.scenario().oracle.truth);
    // The truth at the end when there is room for it.
    let wide = inner.width >= 40;
    let mut head = format!("{:<5}{:>6}{:>8}", "key", "value", "so far");
    if wide {
        head.push_str(&format!("{:>8}", "at end"));
    }
    head.push_str(&format!("{:>6}{:>7}", "Δ", "resets"));
    let mut lines = vec![
        Line::from(Span::styled(head, t.dim)),
        Line::from(Span::styled(
            if wide {
                "truth: its events so far · at the end"
            } else {
                "truth: its events so far"
            },
            t.dim,
        )),
    ];
    let n = states.len();
    let room = inner.height.saturating_sub(2) as usize;
    let sel = app.selection.key.map_or(0, |k| k as usize);
    let first = first_row(sel.min(n.saturating_sub(1)), n, room);
    for s in states.iter().skip(first).take(room) {
        let chosen = app.selection.key == Some(s.key);
        let base = if chosen { t.focus } else { t.text };
        let name: String = app
            .scenario()
            .stream
            .key_name(s.key)
            .chars()
            .take(4)
            .collect();
        let diff = s.value - s.truth_so_far;
        let diff_style = if diff == 0 { t.on_time } else { t.dropped };
        let mut spans = vec![
            Span::styled(format!("{name:<5}"), base),
            Span::styled(format!("{:>6}", s.value), base),
            Span::styled(format!("{:>8}", s.truth_so_far), t.dim),
        ];
        if wide {
            spans.push(Span::styled(format!("{:>8}", s.truth_at_end), t.dim));
        }
        spans.push(Span::styled(format!("{diff:>+6}"), diff_style));
        let resets = if s.resets > 0 {
            format!("{:>5} {}", s.resets, crate::view::plot::EXPIRY)
        } else {
            format!("{:>5}", 0)
        };
        spans.push(Span::styled(
            resets,
            if s.resets > 0 { t.warn } else { t.dim },
        ));
        lines.push(Line::from(spans));
    }
    crate::view::text::lines(buf, inner, lines);
}
