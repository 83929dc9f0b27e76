//! The frontier panel: events lost against emit delay (lag + grace) for the 13 × 13 lag/grace
//! sweep, its lower envelope (the best loss each delay can buy), the three policies labelled
//! D(ashboard), A(lerting), B(illing), and the current dial setting ◉. The sweep is cached per
//! (window, watermark family); only the current point changes with the dials. A click on a
//! point adopts its lag and grace ([`hit`] shares the drawing's geometry).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use crate::engine::frontier::{Frontier, FrontierPoint};
use crate::engine::window::fmt_ms;

use super::super::app::App;
use super::super::theme::glyph;

/// Lines under the chart: the current setting (two) and the policies' letters (one).
const LEGEND_H: u16 = 3;

/// Where the chart's points go.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChartFrame {
    pub chart: Rect,
    pub x_max: f64,
    pub y_max: f64,
}

impl ChartFrame {
    /// The chart inside the frontier panel at `area`, scaled to `frontier`'s points.
    pub fn of(area: Rect, frontier: &Frontier) -> Option<ChartFrame> {
        let inner = Block::default().borders(Borders::ALL).inner(area);
        let chart_h = inner.height.saturating_sub(LEGEND_H + 1);
        if chart_h < 3 || inner.width < 12 {
            return None;
        }
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
        Some(ChartFrame {
            chart: Rect {
                x: inner.x + 5,
                y: inner.y,
                width: inner.width - 5,
                height: chart_h,
            },
            x_max,
            y_max,
        })
    }

    /// The screen cell of a point (clamped to the chart's edges).
    pub fn place(&self, p: &FrontierPoint) -> Option<(u16, u16)> {
        if !p.emit_delay.is_finite() {
            return None;
        }
        let c = self.chart;
        let w = f64::from(c.width - 1);
        let h = f64::from(c.height - 1);
        let cx = (p.emit_delay / self.x_max * w).round().clamp(0.0, w);
        let lost = (p.score.events_lost.max(0) as f64).min(self.y_max);
        let cy = (lost / self.y_max * h).round().clamp(0.0, h);
        Some((c.x + cx as u16, c.bottom() - 1 - cy as u16))
    }
}

/// The sweep point or policy drawn nearest a click on the chart (within two cells): its
/// (lag, grace).
pub fn hit(app: &App, area: Rect, col: u16, row: u16) -> Option<(f64, f64)> {
    let frontier = app.frontier()??;
    let f = ChartFrame::of(area, frontier)?;
    let c = f.chart;
    if col < c.x || col >= c.right() || row < c.y || row >= c.bottom() {
        return None;
    }
    // Policies first: drawn on top, they win ties with the sweep points under them.
    frontier
        .policies
        .iter()
        .map(|(_, p)| p)
        .chain(frontier.points.iter())
        .filter_map(|p| {
            let (x, y) = f.place(p)?;
            let d = (i32::from(x) - i32::from(col)).abs() + (i32::from(y) - i32::from(row)).abs();
            (d <= 2).then_some((d, p))
        })
        .min_by_key(|(d, _)| *d)
        .map(|(_, p)| (p.lag, p.grace))
}

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
    let legend = Rect {
        y: inner.bottom().saturating_sub(LEGEND_H),
        height: LEGEND_H.min(inner.height),
        ..inner
    };
    let mut lines = super::dials::frontier_summary(app, legend.width);
    lines.push(Line::from(vec![
        Span::styled("D", t.policy),
        Span::styled(" dashboard ", t.dim),
        Span::styled("A", t.policy),
        Span::styled(" alerting ", t.dim),
        Span::styled("B", t.policy),
        Span::styled(" billing", t.dim),
    ]));
    super::text::lines(buf, legend, lines);
    let frontier = match app.frontier() {
        None => {
            let msg = "sweeping 13 × 13 runs…".to_string();
            super::text::string(buf, inner.x, inner.y, msg, inner.width, t.dim);
            return;
        }
        Some(None) => {
            let msg = format!(
                "{} watermark: no lag to sweep",
                app.dials.watermark().family()
            );
            super::text::string(buf, inner.x, inner.y, msg, inner.width, t.dim);
            return;
        }
        Some(Some(f)) => f,
    };
    let Some(f) = ChartFrame::of(area, frontier) else {
        return;
    };
    let mut set = |xy: Option<(u16, u16)>, g: char, s: Style| {
        if let Some(c) = xy.and_then(|p| buf.cell_mut(p)) {
            c.set_char(g).set_style(s);
        }
    };
    for p in &frontier.points {
        set(f.place(p), glyph::SWEEP, t.dim);
    }
    for p in frontier.envelope() {
        set(f.place(p), glyph::ENVELOPE, t.on_time);
    }
    for ((_, p), letter) in frontier.policies.iter().zip(['D', 'A', 'B']) {
        set(f.place(p), letter, t.policy);
    }
    if let Some(p) = &app.score {
        set(f.place(p), glyph::CURRENT, t.current);
    }
    let c = f.chart;
    buf.set_stringn(inner.x, c.y, format!("{:>4}", f.y_max as i64), 4, t.dim);
    buf.set_stringn(inner.x, c.bottom() - 1, "   0", 4, t.dim);
    let axis_y = c.bottom();
    if axis_y < legend.y {
        buf.set_stringn(c.x, axis_y, "0s", 2, t.dim);
        let right = fmt_ms(f.x_max);
        let n = right.chars().count() as u16;
        buf.set_stringn(
            c.right().saturating_sub(n),
            axis_y,
            right,
            n as usize,
            t.dim,
        );
    }
}
