//! The watermark panel: processing time now, the watermark now, the gap between them with its
//! history as a sparkline, the watermark kind, and whether the simulation is playing (or a
//! restored job replaying). The watermark is the trace's (the job's: the smallest of its
//! operators'). The sparkline's scale is
//! a round number of seconds just above the largest gap it shows, and it says so ("gap
//! 0–30s"), so its bars are in proportion however tall the panel is.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Sparkline, Widget};

use crate::engine::lateness::secs;

use super::super::app::App;
use super::super::geometry::Mode;

/// Round full scales for the gap's sparkline, s; beyond the last, whole multiples of it.
const SCALES_S: [u64; 14] = [1, 2, 5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300, 600];

/// The sparkline's full scale for a largest gap of `max` s: the first round number with a
/// fifth of headroom above it, so the tallest bar stands clear of the top.
pub fn gap_scale(max: u64) -> u64 {
    let want = max + max.div_ceil(5);
    let last = SCALES_S[SCALES_S.len() - 1];
    SCALES_S
        .iter()
        .copied()
        .find(|&s| s >= want)
        .unwrap_or_else(|| want.div_ceil(last).saturating_mul(last))
}

/// "▶ playing 10×", "⏸ paused 10×" or "■ end of input".
pub fn status(app: &App) -> String {
    let speed = format!("{}×", app.dials.speed);
    if app.playhead.finished {
        "■ end of input".to_string()
    } else if app.trace.is_replaying() {
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

/// The watermark now: the run's.
pub fn watermark_now(app: &App) -> f64 {
    app.trace.watermark()
}

fn gap(app: &App) -> String {
    let wm = watermark_now(app);
    if wm.is_infinite() {
        "—".to_string()
    } else {
        secs(app.playhead.now - wm)
    }
}

/// After a crash, while processing time is back before the crash: the crash's time (the job
/// replays from its checkpoint, so its clock went back).
pub fn rewound_from(app: &App) -> Option<f64> {
    let c = app.trace.last_crash()?;
    (app.playhead.now < c.time).then_some(c.time)
}

/// The panel's text lines for an inner area `width` columns wide.
pub fn lines(app: &App, width: u16, mode: Mode) -> Vec<Line<'static>> {
    let t = &app.theme;
    let wm = watermark_now(app);
    let kind = app.dials.watermark();
    let now = secs(app.playhead.now);
    let fit = |v: Vec<Line<'static>>| super::fit(width, v);
    let rewound = rewound_from(app).map(secs);
    match mode {
        Mode::Full => {
            let mut v = vec![Line::from(Span::styled(status(app), t.key))];
            v.push(match &rewound {
                Some(from) => fit(vec![
                    Line::from(vec![
                        Span::styled("now        ", t.dim),
                        Span::styled(now.clone(), t.text),
                        Span::styled(format!("  ↺ back from {from}"), t.policy),
                    ]),
                    Line::from(vec![
                        Span::styled("now ", t.dim),
                        Span::styled(now.clone(), t.text),
                        Span::styled(format!(" ↺ back from {from}"), t.policy),
                    ]),
                ]),
                None => fit(vec![
                    Line::from(vec![
                        Span::styled("now        ", t.dim),
                        Span::styled(now.clone(), t.text),
                        Span::styled("  processing time", t.dim),
                    ]),
                    Line::from(vec![
                        Span::styled("now        ", t.dim),
                        Span::styled(now.clone(), t.text),
                    ]),
                ]),
            });
            v.push(fit(vec![
                Line::from(vec![
                    Span::styled("watermark  ", t.dim),
                    Span::styled(secs(wm), t.watermark),
                    Span::styled(format!("  {kind}"), t.dim),
                ]),
                Line::from(vec![
                    Span::styled("watermark  ", t.dim),
                    Span::styled(secs(wm), t.watermark),
                    Span::styled(format!("  {}", kind.family()), t.dim),
                ]),
            ]));
            v.push(Line::from(vec![
                Span::styled("gap        ", t.dim),
                Span::styled(gap(app), t.text),
            ]));
            v
        }
        Mode::Compact => {
            let first = match &rewound {
                Some(from) => fit(vec![
                    Line::from(vec![
                        Span::styled(status(app), t.key),
                        Span::styled(" now ", t.dim),
                        Span::styled(now.clone(), t.text),
                        Span::styled(format!(" ↺ back from {from}"), t.policy),
                    ]),
                    Line::from(vec![
                        Span::styled("now ", t.dim),
                        Span::styled(now.clone(), t.text),
                        Span::styled(format!(" ↺ back from {from}"), t.policy),
                    ]),
                    Line::from(vec![
                        Span::styled(now.clone(), t.text),
                        Span::styled(format!(" ↺ back from {from}"), t.policy),
                    ]),
                ]),
                None => fit(vec![
                    Line::from(vec![
                        Span::styled(status(app), t.key),
                        Span::styled(" now ", t.dim),
                        Span::styled(now.clone(), t.text),
                    ]),
                    Line::from(vec![
                        Span::styled(status(app), t.key),
                        Span::styled(" ", t.dim),
                        Span::styled(now.clone(), t.text),
                    ]),
                ]),
            };
            let second = |kind: String| {
                let mut spans = vec![
                    Span::styled("wm ", t.dim),
                    Span::styled(secs(wm), t.watermark),
                    Span::styled(" gap ", t.dim),
                    Span::styled(gap(app), t.text),
                ];
                if !kind.is_empty() {
                    spans.push(Span::styled(format!(" {kind}"), t.dim));
                }
                Line::from(spans)
            };
            vec![
                first,
                fit(vec![
                    second(kind.to_string()),
                    second(kind.family().to_string()),
                    second(String::new()),
                ]),
            ]
        }
    }
}

/// Draws the watermark panel into `area`, and with rows to spare the gap's history as a
/// sparkline under its scale.
pub fn render(app: &App, area: Rect, buf: &mut Buffer, mode: Mode) {
    let t = &app.theme;
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.border)
        .title(Span::styled(" Watermark ", t.title));
    let inner = block.inner(area);
    block.render(area, buf);
    // The compact form only when the rows are short: with room, one quantity per line.
    let mode = if inner.height >= 6 { Mode::Full } else { mode };
    let lines = lines(app, inner.width, mode);
    let n = (lines.len() as u16).min(inner.height);
    super::text::lines(buf, inner, lines);
    // Rows left over show the gap's history (in the compact layout too, when it has them),
    // under its scale; a single row has the scale on its left. Nothing before the first
    // arrival, when there is no gap to scale.
    if inner.height > n && app.playhead.arrived > 0 {
        let mut spark = Rect {
            y: inner.y + n,
            height: inner.height - n,
            ..inner
        };
        let probe = gap_history(app, spark.width as usize);
        let top = gap_scale(probe.iter().copied().max().unwrap_or(0));
        let label = |long: bool| {
            if long {
                format!("gap history, 0–{top}s")
            } else {
                format!("gap 0–{top}s ")
            }
        };
        if spark.height >= 2 {
            let long = label(true);
            let s = if long.chars().count() <= usize::from(spark.width) {
                long
            } else {
                label(false).trim_end().to_string()
            };
            super::text::string(buf, spark.x, spark.y, s, spark.width, t.dim);
            spark.y += 1;
            spark.height -= 1;
        } else {
            let s = label(false);
            let w = (s.chars().count() as u16).min(spark.width);
            if w + 8 <= spark.width {
                super::text::string(buf, spark.x, spark.y, s, w, t.dim);
                spark.x += w;
                spark.width -= w;
            }
        }
        let data = gap_history(app, spark.width as usize);
        Sparkline::default()
            .data(&data)
            .max(top)
            .style(t.watermark)
            .render(spark, buf);
    }
}

/// The gap (processing time − watermark, whole seconds) sampled at `n` evenly spaced points of
/// the watermark's history (a single run's arrivals, a parallel run's samples).
pub fn gap_history(app: &App, n: usize) -> Vec<u64> {
    let history = app.trace.watermark_history();
    let m = history.len();
    if m == 0 || n == 0 {
        return Vec::new();
    }
    (0..n.min(m))
        .map(|i| {
            let j = ((i + 1) * m / n.min(m)).saturating_sub(1).min(m - 1);
            let (t, wm) = history.get(j).unwrap_or((0.0, 0.0));
            let g = (t - wm) / 1000.0;
            if g.is_finite() && g > 0.0 {
                g.round() as u64
            } else {
                0
            }
        })
        .collect()
}
