//! Pane bars: the selected window and key's panes drawn on the plot as in the Dataflow paper's
//! figures. Each pane is a horizontal bar across the event-time extent its window had when it
//! fired, on the row of the processing time it fired at, labelled with its value: early panes
//! `╍`, the on-time pane `▬`, late panes `≈` (and each its own colour, as the panes table has
//! them), so the trigger is seen rather than read from a table. Accumulating, the label is the
//! value so far (`12`); discarding, what the pane adds (`+3`); retracting, what it withdraws and
//! the new value (`−12 +15`).
//!
//! A session's panes span the session as the run had it then (a later pane is wider when the
//! session grew or merged); the global window's span the whole plot. With all keys selected no
//! bar is drawn: the engine fires panes per (window, key), and a sum over keys would be a pane
//! no trigger fired (the panes table likewise asks for one key).
//!
//! In the plot's [`Mark`] order a bar ranks above the window edges, the playhead and sparse
//! on-time cells (so it reads through the diagonal of on-time events it fired in), below
//! crowded on-time cells, the watermark and every late or dropped event, which it never hides.
//! The global window's bars, which span the whole plot, give way to every event. A label goes
//! only where a bar could: right of its bar, else left of it, else inside it, else up to three
//! columns off its right or left end (past an event in the way), else nowhere; and not at all
//! when events cover the whole bar.

use ratatui::buffer::Buffer;
use ratatui::style::Modifier;

use twoclocks_engine::{Accumulation, Pane, Timing};

use super::grid::{put, Mark};
use crate::app::Run;
use crate::geometry::plot::PlotFrame;

/// An early pane's bar: dashed, speculative.
pub const EARLY: char = '╍';
/// The on-time pane's bar: solid.
pub const ON_TIME: char = '▬';
/// A late pane's bar: wavy, a refinement.
pub const LATE: char = '≈';

/// The bar glyph of a pane's timing.
pub fn bar_glyph(t: Timing) -> char {
    match t {
        Timing::Early => EARLY,
        Timing::OnTime => ON_TIME,
        Timing::Late => LATE,
    }
}

/// What a pane's label says under the accumulation mode.
pub fn label(p: &Pane, mode: Accumulation) -> String {
    match (mode, p.retraction) {
        (_, Some(old)) => format!("−{old} +{}", p.value),
        (Accumulation::Discarding, None) => format!("+{}", p.value),
        _ => p.value.to_string(),
    }
}

/// A bar placed on the plot: its row, first and last columns, timing and label.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Bar {
    row: u16,
    cols: (u16, u16),
    timing: Timing,
    label: String,
}

/// Puts the selected cell's pane bars in the grid; returns them, one per row, for [`labels`].
/// Where panes share a row, the on-time pane (one per window: the moment the watermark passed
/// its end) shows and labels it, else the newest pane.
pub(super) fn bars(app: &Run, f: &PlotFrame, grid: &mut [Mark]) -> Vec<Bar> {
    let Some(cell) = app.selected_cell() else {
        return Vec::new();
    };
    let w = usize::from(f.inner.width);
    let last = f.inner.width.saturating_sub(1);
    let mode = app.dials.accumulation;
    let mut out: Vec<Bar> = Vec::new();
    for p in app.trace().cell_panes(cell, app.scenario().oracle.merging) {
        let Some(row) = f.row(p.proc_time) else {
            continue;
        };
        // Off the plot on either side: no bar. Beyond an edge: clamped to it (the global
        // window spans the whole width).
        if p.window_end <= f.x.0 || p.window_start >= f.x.1 {
            continue;
        }
        let c0 = f.col(p.window_start).unwrap_or(0);
        let c1 = f.col(p.window_end).unwrap_or(last);
        for c in c0..=c1.max(c0) {
            // The global window's bars span the whole plot: they give way to every event.
            let i = usize::from(row) * w + usize::from(c);
            if app.scenario().oracle.global && matches!(grid.get(i), Some(Mark::OnTime(_))) {
                continue;
            }
            put(grid, w, c, row, Mark::Pane(p.timing));
        }
        let bar = Bar {
            row,
            cols: (c0, c1.max(c0)),
            timing: p.timing,
            label: label(p, mode),
        };
        match out.last_mut() {
            Some(b) if b.row == row => {
                b.cols = (b.cols.0.min(bar.cols.0), b.cols.1.max(bar.cols.1));
                if b.timing != Timing::OnTime {
                    b.timing = bar.timing;
                    b.label = bar.label;
                }
            }
            _ => out.push(bar),
        }
    }
    out
}

/// A cell a label may be written on: one a bar could cover (nothing there but a window edge,
/// the playhead, sparse on-time events or a pane bar).
fn free(m: Mark) -> bool {
    m.rank() <= Mark::Pane(Timing::OnTime).rank()
}

/// How many columns a label may stand off its bar, past events in the way.
const GAP: u16 = 3;

/// Writes each bar's label where it has room (see the module's doc).
pub(super) fn labels(app: &Run, f: &PlotFrame, grid: &[Mark], bars: &[Bar], buf: &mut Buffer) {
    let w = usize::from(f.inner.width);
    for b in bars {
        let n = b.label.chars().count() as u16;
        let fits = |x: u16| {
            x + n <= f.inner.width
                && (x..x + n).all(|c| {
                    grid.get(usize::from(b.row) * w + usize::from(c))
                        .is_some_and(|&m| free(m))
                })
        };
        let (c0, c1) = b.cols;
        // A bar the events cover whole gets no label: it would name nothing on screen.
        let row = usize::from(b.row) * w;
        let seen = (c0..=c1).any(|c| matches!(grid.get(row + usize::from(c)), Some(Mark::Pane(_))));
        if !seen {
            continue;
        }
        let inside = (c1 - c0 + 1 >= n + 2).then(|| c0 + (c1 - c0 + 1 - n) / 2);
        // Beside the bar, or a few columns off it past an event in the way.
        let right = (1..=GAP + 1).map(|d| Some(c1 + d)).collect::<Vec<_>>();
        let left = (0..=GAP).map(|d| c0.checked_sub(n + d)).collect::<Vec<_>>();
        let at = [right[0], left[0], inside]
            .into_iter()
            .chain(right[1..].iter().copied())
            .chain(left[1..].iter().copied())
            .flatten()
            .find(|&x| fits(x));
        if let Some(x) = at {
            let style = app.theme.timing(b.timing).remove_modifier(Modifier::DIM);
            buf.set_stringn(
                f.inner.x + x,
                f.inner.y + b.row,
                &b.label,
                usize::from(n),
                style,
            );
        }
    }
}
