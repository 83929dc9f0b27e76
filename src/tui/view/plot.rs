//! The two-clocks plot: every arrived event at (event time →, processing time ↑), drawn by its
//! fate (• on time, ◆ late within grace, ✕ dropped); the watermark as a line (━), the ideal
//! watermark event time = processing time as a faint diagonal (╌), window ends (┊, the selected
//! window's edges │) and the playhead (┈ with ▶ on the axis). In job mode the events are those
//! the parallel job's operators took (↺ those taken again in a replay), the watermark is the
//! job's, and the processing-time axis carries completed checkpoints (╾) and crashes (↯).
//! Events are rasterised into one
//! cell each (the worst fate in a cell wins), so a frame costs one pass over the arrived events
//! whatever their number.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use crate::engine::lateness::secs;
use crate::engine::Fate;

use crate::engine::job_timeline::JobTimeline;

use super::super::app::App;
use super::super::theme::{glyph, Theme};

/// The data window of the plot and the cells it is drawn in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlotFrame {
    /// The cells events are drawn in (inside the border and axis labels).
    pub inner: Rect,
    /// Event-time range on x, ms.
    pub x: (f64, f64),
    /// Processing-time range on y, ms (bottom to top).
    pub y: (f64, f64),
}

/// Above this many arrived events, on-time events are drawn from an even sample of this size
/// (a frame then costs a bounded number of memory reads, whatever the input's size).
const ON_TIME_SAMPLES: usize = 40_000;
/// Likewise for late and dropped events (the classroom stream has a few thousand: all drawn).
const EXCEPTION_SAMPLES: usize = 40_000;

/// Columns kept for the processing-time labels on the left.
const Y_LABELS: u16 = 6;

impl PlotFrame {
    /// The frame for the plot drawn in `area` (None if the area has no room for cells).
    pub fn of(app: &App, area: Rect) -> Option<PlotFrame> {
        let inside = Block::default().borders(Borders::ALL).inner(area);
        if inside.width <= Y_LABELS + 1 || inside.height < 3 {
            return None;
        }
        let inner = Rect {
            x: inside.x + Y_LABELS,
            y: inside.y,
            width: inside.width - Y_LABELS,
            height: inside.height - 1,
        };
        let s = &app.scenario;
        Some(PlotFrame {
            inner,
            x: s.event_time,
            y: s.proc_time,
        })
    }

    /// ms per cell on each axis.
    pub fn cell_size(&self) -> (f64, f64) {
        (
            (self.x.1 - self.x.0) / f64::from(self.inner.width.max(1)),
            (self.y.1 - self.y.0) / f64::from(self.inner.height.max(1)),
        )
    }

    /// The column of an event time, if on the plot.
    pub fn col(&self, et: f64) -> Option<u16> {
        let (cw, _) = self.cell_size();
        let c = ((et - self.x.0) / cw).floor();
        (c >= 0.0 && c < f64::from(self.inner.width)).then_some(c as u16)
    }

    /// The row (0 at the top) of a processing time, if on the plot.
    pub fn row(&self, pt: f64) -> Option<u16> {
        let (_, ch) = self.cell_size();
        let r = ((pt - self.y.0) / ch).floor();
        if r.is_nan() || r < 0.0 {
            return None;
        }
        // The very top value belongs to the top row.
        let r = (r as u32).min(u32::from(self.inner.height) - 1) as u16;
        Some(self.inner.height - 1 - r)
    }

    /// The (event time, processing time) at the centre of a screen cell, if inside the plot.
    pub fn to_data(&self, col: u16, row: u16) -> Option<(f64, f64)> {
        let i = self.inner;
        if col < i.x || col >= i.right() || row < i.y || row >= i.bottom() {
            return None;
        }
        let (cw, ch) = self.cell_size();
        let et = self.x.0 + (f64::from(col - i.x) + 0.5) * cw;
        let pt = self.y.0 + (f64::from(i.bottom() - 1 - row) + 0.5) * ch;
        Some((et, pt))
    }
}

/// What a plot cell shows, in drawing priority (later wins).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Mark {
    Empty,
    WindowEdge,
    SelectedEdge,
    Playhead,
    Ideal,
    OnTimeSparse,
    OnTime,
    Watermark,
    Late,
    Dropped,
    Replayed,
    Inspected,
}

fn mark_cell(theme: &Theme, m: Mark) -> Option<(char, Style)> {
    Some(match m {
        Mark::Empty => return None,
        Mark::WindowEdge => (glyph::WINDOW_EDGE, theme.window_edge),
        Mark::SelectedEdge => (glyph::SELECTED_EDGE, theme.selected_window),
        Mark::Playhead => (glyph::PLAYHEAD, theme.playhead),
        Mark::Ideal => (glyph::IDEAL, theme.ideal),
        Mark::OnTimeSparse => (glyph::ON_TIME_SPARSE, theme.on_time),
        Mark::OnTime => (glyph::ON_TIME, theme.on_time),
        Mark::Watermark => (glyph::WATERMARK, theme.watermark),
        Mark::Late => (glyph::LATE, theme.late),
        Mark::Dropped => (glyph::DROPPED, theme.dropped),
        Mark::Replayed => (glyph::REPLAYED, theme.policy),
        Mark::Inspected => ('◎', theme.inspected),
    })
}

/// Draws the plot panel.
pub fn render(app: &App, area: Rect, buf: &mut Buffer) {
    let t = &app.theme;
    let legend = Line::from(vec![
        Span::styled(format!(" {} on time ", glyph::ON_TIME), t.on_time),
        Span::styled(format!("{} late ", glyph::LATE), t.late),
        Span::styled(format!("{} dropped ", glyph::DROPPED), t.dropped),
        Span::styled(format!("{} watermark ", glyph::WATERMARK), t.watermark),
        Span::styled(format!("{} ideal ", glyph::IDEAL), t.dim),
    ]);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.border)
        .title(Line::from(vec![
            Span::styled(" Two clocks ", t.title),
            Span::styled("event time → · processing time ↑ ", t.dim),
        ]))
        .title_bottom(legend);
    block.render(area, buf);
    let Some(f) = PlotFrame::of(app, area) else {
        return;
    };
    let (w, h) = (f.inner.width as usize, f.inner.height as usize);
    let mut grid = vec![Mark::Empty; w * h];
    let mut counts = vec![0u16; w * h];
    let put = |grid: &mut [Mark], c: u16, r: u16, m: Mark| {
        let i = r as usize * w + c as usize;
        if let Some(g) = grid.get_mut(i) {
            if m > *g {
                *g = m;
            }
        }
    };

    // Window ends, the selected window's two edges.
    let wf = app.dials.window;
    let selected = app.scenario.windows.get(app.selection.window).copied();
    // Every window end while they are at least 3 columns apart; every n-th one when denser.
    let every = (app.scenario.windows.len() * 3)
        .div_ceil(usize::from(f.inner.width))
        .max(1);
    for &win in app.scenario.windows.iter().step_by(every) {
        if let Some(c) = f.col(wf.end(win)) {
            for r in 0..f.inner.height {
                put(&mut grid, c, r, Mark::WindowEdge);
            }
        }
    }
    if let Some(win) = selected {
        for x in [wf.start(win), wf.end(win)] {
            if let Some(c) = f.col(x) {
                for r in 0..f.inner.height {
                    put(&mut grid, c, r, Mark::SelectedEdge);
                }
            }
        }
    }

    // The playhead.
    let now_row = f.row(app.playhead.now);
    if let Some(r) = now_row {
        for c in 0..f.inner.width {
            put(&mut grid, c, r, Mark::Playhead);
        }
    }

    // The ideal watermark: event time = processing time.
    let (cw, _) = f.cell_size();
    for c in 0..f.inner.width {
        let x = f.x.0 + (f64::from(c) + 0.5) * cw;
        if x <= app.playhead.now {
            if let Some(r) = f.row(x) {
                put(&mut grid, c, r, Mark::Ideal);
            }
        }
    }

    if let Some(job) = app.job.as_deref() {
        job_layer(app, job, &f, &mut grid, &mut counts);
    } else {
        timeline_layer(app, &f, &mut grid, &mut counts);
    }

    for r in 0..h {
        for c in 0..w {
            if let Some((g, s)) = mark_cell(t, grid[r * w + c]) {
                if let Some(cell) = buf.cell_mut((f.inner.x + c as u16, f.inner.y + r as u16)) {
                    cell.set_char(g).set_style(s);
                }
            }
        }
    }

    // Axis labels: processing time on the left (top, playhead, bottom), event time below.
    let lx = f.inner.x.saturating_sub(Y_LABELS);
    let label = |v: f64| format!("{:>5.0}s", v / 1000.0);
    buf.set_stringn(lx, f.inner.y, label(f.y.1), 6, t.dim);
    buf.set_stringn(lx, f.inner.bottom() - 1, label(f.y.0), 6, t.dim);
    if let Some(job) = app.job.as_deref() {
        // Completed checkpoints and crashes, as ticks on the processing-time axis.
        for ck in job.pipeline().checkpoints() {
            if let Some(r) = f.row(ck.time) {
                buf.set_stringn(
                    lx + 5,
                    f.inner.y + r,
                    glyph::CHECKPOINT.to_string(),
                    1,
                    t.key,
                );
            }
        }
        for crash in job.crashes() {
            if let Some(r) = f.row(crash.time) {
                buf.set_stringn(lx + 4, f.inner.y + r, glyph::CRASH.to_string(), 1, t.warn);
            }
        }
    }
    if let Some(r) = now_row {
        let y = f.inner.y + r;
        if y > f.inner.y && y + 1 < f.inner.bottom() {
            buf.set_stringn(lx, y, label(app.playhead.now), 5, t.playhead);
        }
        buf.set_stringn(lx + 5, y, "▶", 1, t.playhead);
    }
    let by = f.inner.bottom();
    let mut next_free = f.inner.x;
    for &win in app.scenario.windows.iter().step_by(every) {
        let x = wf.end(win);
        if let Some(c) = f.col(x) {
            let s = secs(x).trim_end_matches(".0s").to_string() + "s";
            let cx = f.inner.x + c;
            let start = cx.saturating_sub(s.chars().count() as u16 / 2);
            if start >= next_free && start + (s.chars().count() as u16) <= f.inner.right() {
                buf.set_stringn(start, by, &s, s.chars().count(), t.dim);
                next_free = start + s.chars().count() as u16 + 1;
            }
        }
    }
}

fn put(grid: &mut [Mark], w: usize, c: u16, r: u16, m: Mark) {
    let i = r as usize * w + c as usize;
    if let Some(g) = grid.get_mut(i) {
        if m > *g {
            *g = m;
        }
    }
}

/// The parallel job's layer: the records its operators took, by the fate they met there (↺
/// when taken again in a replay), and the job's watermark.
fn job_layer(app: &App, job: &JobTimeline, f: &PlotFrame, grid: &mut [Mark], counts: &mut [u16]) {
    let w = f.inner.width as usize;
    let (cw, ch) = f.cell_size();
    let n = app.playhead.arrived.min(app.scenario.len());
    let events = &app.scenario.stream.events[..n];
    let fates = job.fates();
    let again = job.deliveries();
    let stride = (events.len() / ON_TIME_SAMPLES).max(1);
    let dense = if stride > 1 { 1 } else { 2 };
    for k in (0..events.len()).step_by(stride) {
        let Some(fate) = fates.get(k).copied().flatten() else {
            continue;
        };
        let e = &events[k];
        let (Some(c), Some(r)) = (f.col(e.event_time), f.row(e.proc_time)) else {
            continue;
        };
        let m = if again.get(k).is_some_and(|&d| d >= 2) {
            Mark::Replayed
        } else {
            match fate {
                Fate::Dropped => Mark::Dropped,
                Fate::Late => Mark::Late,
                Fate::OnTime => {
                    let Some(n) = counts.get_mut(r as usize * w + c as usize) else {
                        continue;
                    };
                    *n = n.saturating_add(1);
                    if *n > dense {
                        Mark::OnTime
                    } else {
                        Mark::OnTimeSparse
                    }
                }
            }
        };
        put(grid, w, c, r, m);
    }
    let wms = job.watermarks();
    let upto = wms.partition_point(|&(t, _)| t <= app.playhead.now);
    let wms = &wms[..upto];
    for c in 0..f.inner.width {
        let x = f.x.0 + (f64::from(c) + 0.5) * cw;
        let i = wms.partition_point(|&(_, wm)| wm < x);
        if let Some(&(t, _)) = wms.get(i) {
            if let Some(r) = f.row(t) {
                put(grid, w, c, r, Mark::Watermark);
            }
        }
    }
    for r in 0..f.inner.height {
        let y = f.y.0 + (f64::from(f.inner.height - 1 - r) + 0.5) * ch;
        if y > app.playhead.now {
            continue;
        }
        let i = wms.partition_point(|&(t, _)| t <= y);
        if let Some(&(_, wm)) = i.checked_sub(1).and_then(|i| wms.get(i)) {
            if let Some(c) = f.col(wm) {
                put(grid, w, c, r, Mark::Watermark);
            }
        }
    }
}

/// The single processor's layer: arrived events by fate, the watermark, the inspected event.
fn timeline_layer(app: &App, f: &PlotFrame, grid: &mut [Mark], counts: &mut [u16]) {
    let w = f.inner.width as usize;
    let (cw, ch) = f.cell_size();
    let put = |grid: &mut [Mark], c: u16, r: u16, m: Mark| put(grid, w, c, r, m);
    // Events by fate.
    let tl = &app.timeline;
    let events = &app.scenario.stream.events[..tl.arrived()];
    // On huge inputs, on-time events and (separately, from the timeline's list) late and
    // dropped ones are drawn from even samples; every cell still gets plenty.
    let fates = tl.fates();
    let stride = (events.len() / ON_TIME_SAMPLES).max(1);
    let dense = if stride > 1 { 1 } else { 2 };
    for k in (0..events.len()).step_by(stride) {
        if fates[k] != Fate::OnTime {
            continue;
        }
        let e = &events[k];
        let (Some(c), Some(r)) = (f.col(e.event_time), f.row(e.proc_time)) else {
            continue;
        };
        if let Some(n) = counts.get_mut(r as usize * w + c as usize) {
            *n = n.saturating_add(1);
            let m = if *n > dense {
                Mark::OnTime
            } else {
                Mark::OnTimeSparse
            };
            put(grid, c, r, m);
        }
    }
    let exceptions = tl.exceptions();
    let stride = (exceptions.len() / EXCEPTION_SAMPLES).max(1);
    for x in exceptions.iter().step_by(stride) {
        let e = &x.event;
        if let (Some(c), Some(r)) = (f.col(e.event_time), f.row(e.proc_time)) {
            let m = if x.fate == Fate::Dropped {
                Mark::Dropped
            } else {
                Mark::Late
            };
            put(grid, c, r, m);
        }
    }

    // The watermark line: per column, where the watermark first reached it; per row, where
    // it stood then (the two passes keep the line unbroken at any slope).
    let wms = tl.watermarks();
    for c in 0..f.inner.width {
        let x = f.x.0 + (f64::from(c) + 0.5) * cw;
        let i = wms.partition_point(|&wm| wm < x);
        if let Some(e) = events.get(i) {
            if let Some(r) = f.row(e.proc_time) {
                put(grid, c, r, Mark::Watermark);
            }
        }
    }
    for r in 0..f.inner.height {
        let y = f.y.0 + (f64::from(f.inner.height - 1 - r) + 0.5) * ch;
        if y > app.playhead.now {
            continue;
        }
        let n = events.partition_point(|e| e.proc_time <= y);
        if let Some(&wm) = n.checked_sub(1).and_then(|i| wms.get(i)) {
            if let Some(c) = f.col(wm) {
                put(grid, c, r, Mark::Watermark);
            }
        }
    }

    // The inspected event.
    if let Some(e) = app.selection.inspected.and_then(|i| events.get(i)) {
        if let (Some(c), Some(r)) = (f.col(e.event_time), f.row(e.proc_time)) {
            put(grid, c, r, Mark::Inspected);
        }
    }
}
