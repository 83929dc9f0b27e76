//! The plot's geometry: event time on x, processing time on y (upwards), in the cells inside
//! the border and the processing-time labels. For session windows, the bottom rows under the
//! event-time labels are lanes, one per key shown, on the same event-time axis.

use ratatui::layout::Rect;

use super::inner;
use crate::scenario::Scenario;

/// Columns kept for the processing-time labels on the left.
pub const Y_LABELS: u16 = 6;

/// How far above the playhead a following plot ends, as a share of its span.
const FOLLOW_AHEAD: f64 = 0.1;

/// Round scales, ms of event time a column, for a plot that widens to keep a window in view.
const ROUND_SCALES_MS: [f64; 18] = [
    10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1_000.0, 1_500.0, 2_000.0, 2_500.0, 3_000.0, 4_000.0,
    5_000.0, 10_000.0, 15_000.0, 20_000.0, 30_000.0, 60_000.0,
];

/// How much room a tour step's subject keeps around it, as a share of its span: under its
/// start on the rows, past its ends on the columns.
const SUBJECT_UNDER: f64 = 0.05;

/// The data window of the plot and the cells it is drawn in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlotFrame {
    /// The cells events are drawn in (inside the border and axis labels).
    pub inner: Rect,
    /// Event-time range on x, ms.
    pub x: (f64, f64),
    /// Processing-time range on y, ms (bottom to top).
    pub y: (f64, f64),
    /// Session windows: the lanes under the event-time labels, one row per key shown, over
    /// the same columns as `inner` (no rows for other windows).
    pub lanes: Rect,
}

/// How many session lanes a plot whose inside is `height` rows high gives to `keys` keys: a
/// lane per key while the plot keeps three quarters of its rows, at least one lane.
pub fn lane_rows(keys: usize, height: u16) -> u16 {
    let most = (height.saturating_sub(1) / 4).max(1);
    u16::try_from(keys).unwrap_or(u16::MAX).min(most)
}

impl PlotFrame {
    /// The frame for the plot of a scenario's events drawn in `area` (None if the area has no
    /// room for cells).
    pub fn of(shown: &impl AsRef<Scenario>, area: Rect) -> Option<PlotFrame> {
        let inside = inner(area);
        if inside.width <= Y_LABELS + 1 || inside.height < 3 {
            return None;
        }
        let s = shown.as_ref();
        let lanes = if s.oracle.merging {
            lane_rows(s.keys(), inside.height)
        } else {
            0
        };
        let inner = Rect {
            x: inside.x + Y_LABELS,
            y: inside.y,
            width: inside.width - Y_LABELS,
            height: inside.height - 1 - lanes,
        };
        Some(PlotFrame {
            inner,
            x: s.oracle.event_time,
            y: s.oracle.proc_time,
            lanes: Rect {
                y: inner.bottom() + 1,
                height: lanes,
                ..inner
            },
        })
    }

    /// ms per cell on each axis.
    pub fn cell_size(&self) -> (f64, f64) {
        (
            (self.x.1 - self.x.0) / f64::from(self.inner.width.max(1)),
            (self.y.1 - self.y.0) / f64::from(self.inner.height.max(1)),
        )
    }

    /// The same cells over a window of time that follows the playhead `now`: `per_column` ms
    /// of event time per column, and half as many ms of processing time up the rows, both
    /// ending at the same time (event time starting no earlier than the stream's), so the
    /// diagonal (event time = processing time) runs from the bottom's middle to the top right
    /// corner and an event that arrived in the window is on the plot if it was at most half
    /// the span late. The window ends a little above the
    /// playhead (the arrivals to come are near) and stays inside the stream's processing
    /// time; a stream that fits whole is left as it is. With `from` (a tour step's subject
    /// starting at that processing time), the rows reach down to it, with a twentieth of
    /// their span under it, so whatever arrived since is on them.
    pub fn following(mut self, per_column: f64, now: f64, from: Option<f64>) -> PlotFrame {
        let span = per_column * f64::from(self.inner.width);
        let (lo, hi) = self.y;
        if !(span > 0.0 && span / 2.0 < hi - lo) {
            return self;
        }
        let top = (now + FOLLOW_AHEAD * span).clamp(lo + span / 2.0, hi);
        let bottom = match from {
            Some(from) if from < top => {
                let under = SUBJECT_UNDER * (top - from);
                (from - under).max(lo).min(top - span / 2.0)
            }
            _ => top - span / 2.0,
        };
        self.y = (bottom, top);
        // Not before the stream's first event time: the columns there would stay empty.
        let left = (top - span).max(self.x.0);
        self.x = (left, left + span);
        self
    }

    /// The same frame moved across event time, keeping its scale, as little as puts the event
    /// times `from` to `to` on it (a selected window), if they fit; else as it is.
    pub fn showing(mut self, from: f64, to: f64) -> PlotFrame {
        let (l, r) = self.x;
        let fits = to - from <= r - l;
        if !fits {
            return self;
        }
        let by = if to > r {
            to - r
        } else if from < l {
            from - l
        } else {
            0.0
        };
        self.x = (l + by, r + by);
        self
    }

    /// The scale [`PlotFrame::following`] needs, never finer than `per_column`, for a tour
    /// step's subject to be across the plot: its columns reaching back from the top to event
    /// time `from` (a selected window's start; the stream's) and on to `to` (the window's
    /// end), the rows reaching down to processing time `from` while the plot follows the
    /// playhead at `now`: a round number of ms a column.
    pub fn scale_keeping(&self, per_column: f64, now: f64, from: f64, to: f64) -> f64 {
        let width = f64::from(self.inner.width.max(1));
        // The columns end FOLLOW_AHEAD of their span above `now`, and start no earlier than
        // the stream's first event time.
        let start = from.max(self.x.0);
        let need = ((now - start) / (1.0 - FOLLOW_AHEAD))
            .max(to - start)
            .max(0.0)
            * (1.0 + SUBJECT_UNDER)
            / width;
        if need <= per_column {
            return per_column;
        }
        ROUND_SCALES_MS
            .iter()
            .copied()
            .find(|&s| s >= need)
            .unwrap_or(need.ceil())
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
