//! The frontier panel: events lost against emit delay (lag + grace) for the 13 × 13 lag/grace
//! sweep, its lower envelope (the best loss each delay can buy), the three policies labelled
//! D(ashboard), A(lerting), B(illing), the point the advisor gives for 99.9% accuracy ✦ (the
//! app computes it with the sweep), and the current dial setting ◉. The sweep is cached per
//! (window, watermark family); only the current point changes with the dials. A click on a
//! point adopts its lag and grace (the chart's geometry, [`ChartFrame`], is the mouse's too).
//! The global window without a TTL never ends: nothing is late, and the panel says so instead
//! of a chart of one point.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget, Wrap};

use twoclocks_engine::advice::Request;
use twoclocks_engine::duration::Duration;

use crate::app::App;
use crate::geometry::frontier::{legend_h, ChartFrame};
use crate::theme::glyph;

/// Draws the frontier panel into `area`: the chart of the sweep, its envelope, the policies
/// and the current setting, the legend under it.
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
        y: inner.bottom().saturating_sub(legend_h(area)),
        height: legend_h(area).min(inner.height),
        ..inner
    };
    // The global window without a TTL never ends: a flat frontier, said in words.
    let flat = app
        .frontier()
        .flatten()
        .is_some_and(|f| f.window.is_global() && f.window.ttl().is_none());
    // Short of rows, the legend is the policies' line alone.
    let mut lines = if legend.height >= 3 {
        super::dials::frontier_summary(app, legend.width)
    } else {
        Vec::new()
    };
    let advised_style = t.late.add_modifier(Modifier::BOLD);
    let policies = || {
        vec![
            Span::styled("D", t.policy),
            Span::styled(" dashboard ", t.dim),
            Span::styled("A", t.policy),
            Span::styled(" alerting ", t.dim),
            Span::styled("B", t.policy),
            Span::styled(" billing", t.dim),
        ]
    };
    // A wall-clock log's sweep has no policies (theirs are the classroom's seconds).
    let wall = app.clock().is_wall();
    let policies = || if wall { Vec::new() } else { policies() };
    let with_advised = |words: &str| {
        let mut spans = policies();
        spans.push(Span::styled(format!(" {}", glyph::ADVISED), advised_style));
        spans.push(Span::styled(words.to_string(), t.dim));
        Line::from(spans)
    };
    let target = Request::DEFAULT_TARGET;
    lines.extend((!flat).then(|| {
        super::fit(
            legend.width,
            vec![
                with_advised(&format!(" advised for {target}%")),
                with_advised(" advised"),
                Line::from(if wall {
                    vec![
                        Span::styled(glyph::ADVISED.to_string(), advised_style),
                        Span::styled(" advised", t.dim),
                    ]
                } else {
                    vec![
                        Span::styled("D", t.policy),
                        Span::styled(" dash ", t.dim),
                        Span::styled("A", t.policy),
                        Span::styled(" alert ", t.dim),
                        Span::styled("B", t.policy),
                        Span::styled(" billing ", t.dim),
                        Span::styled(glyph::ADVISED.to_string(), advised_style),
                        Span::styled(" advised", t.dim),
                    ]
                }),
                Line::from(policies()),
            ],
        )
    }));
    super::text::lines(buf, legend, lines);
    let frontier = match app.frontier() {
        None => {
            let msg = if app.input_open() {
                "the sweep runs once the input ends".to_string()
            } else {
                "sweeping 13 lags × 13 graces…".to_string()
            };
            super::text::string(buf, inner.x, inner.y, msg, inner.width, t.dim);
            return;
        }
        Some(None) => {
            let msg = format!(
                "{} watermark: no lag to sweep",
                app.dials().watermark().family()
            );
            super::text::string(buf, inner.x, inner.y, msg, inner.width, t.dim);
            return;
        }
        Some(Some(f)) => f,
    };
    if flat {
        // One window per key that never ends: no event is ever late, every point is the same.
        let text = "global window: it never ends, so no event is late and every lag and grace \
                    loses nothing (the frontier is one point). [ ] picks a window that ends.";
        let above = Rect {
            height: legend.y.saturating_sub(inner.y),
            ..inner
        };
        Paragraph::new(text)
            .style(t.dim)
            .wrap(Wrap { trim: true })
            .render(above, buf);
        return;
    }
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
    if let Some(p) = app.advised() {
        set(f.place(p), glyph::ADVISED, advised_style);
    }
    if let Some(p) = &app.score() {
        set(f.place(p), glyph::CURRENT, t.current);
    }
    let c = f.chart;
    // What the two kinds of point are, in the chart's top right corner when nothing is drawn
    // there (the most a setting loses is at the shortest delays, on the left).
    let key = format!("{} best  {} swept", glyph::ENVELOPE, glyph::SWEEP);
    let n = key.chars().count() as u16;
    if c.width > n + 6 {
        let x = c.right() - n;
        let clear =
            (x..c.right()).all(|col| buf.cell((col, c.y)).is_none_or(|cell| cell.symbol() == " "));
        if clear {
            buf.set_stringn(x, c.y, key, usize::from(n), t.dim);
        }
    }
    buf.set_stringn(inner.x, c.y, format!("{:>4}", f.y_max as i64), 4, t.dim);
    buf.set_stringn(inner.x, c.bottom() - 1, "   0", 4, t.dim);
    let axis_y = c.bottom();
    if axis_y < legend.y {
        let zero = if app.clock().is_wall() { "0" } else { "0s" };
        buf.set_stringn(c.x, axis_y, zero, 2, t.dim);
        let right = if app.clock().is_wall() {
            crate::view::duration(app.clock(), f.x_max)
        } else {
            Duration::short(f.x_max)
        };
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
