//! The view: renders a borrowed [`App`] into a frame, one module per panel (job mode adds the
//! topology and sinks panels and the crash report). Below 80×24 it
//! draws only the "terminal too small" message; no size makes it panic.

pub mod counters;
pub mod dials;
pub mod footer;
pub mod frontier;
pub mod help;
pub mod inspect;
pub mod layout;
pub mod plot;
pub mod sinks;
pub mod topology;
pub mod watermark;
pub mod windows;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget, Wrap};
use ratatui::Frame;

use super::app::{App, Overlay};
use layout::{Areas, MIN_SIZE};

/// Draws the whole screen.
pub fn render(app: &App, frame: &mut Frame) {
    let area = frame.area();
    draw(app, area, frame.buffer_mut());
}

/// Draws the whole screen into a buffer covering `area`.
pub fn draw(app: &App, area: Rect, buf: &mut Buffer) {
    app.theme.paint(area, buf);
    let Some(a) = Areas::compute_for((area.width, area.height), app.job.is_some()) else {
        too_small(app, area, buf);
        return;
    };
    let off = |r: Rect| Rect {
        x: r.x.saturating_add(area.x),
        y: r.y.saturating_add(area.y),
        ..r
    };
    plot::render(app, off(a.plot), buf);
    watermark::render(app, off(a.watermark), buf, a.mode);
    counters::render(app, off(a.counters), buf);
    if a.dials.area() > 0 {
        dials::render(app, off(a.dials), buf, a.mode);
    }
    if a.windows.area() > 0 {
        windows::render(app, off(a.windows), buf, a.mode);
    }
    if let Some(r) = a.topology {
        topology::render(app, off(r), buf);
    }
    if let Some(r) = a.sinks {
        sinks::render(app, off(r), buf);
    }
    if let Some(p) = a.panes {
        windows::render_panes(app, off(p), buf);
    }
    if let Some(f) = a.frontier {
        frontier::render(app, off(f), buf);
    }
    footer::render(app, off(a.footer), buf);
    inspect::render(app, off(a.plot), buf);
    sinks::render_crash(app, off(a.plot), buf);
    if app.overlay == Some(Overlay::Help) {
        help::render(app, area, buf);
    }
}

fn too_small(app: &App, area: Rect, buf: &mut Buffer) {
    let msg = format!(
        "terminal too small: need {}×{}, have {}×{}",
        MIN_SIZE.0, MIN_SIZE.1, area.width, area.height
    );
    let y = area.y + area.height.saturating_sub(1) / 2;
    let r = Rect {
        y,
        height: area.bottom().saturating_sub(y),
        ..area
    };
    Paragraph::new(Line::from(msg).centered())
        .style(app.theme.warn)
        .wrap(Wrap { trim: true })
        .render(r, buf);
}
