//! The plot's session lanes and TTL marks. Under the event-time labels, one lane per key shown
//! (every key when they fit, else the selected key and its neighbours): each of the run's
//! sessions so far is a span in event time (`├──┤`), styled by where it stands (open, fired,
//! finalised; the selected session in the selection's colour), and `⊕` marks where an event
//! bridged two sessions or merged into one that had already fired (late data). For the global
//! window, `⊘` on the processing-time axis marks each key's state expiring under the TTL.
//! Everything drawn is what the trace answers; nothing is computed here.

use ratatui::buffer::Buffer;
use ratatui::style::Style;

use twoclocks_engine::timeline::Phase;
use twoclocks_engine::KeyId;

use crate::app::Run;
use crate::geometry::plot::{PlotFrame, Y_LABELS};

/// A session's first column.
pub const SESSION_START: char = '├';
/// A session's columns between its ends.
pub const SESSION_RUN: char = '─';
/// A session's last column.
pub const SESSION_END: char = '┤';
/// A session one column wide.
pub const SESSION_ONE: char = '│';
/// Where an event merged sessions: bridged two, or joined one that had fired.
pub const MERGE: char = '⊕';
/// A key's state expiring under the TTL, on the processing-time axis.
pub const EXPIRY: char = '⊘';

/// The keys the lanes show, top to bottom: every key when they fit, else the selected key
/// (the first when none is) and its neighbours.
pub fn lane_keys(keys: usize, selected: Option<KeyId>, lanes: u16) -> Vec<KeyId> {
    let n = usize::from(lanes).min(keys);
    let sel = selected
        .map_or(0, |k| k as usize)
        .min(keys.saturating_sub(1));
    let first = sel.saturating_sub(n / 2).min(keys - n);
    (first..first + n).map(|k| k as KeyId).collect()
}

/// Draws the lanes of the frame's session rows (nothing when it has none).
pub(super) fn render(app: &Run, f: &PlotFrame, buf: &mut Buffer) {
    if f.lanes.height == 0 {
        return;
    }
    let t = &app.theme;
    let keys = lane_keys(app.scenario().keys(), app.selection.key, f.lanes.height);
    let run = app.trace().run_sessions();
    let selected = app.selected_window();
    let lx = f.lanes.x.saturating_sub(Y_LABELS);
    let last = f.inner.width.saturating_sub(1);
    for (i, &key) in keys.iter().enumerate() {
        let y = f.lanes.y + i as u16;
        let chosen = app.selection.key == Some(key);
        let name: String = app
            .scenario()
            .stream
            .key_name(key)
            .chars()
            .take(4)
            .collect();
        let (label, style) = if chosen {
            (format!("{name:>4}▸"), t.selected_window)
        } else {
            (format!("{name:>4} "), t.dim)
        };
        buf.set_stringn(lx, y, label, usize::from(Y_LABELS - 1), style);
        for s in run.of(key) {
            // Columns clamped to the plot: a session may begin before its left edge.
            let from = if s.window.start() < f.x.0 {
                0
            } else {
                match f.col(s.window.start()) {
                    Some(c) => c,
                    None => continue,
                }
            };
            let to = f.col(s.window.end() - 1.0).unwrap_or(last).max(from);
            let style = if chosen && selected.is_some_and(|w| w.overlaps(s.window)) {
                t.selected_window
            } else {
                match s.phase {
                    Phase::Open => t.on_time,
                    Phase::FiredOnTime | Phase::TakingLate => t.on_time_pane,
                    Phase::Finalised => t.dim,
                }
            };
            for c in from..=to {
                let g = match (c == from, c == to) {
                    (true, true) => SESSION_ONE,
                    (true, false) => SESSION_START,
                    (false, true) => SESSION_END,
                    (false, false) => SESSION_RUN,
                };
                put(buf, f.lanes.x + c, y, g, style);
            }
        }
    }
    if !app.trace().records_sessions() {
        let say = "the job keeps no record of its sessions: j for the single run";
        let width = usize::from(f.lanes.width);
        buf.set_stringn(
            f.lanes.x + 1,
            f.lanes.y,
            say,
            width.saturating_sub(1),
            t.dim,
        );
        return;
    }
    for m in app.trace().session_merges() {
        let Some(i) = keys.iter().position(|&k| k == m.key) else {
            continue;
        };
        if let Some(c) = f.col(m.event_time) {
            let style = if m.late || m.fired > 0 { t.late } else { t.key };
            put(buf, f.lanes.x + c, f.lanes.y + i as u16, MERGE, style);
        }
    }
}

/// Marks each TTL expiry so far on the processing-time axis at its processing time (the
/// selected key's in the selection's colour).
pub(super) fn expirations(app: &Run, f: &PlotFrame, buf: &mut Buffer) {
    let t = &app.theme;
    let lx = f.inner.x.saturating_sub(Y_LABELS);
    for x in app.trace().expirations() {
        if let Some(r) = f.row(x.proc_time) {
            let style = if app.selection.key == Some(x.key) {
                t.selected_window
            } else {
                t.warn
            };
            put(buf, lx + 4, f.inner.y + r, EXPIRY, style);
        }
    }
}

/// Round event times to label the axis with when there are no window ends to label: about
/// one every ten columns.
pub(super) fn ticks(f: &PlotFrame) -> Vec<f64> {
    let span = f.x.1 - f.x.0;
    let most = (f64::from(f.inner.width) / 10.0).max(1.0);
    let step = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1_200, 1_800, 3_600]
        .iter()
        .map(|&s| f64::from(s) * 1000.0)
        .find(|&s| span / s <= most)
        .unwrap_or_else(|| (span / most / 3_600_000.0).ceil() * 3_600_000.0);
    if !(step.is_finite() && step > 0.0) {
        return Vec::new();
    }
    let first = (f.x.0 / step).ceil() * step;
    (0..)
        .map(|i| first + f64::from(i) * step)
        .take_while(|&x| x <= f.x.1)
        .take(1_000)
        .collect()
}

fn put(buf: &mut Buffer, x: u16, y: u16, g: char, style: Style) {
    if let Some(cell) = buf.cell_mut((x, y)) {
        cell.set_char(g).set_style(style);
    }
}
