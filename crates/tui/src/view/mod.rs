//! The view: renders a borrowed [`App`] into a frame, one module per panel. Every panel reads the
//! app's one [`twoclocks_engine::trace::Trace`] and draws what it holds (a parallel run's topology,
//! sinks and crash report when it carries them). Below 80×24 it draws only the "terminal too small"
//! message; no size makes it panic. The panels draw their text through [`text`], which can record
//! what each line meant to say and where, so a test can tell a line that fits from one the panel's
//! edge cut off.

pub mod big;
pub mod caption;
pub mod counters;
pub mod dials;
pub mod footer;
pub mod frontier;
pub mod help;
pub mod inspect;
pub mod plot;
pub mod side;
pub mod sinks;
pub mod state;
pub mod topology;
pub mod watermark;
pub mod windows;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget, Wrap};
use ratatui::Frame;

use crate::app::{App, Overlay};
use crate::geometry::{Mode, MIN_SIZE};
use crate::panel::Panel;

/// Draws the whole screen.
pub fn render(app: &App, frame: &mut Frame) {
    let area = frame.area();
    draw(app, area, frame.buffer_mut());
}

/// Draws the whole screen into a buffer covering `area`.
pub fn draw(app: &App, area: Rect, buf: &mut Buffer) {
    app.theme.paint(area, buf);
    let Some(a) = app.areas((area.width, area.height)) else {
        too_small(&app.theme, area, buf);
        return;
    };
    let off = |r: Rect| Rect {
        x: r.x.saturating_add(area.x),
        y: r.y.saturating_add(area.y),
        ..r
    };
    for (panel, r) in a.panels() {
        if app.tour_shows(panel) {
            draw_panel(app, panel, off(r), a.mode, buf);
        } else {
            caption::withheld(app, panel, off(r), buf);
        }
    }
    caption::highlight(app, &a, (area.x, area.y), buf);
    if let Some(names) = &app.big_numbers {
        // `b` alone asks for the figures the tour's step is about, if a step names any.
        let names: &[String] = match app.tour_big_figures() {
            Some(step) if names.is_empty() => step,
            _ => names,
        };
        let figures = big::Figure::chosen(names, app.trace().pipeline_config().is_some());
        // The whole screen above the footer.
        let above = Rect::new(0, 0, area.width, a.footer.y);
        big::render(app, &figures, off(above), buf);
    }
    if app.overlay == Some(Overlay::Help) {
        help::render(app, area, buf);
    }
}

/// Draws one panel of [`Areas::panels`](crate::geometry::Areas::panels) (the plot with
/// what is drawn over it: the inspector and the crash report) into `r`.
pub fn draw_panel(app: &App, panel: Panel, r: Rect, mode: Mode, buf: &mut Buffer) {
    match panel {
        Panel::Plot => {
            plot::render(app, r, buf);
            if app.side.is_some() {
                side::render_title(app, side::Which::A, r, buf);
            }
            inspect::render(&app.run(), r, buf);
            sinks::render_crash(app, r, buf);
        }
        Panel::SideA => side::render_counters(app, side::Which::A, r, buf),
        Panel::SideBPlot => side::render_b_plot(app, r, buf),
        Panel::SideB => side::render_counters(app, side::Which::B, r, buf),
        Panel::Watermark => watermark::render(app, r, buf, mode),
        Panel::Counters => counters::render(app, r, buf),
        Panel::Dials => dials::render(app, r, buf, mode),
        Panel::Windows => windows::render(app, r, buf, mode),
        Panel::Panes => windows::render_panes(app, r, buf),
        Panel::Frontier => frontier::render(app, r, buf),
        Panel::Topology => topology::render(app, r, buf),
        Panel::Sinks => sinks::render(app, r, buf),
        Panel::Footer => footer::render(app, r, buf),
        Panel::Caption => caption::render(app, r, buf),
    }
}

/// Text drawn line by line into an area, and (for the layout tests) a record of it: every line
/// with the one-row area it was given, so a check can compare what a panel meant to write with
/// the room it had.
pub mod text {
    use std::cell::RefCell;

    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    use ratatui::style::Style;
    use ratatui::text::{Line, Span};
    use ratatui::widgets::{Paragraph, Widget};

    /// One line as a panel meant it, and the row it was drawn into.
    #[derive(Debug, Clone, PartialEq)]
    pub struct Drawn {
        /// The one-row area the line was drawn into: its width is the room the line had.
        pub row: Rect,
        /// The line as the panel built it, before the row's edge cut it.
        pub line: Line<'static>,
    }

    thread_local! {
        static LOG: RefCell<Option<Vec<Drawn>>> = const { RefCell::new(None) };
    }

    fn record(area: Rect, lines: &[Line<'static>]) {
        LOG.with(|log| {
            if let Some(log) = log.borrow_mut().as_mut() {
                for (i, line) in lines.iter().enumerate().take(usize::from(area.height)) {
                    log.push(Drawn {
                        row: Rect {
                            y: area.y + i as u16,
                            height: 1,
                            ..area
                        },
                        line: line.clone(),
                    });
                }
            }
        });
    }

    /// Draws `lines` from the top of `area`, one per row (no wrapping).
    pub fn lines(buf: &mut Buffer, area: Rect, lines: Vec<Line<'static>>) {
        record(area, &lines);
        Paragraph::new(lines).render(area, buf);
    }

    /// Draws `s` at (x, y) in at most `width` columns.
    pub fn string(buf: &mut Buffer, x: u16, y: u16, s: String, width: u16, style: Style) {
        let row = Rect::new(x, y, width, 1);
        record(row, &[Line::from(Span::styled(s.clone(), style))]);
        buf.set_stringn(x, y, s, usize::from(width), style);
    }

    /// Runs `f` and returns what it drew through this module.
    pub fn recording<T>(f: impl FnOnce() -> T) -> (T, Vec<Drawn>) {
        LOG.with(|log| *log.borrow_mut() = Some(Vec::new()));
        let out = f();
        let drawn = LOG.with(|log| log.borrow_mut().take()).unwrap_or_default();
        (out, drawn)
    }
}

/// `n` with its noun, singular for one: `1 crash`, `0 crashes`, `2 crashes`.
pub fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The first of `variants` (longest first) that fits in `width` columns, else the last.
pub fn fit(width: u16, variants: Vec<Line<'static>>) -> Line<'static> {
    let n = variants.len();
    variants
        .into_iter()
        .enumerate()
        .find(|(i, l)| l.width() <= usize::from(width) || i + 1 == n)
        .map(|(_, l)| l)
        .unwrap_or_default()
}

/// A duration on `clock` (`20.0s`; `2h 45m`), a wall clock's zero written `0` (where
/// `clock.duration` says `0ms`, a unit finer than any of a log's).
pub fn duration(clock: &twoclocks_engine::Clock, ms: f64) -> String {
    if clock.is_wall() && ms == 0.0 {
        "0".to_string()
    } else {
        clock.duration(ms)
    }
}

/// What a screen below [`MIN_SIZE`] shows instead of its panels: a line saying so.
pub fn too_small(theme: &crate::theme::Theme, area: Rect, buf: &mut Buffer) {
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
        .style(theme.warn)
        .wrap(Wrap { trim: true })
        .render(r, buf);
}
