//! The frontier panel: events lost against emit delay (lag + grace) for the 13 × 13 lag/grace
//! sweep, its lower envelope (the best loss each delay can buy), the three policies labelled
//! D(ashboard), A(lerting), B(illing), and the current dial setting ◉. The sweep is cached per
//! (window, watermark family); only the current point changes with the dials.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget};

use crate::engine::frontier::FrontierPoint;
use crate::engine::window::fmt_ms;

use super::super::app::App;
use super::super::theme::glyph;

pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.border)
        .title(Line::from(vec![
            Span::styled(" Frontier ", t.title),
            Span::styled("lost ↑ · emit delay → ", t.dim),
        ]));
    let inner = block.inner(area);
    block.render(area, buf);
    if inner.height < 2 || inner.width < 12 {
        return;
    }
    let summary = super::dials::frontier_summary(app);
    let legend_h = summary.len() as u16 + 1;
    let chart_h = inner.height.saturating_sub(legend_h + 1);
    let legend = Rect {
        y: inner.bottom().saturating_sub(legend_h),
        height: legend_h.min(inner.height),
        ..inner
    };
    let mut lines = summary;
    lines.push(Line::from(vec![
        Span::styled("D", t.policy),
        Span::styled(" dashboard ", t.dim),
        Span::styled("A", t.policy),
        Span::styled(" alerting ", t.dim),
        Span::styled("B", t.policy),
        Span::styled(" billing", t.dim),
    ]));
    Paragraph::new(lines).render(legend, buf);
    let frontier = match app.frontier() {
        None => {
            buf.set_stringn(
                inner.x,
                inner.y,
                "sweeping 13 × 13 runs…",
                inner.width as usize,
                t.dim,
            );
            return;
        }
        Some(None) => {
            let msg = format!(
                "{} watermark: no lag to sweep",
                app.dials.watermark().family()
            );
            buf.set_stringn(inner.x, inner.y, msg, inner.width as usize, t.dim);
            return;
        }
        Some(Some(f)) => f,
    };
    if chart_h < 3 {
        return;
    }
    let chart = Rect {
        x: inner.x + 5,
        y: inner.y,
        width: inner.width.saturating_sub(5),
        height: chart_h,
    };
    let x_max = frontier
        .points
        .iter()
        .map(|p| p.emit_delay)
        .chain(frontier.policies.iter().map(|(_, p)| p.emit_delay))
        .filter(|x| x.is_finite())
        .fold(1.0f64, f64::max);
    let y_max = frontier
        .points
        .iter()
        .map(|p| p.score.events_lost as f64)
        .fold(1.0f64, f64::max);
    let place = |p: &FrontierPoint| -> Option<(u16, u16)> {
        if !p.emit_delay.is_finite() {
            return None;
        }
        let cx = (p.emit_delay / x_max * f64::from(chart.width - 1))
            .round()
            .min(f64::from(chart.width - 1));
        let lost = (p.score.events_lost.max(0) as f64).min(y_max);
        let cy = (lost / y_max * f64::from(chart.height - 1)).round();
        Some((chart.x + cx as u16, chart.bottom() - 1 - cy as u16))
    };
    let mut set = |xy: Option<(u16, u16)>, g: char, s: Style| {
        if let Some(c) = xy.and_then(|p| buf.cell_mut(p)) {
            c.set_char(g).set_style(s);
        }
    };
    for p in &frontier.points {
        set(place(p), glyph::SWEEP, t.dim);
    }
    // The lower envelope: the least loss at each emit delay or less.
    let mut sorted: Vec<&FrontierPoint> = frontier.points.iter().collect();
    sorted.sort_by(|a, b| a.emit_delay.total_cmp(&b.emit_delay));
    let mut best = i64::MAX;
    for p in sorted {
        if p.score.events_lost < best {
            best = p.score.events_lost;
            set(place(p), glyph::ENVELOPE, t.on_time);
        }
    }
    for ((_, p), letter) in frontier.policies.iter().zip(['D', 'A', 'B']) {
        set(place(p), letter, t.policy);
    }
    if let Some(p) = &app.score {
        set(place(p), glyph::CURRENT, t.current);
    }
    buf.set_stringn(inner.x, chart.y, format!("{:>4}", y_max as i64), 4, t.dim);
    buf.set_stringn(inner.x, chart.bottom() - 1, "   0", 4, t.dim);
    let axis_y = chart.bottom();
    if axis_y < legend.y {
        buf.set_stringn(chart.x, axis_y, "0s", 2, t.dim);
        let right = fmt_ms(x_max);
        let n = right.chars().count() as u16;
        buf.set_stringn(
            chart.right().saturating_sub(n),
            axis_y,
            right,
            n as usize,
            t.dim,
        );
    }
}
