//! The state over time: a small chart of the operator state's entries (open cells; a
//! parallel run's over its operators) over processing time so far, under the counters when
//! rows are to spare. During an outage without idleness it climbs (windows pile up unfired);
//! with idleness it stays level. Where keyed state expired under the global window's TTL the
//! column is marked (`▾`, in the dropped colour) and the label says how many keys so far. The
//! scale is a round number of entries just above the largest it shows, and it says so.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::app::App;

/// A column where keyed state expired under the TTL.
pub const EXPIRED: char = '▾';

/// Eighths of a cell, for the chart's bars.
const BARS: [char; 9] = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// A round full scale at or above `max` entries (1, 2, 5 × a power of ten).
pub fn entries_scale(max: usize) -> usize {
    let mut p = 1usize;
    loop {
        for m in [1, 2, 5] {
            let s = p.saturating_mul(m);
            if s >= max || s == usize::MAX {
                return s.max(1);
            }
        }
        p = p.saturating_mul(10);
    }
}

/// The chart's label: what it counts, its scale, and the expirations so far.
fn label(app: &App, top: usize, width: u16) -> Line<'static> {
    let t = &app.theme;
    let expired = app.trace().keys_expired();
    let mark = |long: bool| {
        if expired == 0 {
            Span::raw("")
        } else if long {
            Span::styled(format!("  {EXPIRED} {expired} expired"), t.dropped)
        } else {
            Span::styled(format!(" {EXPIRED}{expired}"), t.dropped)
        }
    };
    super::fit(
        width,
        vec![
            Line::from(vec![
                Span::styled(format!("state so far, 0–{top} entries"), t.dim),
                mark(true),
            ]),
            Line::from(vec![
                Span::styled(format!("state 0–{top} entries"), t.dim),
                mark(true),
            ]),
            Line::from(vec![
                Span::styled(format!("state 0–{top}"), t.dim),
                mark(false),
            ]),
        ],
    )
}

/// Draws the chart into `area` (a label row, then the bars); nothing before the first sample.
pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    if area.height < 2 || area.width < 8 {
        return;
    }
    let t = &app.theme;
    let cols = app
        .trace()
        .state_columns(app.playhead().now, usize::from(area.width));
    if cols.is_empty() {
        return;
    }
    let top = entries_scale(cols.iter().filter_map(|c| c.0).max().unwrap_or(0));
    super::text::lines(
        buf,
        Rect { height: 1, ..area },
        vec![label(app, top, area.width)],
    );
    let rows = usize::from(area.height - 1);
    let bottom = area.bottom() - 1;
    for (k, &(v, expired)) in cols.iter().enumerate() {
        let x = area.x + k as u16;
        // Eighths of the chart's height the bar fills: at least one for any entry.
        let eighths = v.map_or(0, |v| {
            let e = (v as f64 / top as f64 * (rows * 8) as f64).round() as usize;
            if v > 0 {
                e.max(1)
            } else {
                0
            }
        });
        let style = if expired { t.dropped } else { t.watermark };
        for r in 0..rows {
            let fill = eighths.saturating_sub(r * 8).min(8);
            let y = bottom - r as u16;
            let mut g = BARS[fill];
            if expired && r + 1 == rows && fill < 8 {
                g = EXPIRED;
            }
            if let Some(c) = buf.cell_mut((x, y)) {
                c.set_char(g).set_style(style);
            }
        }
    }
}
