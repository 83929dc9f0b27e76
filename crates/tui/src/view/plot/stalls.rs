//! The job's watermark stalls on the plot: the rows of processing time in which the combined
//! watermark stood still (a partition cut off), bracketed on both borders and labelled with
//! how long it stood, where the plot's cells leave room.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use twoclocks_engine::trace::Trace;

use super::grid::Mark;
use crate::app::Run;
use crate::geometry::plot::PlotFrame;
use crate::theme::glyph;

/// The rows of processing time in which the job's combined watermark stood still: both
/// borders bracketed (┃, the warning colour) and, where the plot's cells are free, how long
/// it stood, on the band's middle row.
pub(super) fn stalls(app: &Run, area: Rect, f: &PlotFrame, grid: &[Mark], buf: &mut Buffer) {
    let t = &app.theme;
    let w = f.inner.width as usize;
    for s in watermark_stalls(app.trace()) {
        let Some((top, bottom)) = stall_rows(f, s.from, s.until) else {
            continue;
        };
        for r in top..=bottom {
            let y = f.inner.y + r;
            for x in [area.x, area.right().saturating_sub(1)] {
                if let Some(cell) = buf.cell_mut((x, y)) {
                    cell.set_char(glyph::STALL).set_style(t.warn);
                }
            }
        }
        let length = crate::view::duration(app.clock(), s.length());
        // A stall still standing is "still"; one the watermark has left behind "stood".
        let verb = if s.ongoing { "still" } else { "stood" };
        let labels = [
            format!(" watermark {verb} {length} "),
            format!(" wm {verb} {length} "),
            format!(" {verb} {length} "),
        ];
        let mid = top + (bottom - top) / 2;
        let free = |r: u16, from: u16, n: u16| {
            (from..from + n).all(|c| {
                grid.get(usize::from(r) * w + usize::from(c))
                    .is_some_and(|m| m.rank() <= Mark::Playhead.rank())
            })
        };
        // The band's rows from its middle outwards; on each, the first free run of columns.
        let mut rows: Vec<u16> = (top..=bottom).collect();
        rows.sort_by_key(|&r| r.abs_diff(mid));
        'rows: for l in &labels {
            let n = l.chars().count() as u16;
            if n >= f.inner.width {
                continue;
            }
            for &r in &rows {
                if let Some(c) = (0..=f.inner.width - n).find(|&c| free(r, c, n)) {
                    buf.set_stringn(f.inner.x + c, f.inner.y + r, l, usize::from(n), t.warn);
                    break 'rows;
                }
            }
        }
    }
}

/// The plot rows (top, bottom) a stall from `from` to `until` (processing time) covers,
/// clamped to the plot; None when it is wholly off it.
pub fn stall_rows(f: &PlotFrame, from: f64, until: f64) -> Option<(u16, u16)> {
    let (lo, hi) = (from.max(f.y.0), until.min(f.y.1));
    if lo > hi {
        return None;
    }
    let bottom = f.row(lo)?;
    let top = f.row(hi).unwrap_or(0);
    Some((top.min(bottom), bottom))
}

/// A span of processing time in which the job's combined watermark stood still, at least
/// [`Trace::STALL_SHOWN`] (5 s) long.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stall {
    /// When it stopped advancing, processing time, ms.
    pub from: f64,
    /// When it advanced again (or the input ended); the clock now while it still stands.
    pub until: f64,
    /// It still stands at the clock.
    pub ongoing: bool,
}

impl Stall {
    /// How long it stood still, ms.
    pub fn length(&self) -> f64 {
        self.until - self.from
    }
}

/// The spans of processing time, oldest first, in which the job's combined watermark stood
/// still for at least [`Trace::STALL_SHOWN`] (5 s) before the end of input, in the current
/// timeline: those it has ended, then the one it stands in now, up to the clock. Empty for a
/// single run.
pub fn watermark_stalls(trace: &Trace) -> Vec<Stall> {
    let Some(j) = trace.job() else {
        return Vec::new();
    };
    let p = j.pipeline();
    let mut v: Vec<Stall> = p
        .watermark_stalls()
        .iter()
        .filter(|&&(from, until)| until - from >= Trace::STALL_SHOWN)
        .map(|&(from, until)| Stall {
            from,
            until,
            ongoing: false,
        })
        .collect();
    if let Some(since) = p.watermark_stalled_since() {
        let now = j.now();
        if now - since >= Trace::STALL_SHOWN && !j.is_finished() {
            v.push(Stall {
                from: since,
                until: now,
                ongoing: true,
            });
        }
    }
    v
}
