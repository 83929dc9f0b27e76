//! The inspected event's inequality on the plot, and a predict step's event on its way: the
//! event's window up to its end, how far past grace the watermark was, the grace band and the
//! watermark at arrival, on the event's row, with their numbers beside them; the `?` where the
//! event a tour's question asks about will land, or over the window whose next pane it asks
//! about, with the words `next pane`.

use ratatui::buffer::Buffer;
use ratatui::style::{Modifier, Style};

use super::grid::{put, Mark};
use crate::app::Run;
use crate::geometry::plot::PlotFrame;
use crate::lesson::predict::Question;
use crate::theme::glyph;
use twoclocks_engine::clock::Fit;
use twoclocks_engine::Fate;

/// The inspected event's inequality, when it was late or dropped.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Inequality {
    pub(super) fate: Fate,
    /// The event's processing time (its row) and event time.
    at: (f64, f64),
    /// The end of the window it was late or dropped in.
    end: f64,
    /// The watermark when it arrived.
    watermark: f64,
    grace: f64,
}

/// A predict step's question on the plot until the room has voted, reversed so the back of
/// the room finds it: the event on its way, `?` where it will land; a pane question's window,
/// a dashed bar over the part of it the plot shows on the playhead's row (no event is drawn
/// there: it is the window's span, as a pane's bar is) with `? next pane` on it, so the mark is
/// not taken for an event.
pub(super) fn asked(app: &Run, f: &PlotFrame, buf: &mut Buffer) {
    let style = app
        .theme
        .title
        .add_modifier(Modifier::BOLD | Modifier::REVERSED);
    match app.voting() {
        Some(Question::Fate { event, .. }) => {
            if let (Some(c), Some(r)) = (f.col(event.event_time), f.row(event.proc_time)) {
                buf.set_stringn(
                    f.inner.x + c,
                    f.inner.y + r,
                    glyph::ASKED.to_string(),
                    1,
                    style,
                );
            }
        }
        Some(q @ Question::Pane { .. }) => {
            if let Some(c) = q.one_cell() {
                next_pane(app, f, buf, (c.window.start(), c.window.end()), style);
            }
        }
        None => {}
    }
}

/// The word beside a pane question's `?`.
pub const NEXT_PANE: &str = " next pane";

/// A pane question's window `(start, end)` on the playhead's row: `╌` over the columns of it
/// the plot shows, and `? next pane` from its middle (moved left to fit the plot), each cell
/// drawn only where the plot has nothing but the playhead's line.
fn next_pane(app: &Run, f: &PlotFrame, buf: &mut Buffer, (start, end): (f64, f64), asked: Style) {
    let Some(r) = f.row(app.playhead().now) else {
        return;
    };
    if end <= f.x.0 || start >= f.x.1 {
        return;
    }
    let last = f.inner.width.saturating_sub(1);
    let c0 = f.col(start.max(f.x.0)).unwrap_or(0);
    // The last column the window covers (its end is the next window's start).
    let c1 = f.col(end - f.cell_size().0 / 2.0).unwrap_or(last).max(c0);
    let y = f.inner.y + r;
    // Nothing drawn there but the playhead's line (or this bar).
    let free = |buf: &Buffer, c: u16| {
        buf.cell((f.inner.x + c, y))
            .is_none_or(|cell| matches!(cell.symbol(), " " | "┈" | "╌"))
    };
    let bar = app.theme.title;
    for c in c0..=c1 {
        if free(buf, c) {
            buf.set_stringn(f.inner.x + c, y, "╌", 1, bar);
        }
    }
    let word = NEXT_PANE.chars().count() as u16;
    let at = ((c0 + c1) / 2).min(f.inner.width.saturating_sub(1 + word));
    let label = std::iter::once((glyph::ASKED, asked)).chain(NEXT_PANE.chars().map(|ch| (ch, bar)));
    for (i, (ch, style)) in label.enumerate() {
        let c = at + i as u16;
        if c <= last && free(buf, c) {
            buf.set_stringn(f.inner.x + c, y, ch.to_string(), 1, style);
        }
    }
}

/// The inspected event and, when it was late or dropped, its inequality on its row: the
/// window from the event to its end (┄ then ┃), past grace (─), the grace band (░) and the
/// watermark at arrival (┃). Returns the inequality drawn, if any.
pub(super) fn inspected(app: &Run, f: &PlotFrame, grid: &mut [Mark]) -> Option<Inequality> {
    let w = f.inner.width as usize;
    let i = app.selection.inspected?;
    let why = app.trace().inspect(i)?;
    let e = why.event;
    let (c, r) = (f.col(e.event_time)?, f.row(e.proc_time)?);
    put(grid, w, c, r, Mark::Inspected);
    if why.fate == Fate::OnTime {
        return None;
    }
    // The window the event met its (worst) fate in.
    let wf = app.trace().config().window;
    let (win, _) = why.windows.iter().find(|x| x.1 == why.fate)?;
    let q = Inequality {
        fate: why.fate,
        at: (e.proc_time, e.event_time),
        end: wf.end(*win),
        watermark: why.watermark,
        grace: why.grace,
    };
    // Columns clamped to the plot (the watermark may be off its right edge at the end).
    let last = f.inner.width.saturating_sub(1);
    let clamp = |x: f64| -> u16 {
        if x < f.x.0 {
            0
        } else {
            f.col(x).unwrap_or(last)
        }
    };
    let (c_end, c_wm) = (clamp(q.end), clamp(q.watermark));
    let c_threshold = clamp(q.watermark - q.grace);
    for x in c + 1..c_end {
        put(grid, w, x, r, Mark::InspectedWindow);
    }
    for x in c_end..c_threshold {
        put(grid, w, x, r, Mark::PastGrace);
    }
    for x in c_threshold..c_wm {
        put(grid, w, x, r, Mark::GraceBand);
    }
    if f.col(q.end).is_some() {
        for y in 0..f.inner.height {
            put(grid, w, c_end, y, Mark::WindowEnd);
        }
    }
    put(grid, w, c_wm, r, Mark::AtArrival);
    put(grid, w, c, r, Mark::Inspected);
    Some(q)
}

/// The inequality's numbers beside its marks: the window's end on the row above the event's
/// (below at the top), left of the end's line; the watermark at arrival and the grace right of
/// the watermark's mark on the event's row. When that has no room, the whole inequality goes
/// on the other row, ending at the watermark's mark.
pub(super) fn inequality_labels(app: &Run, q: &Inequality, f: &PlotFrame, buf: &mut Buffer) {
    let t = &app.theme;
    let Some(r) = f.row(q.at.0) else {
        return;
    };
    let y = f.inner.y + r;
    let (left, right) = (f.inner.x, f.inner.right());
    let last = f.inner.width.saturating_sub(1);
    let col = |x: f64| {
        left + if x < f.x.0 {
            0
        } else {
            f.col(x).unwrap_or(last)
        }
    };
    let other = if r > 0 { y - 1 } else { y + 1 };
    let grace = if q.grace.is_infinite() {
        "∞".to_string()
    } else {
        crate::view::duration(app.clock(), q.grace)
    };
    // Times of day on a wall clock: the date is the plot's title's.
    let secs = |ms: f64| app.clock().at_fit(ms, Fit::Time);
    let wm = format!(" wm {}, grace {grace} ", secs(q.watermark));
    let end = format!(" end {} ", secs(q.end));
    let width = |s: &str| s.chars().count() as u16;
    // Written over the plot's marks: none of their modifiers (a dim window edge) may stay.
    let mut put = |x: u16, y: u16, s: &str, style: Style| {
        if y < f.inner.bottom() && x < right {
            let style = style.remove_modifier(Modifier::DIM);
            buf.set_stringn(x, y, s, usize::from(right - x), style);
        }
    };
    let (cw, ce) = (col(q.watermark), col(q.end));
    if cw + 1 + width(&wm) <= right {
        put(cw + 1, y, &wm, t.watermark);
        let x = if ce >= left + width(&end) {
            ce - width(&end)
        } else {
            ce + 1
        };
        put(x, other, &end, t.fate(q.fate));
    } else {
        let both = match q.fate {
            Fate::Late => format!(
                " end {} within grace {grace} of wm {} ",
                secs(q.end),
                secs(q.watermark)
            ),
            _ => format!(
                " end {} ≤ wm {} − grace {grace} ",
                secs(q.end),
                secs(q.watermark)
            ),
        };
        let n = width(&both);
        let x = (cw + 1).saturating_sub(n).max(left);
        put(x, other, &both, t.fate(q.fate));
    }
}
