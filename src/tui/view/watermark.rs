//! The watermark panel: processing time now, the watermark now, the gap between them with its
//! history as a sparkline, the watermark kind, and whether the simulation is playing. In job
//! mode the watermark is the job's (the smallest of its operators').

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Sparkline, Widget};

use crate::engine::lateness::secs;

use super::super::app::App;
use super::layout::Mode;

/// The sparkline's smallest full scale, s (a 20 s gap shows as a low bar, 60 s and more fill it).
const LAG_SCALE_S: u64 = 60;

/// "▶ playing 10×", "⏸ paused 10×" or "■ end of input".
pub fn status(app: &App) -> String {
    let speed = format!("{}×", app.dials.speed);
    if app.playhead.finished {
        "■ end of input".to_string()
    } else if app
        .job
        .as_deref()
        .is_some_and(|j| j.pipeline().is_replaying())
    {
        let verb = if app.playhead.playing {
            "replaying"
        } else {
            "replay paused"
        };
        format!("↺ {verb} {speed}")
    } else if app.playhead.playing {
        format!("▶ playing {speed}")
    } else {
        format!("⏸ paused {speed}")
    }
}

/// The watermark now: the single processor's, or in job mode the job's.
pub fn watermark_now(app: &App) -> f64 {
    match app.job.as_deref() {
        Some(j) => j.watermark(),
        None => app.timeline.watermark(),
    }
}

fn gap(app: &App) -> String {
    let wm = watermark_now(app);
    if wm.is_infinite() {
        "—".to_string()
    } else {
        secs(app.playhead.now - wm)
    }
}

pub fn render(app: &App, area: Rect, buf: &mut Buffer, mode: Mode) {
    let t = &app.theme;
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.border)
        .title(Span::styled(" Watermark ", t.title));
    let inner = block.inner(area);
    block.render(area, buf);
    let wm = watermark_now(app);
    let kind = app.dials.watermark().to_string();
    let lines = match mode {
        Mode::Full => vec![
            Line::from(Span::styled(status(app), t.key)),
            Line::from(vec![
                Span::styled("now        ", t.dim),
                Span::styled(secs(app.playhead.now), t.text),
                Span::styled("  processing time", t.dim),
            ]),
            Line::from(vec![
                Span::styled("watermark  ", t.dim),
                Span::styled(secs(wm), t.watermark),
                Span::styled(format!("  {kind}"), t.dim),
            ]),
            Line::from(vec![
                Span::styled("gap        ", t.dim),
                Span::styled(gap(app), t.text),
            ]),
        ],
        Mode::Compact => vec![
            Line::from(vec![
                Span::styled(status(app), t.key),
                Span::styled(" now ", t.dim),
                Span::styled(secs(app.playhead.now), t.text),
            ]),
            Line::from(vec![
                Span::styled("wm ", t.dim),
                Span::styled(secs(wm), t.watermark),
                Span::styled(" gap ", t.dim),
                Span::styled(gap(app), t.text),
                Span::styled(format!(" {kind}"), t.dim),
            ]),
        ],
    };
    let n = lines.len() as u16;
    super::text::lines(buf, inner, lines);
    if mode == Mode::Full && inner.height > n {
        let spark = Rect {
            y: inner.y + n,
            height: inner.height - n,
            ..inner
        };
        let data = gap_history(app, spark.width as usize);
        // On a fixed scale (at least a minute), so kinds compare at a glance.
        let top = data.iter().copied().max().unwrap_or(0).max(LAG_SCALE_S);
        Sparkline::default()
            .data(&data)
            .max(top)
            .style(t.watermark)
            .render(spark, buf);
    }
}

/// The gap (processing time − watermark, whole seconds) sampled at `n` evenly spaced arrivals.
pub fn gap_history(app: &App, n: usize) -> Vec<u64> {
    if let Some(j) = app.job.as_deref() {
        let wms = j.watermarks();
        let m = wms.len();
        if m == 0 || n == 0 {
            return Vec::new();
        }
        return (0..n.min(m))
            .map(|i| {
                let j = ((i + 1) * m / n.min(m)).saturating_sub(1).min(m - 1);
                let g = (wms[j].0 - wms[j].1) / 1000.0;
                if g.is_finite() && g > 0.0 {
                    g.round() as u64
                } else {
                    0
                }
            })
            .collect();
    }
    let wms = app.timeline.watermarks();
    let events = &app.scenario.stream.events;
    let m = wms.len();
    if m == 0 || n == 0 {
        return Vec::new();
    }
    (0..n.min(m))
        .map(|i| {
            let j = ((i + 1) * m / n.min(m)).saturating_sub(1).min(m - 1);
            let g = (events[j].proc_time - wms[j]) / 1000.0;
            if g.is_finite() && g > 0.0 {
                g.round() as u64
            } else {
                0
            }
        })
        .collect()
}
