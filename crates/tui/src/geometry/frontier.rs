//! The frontier chart's geometry: the sweep's points and the policies placed by emit delay
//! (→) and events lost (↑), the legend under them.

use ratatui::layout::Rect;

use super::{inner, inside};
use twoclocks_engine::frontier::{Frontier, FrontierPoint};

/// Lines under the chart: the current setting (two) and the policies' letters (one).
pub const LEGEND_H: u16 = 3;

/// The legend's lines in the panel at `area`: all of [`LEGEND_H`] when the chart keeps at least
/// three rows above them, else the policies' line alone (the dials beside it carry the
/// current setting's summary).
pub fn legend_h(area: Rect) -> u16 {
    if inner(area).height >= LEGEND_H + 4 {
        LEGEND_H
    } else {
        1
    }
}

/// Where the chart's points go.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChartFrame {
    /// The plotting area: inside the panel, right of the axis labels, above the legend.
    pub chart: Rect,
    /// The emit delay at the right edge, ms: the largest finite one of the points and policies,
    /// at least 1.
    pub x_max: f64,
    /// The events lost at the top edge: the most any sweep point loses, at least 1.
    pub y_max: f64,
}

impl ChartFrame {
    /// The chart inside the frontier panel at `area`, scaled to `frontier`'s points.
    pub fn of(area: Rect, frontier: &Frontier) -> Option<ChartFrame> {
        let inner = inner(area);
        let chart_h = inner.height.saturating_sub(legend_h(area) + 1);
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

/// The sweep point or policy of `frontier` drawn nearest a click on the chart in the frontier
/// panel at `area` (within two cells): its (lag, grace).
pub fn hit(frontier: &Frontier, area: Rect, col: u16, row: u16) -> Option<(f64, f64)> {
    let f = ChartFrame::of(area, frontier)?;
    if !inside(f.chart, col, row) {
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
