//! The frontier of the fixed and bounded watermarks from sufficient statistics, for a log that
//! lives where twoclocks cannot read it whole (a warehouse, a lake): per (window, key) cell,
//! the watermark's clock at its first arrival and a histogram of its arrivals' slack.
//!
//! Under `fixed:L` the watermark after an arrival is its clock − `L`, the clock being the
//! largest processing time seen; under `bounded:L` the clock is the largest event time seen.
//! An arrival in a window ending at `E` is dropped when `E ≤ clock − L − G` (`Fate::decide`):
//! when its *slack*, `clock − E`, is at least `L + G`. The advisor sweeps lags and graces on a
//! grid of whole steps (`0, s, 2s, …`), so only which step an arrival's slack falls in matters:
//! bin `⌊slack / s⌋`, all negative slacks in bin −1 (no setting drops them) and all beyond the
//! largest lag + grace in the last bin (every setting does). The sweep runs over those bins by
//! the same search as over a stream's arrivals, in units of a step, where the arithmetic is
//! exact.
//!
//! The state a setting costs needs when cells open and close: a cell opens at its first
//! arrival (if that is kept; the arrivals a setting drops from a cell are its last ones), and
//! every cell of a window closes together, at the first arrival whose clock puts the window
//! past its grace. The most cells and windows open at once is therefore counted at the
//! clocks cells open at, from those first clocks and the window ends alone.
//!
//! [`SlackStats::of`] computes the statistics from a stream, as the query `advise --sql` prints
//! computes them where the data lives; the two are compared by the tests. A table has no order
//! among rows of equal processing time, so the query gives each of them the largest event time
//! among them under the bounded watermark: the stream's order gives the same when such events
//! come with their event times falling, and never more (so advice from the query's statistics
//! errs, if at all, on the side of more drops).

use std::collections::BTreeMap;

use super::search::{sweep_arrivals, Arrivals};
use super::FrontierPoint;
use crate::lateness::Fate;
use crate::processor::{CELL_BYTES, WINDOW_BYTES};
use crate::stream::{KeyId, Stream};
use crate::watermark::{Watermark, WatermarkFamily, WatermarkKind};
use crate::window::{WindowFn, WindowId};

/// The grid's steps: lags and graces run over `0..=GRID_STEPS` steps (the advisor's grid,
/// [`Request::GRID_STEPS`](crate::advice::Request::GRID_STEPS), which names it outside the
/// engine).
pub(crate) const GRID_STEPS: i64 = 24;

/// The state a setting costs over a whole run: the most at any moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StateCost {
    /// The most (window, key) cells open at once.
    pub peak_open_cells: usize,
    /// The most estimated state bytes at once
    /// ([`Processor::state_bytes`](crate::processor::Processor::state_bytes)).
    pub peak_state_bytes: usize,
}

impl StateCost {
    /// A size in bytes for people, as a state's cost is shown (`512 B`, `3.2 KiB`, `1.5 MiB`).
    pub fn bytes(n: usize) -> String {
        if n < 1024 {
            format!("{n} B")
        } else if n < 1024 * 1024 {
            format!("{:.1} KiB", n as f64 / 1024.0)
        } else {
            format!("{:.1} MiB", n as f64 / (1024.0 * 1024.0))
        }
    }
}

/// The watermark kinds the statistics serve: those whose watermark is a clock less a lag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Clocked {
    /// `fixed:L`: the largest processing time seen.
    Fixed,
    /// `bounded:L`: the largest event time seen.
    Bounded,
}

impl Clocked {
    /// Both kinds, as the statistics list them.
    pub const ALL: [Clocked; 2] = [Clocked::Fixed, Clocked::Bounded];

    /// The watermark family it is.
    pub fn family(self) -> WatermarkFamily {
        match self {
            Clocked::Fixed => WatermarkFamily::Fixed,
            Clocked::Bounded => WatermarkFamily::Bounded,
        }
    }

    /// The name in the statistics' `watermark` column and on the command line: its family's.
    pub fn name(self) -> &'static str {
        self.family().name()
    }

    /// The kind by its name.
    pub fn named(name: &str) -> Option<Clocked> {
        Clocked::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The kind's watermark with lag `lag` ms.
    pub fn watermark(self, lag: f64) -> WatermarkKind {
        self.family().preset(lag)
    }
}

/// One (window, key) cell's statistics under one watermark kind.
#[derive(Debug, Clone, PartialEq)]
pub struct CellSlack {
    /// The window.
    pub window: WindowId,
    /// The key (numbered by whoever built the statistics; only equality matters).
    pub key: KeyId,
    /// The watermark's clock at the cell's first arrival, ms.
    pub first_clock: f64,
    /// How many arrivals fell in each slack bin: `(bin, count)`, bins ascending, each once.
    pub bins: Vec<(i64, u64)>,
}

/// The statistics of a log for the fixed and bounded watermarks on one grid.
#[derive(Debug, Clone, PartialEq)]
pub struct SlackStats {
    /// The grid's step, ms: the largest emit delay /
    /// [`Request::GRID_STEPS`](crate::advice::Request::GRID_STEPS).
    pub step: f64,
    /// Per kind, its cells (a kind the statistics do not cover is absent).
    pub kinds: BTreeMap<Clocked, Vec<CellSlack>>,
}

impl SlackStats {
    /// The highest slack bin: the largest lag + grace, in steps. Every setting drops an
    /// arrival there.
    pub const TOP_BIN: i64 = 2 * GRID_STEPS;
    /// The bin of every negative slack: no setting of the grid drops an arrival there.
    pub const BOTTOM_BIN: i64 = -1;

    /// The bin of a slack (ms) for a step of `step` ms: `⌊slack / step⌋`, held within
    /// [`SlackStats::BOTTOM_BIN`]..=[`SlackStats::TOP_BIN`] (NaN goes to the bottom bin).
    pub fn bin(slack: f64, step: f64) -> i64 {
        let b = (slack / step).floor();
        if b.is_nan() || b < SlackStats::BOTTOM_BIN as f64 {
            SlackStats::BOTTOM_BIN
        } else if b > SlackStats::TOP_BIN as f64 {
            SlackStats::TOP_BIN
        } else {
            b as i64
        }
    }

    /// The statistics of `stream` under `window` (not merging) for both kinds, on a grid of
    /// `step` ms: what the query `advise --sql` prints computes. Cells come in order of first
    /// arrival.
    pub fn of(stream: &Stream, window: WindowFn, step: f64) -> SlackStats {
        let kinds = Clocked::ALL
            .into_iter()
            .map(|kind| (kind, cells_of(stream, window, step, kind)))
            .collect();
        SlackStats { step, kinds }
    }

    /// The cells of `kind`, if the statistics cover it.
    pub fn cells(&self, kind: Clocked) -> Option<&[CellSlack]> {
        self.kinds.get(&kind).map(Vec::as_slice)
    }

    /// How many (event, window) placements the statistics of `kind` count.
    pub fn placements(&self, kind: Clocked) -> u64 {
        self.cells(kind)
            .unwrap_or_default()
            .iter()
            .flat_map(|c| c.bins.iter().map(|&(_, n)| n))
            .sum()
    }

    /// Every (lag, grace) of the grid, `0..=GRID_STEPS` steps each, scored as the frontier's
    /// sweep scores them on the stream, lag-major; empty if the statistics do not cover `kind`.
    pub fn sweep(&self, kind: Clocked) -> Vec<FrontierPoint> {
        let Some(cells) = self.cells(kind) else {
            return Vec::new();
        };
        // In units of a step, relative to each window's end: the clock is the bin.
        let arrivals = Arrivals::weighted(cells.iter().map(|c| {
            let bins = c.bins.iter().map(|&(b, n)| (b as f64, n)).collect();
            (0.0, bins)
        }));
        let units: Vec<f64> = (0..=GRID_STEPS).map(|i| i as f64).collect();
        let step = self.step;
        sweep_arrivals(&arrivals, true, &units, &units)
            .into_iter()
            .map(|p| {
                let (lag, grace) = (p.lag * step, p.grace * step);
                FrontierPoint {
                    lag,
                    grace,
                    emit_delay: lag + grace,
                    ..p
                }
            })
            .collect()
    }

    /// The state the setting (`lag`, `grace`, ms, whole steps of the grid) of `kind` costs over
    /// the log: the most cells and state bytes open at once, as the engine's run of it counts
    /// them after each arrival.
    pub fn state_cost(&self, kind: Clocked, lag: f64, grace: f64) -> StateCost {
        let Some(cells) = self.cells(kind) else {
            return StateCost::default();
        };
        let (lag_steps, grace_steps) = (lag / self.step, grace / self.step);
        // A cell opens if its first arrival is kept.
        let kept: Vec<&CellSlack> = cells
            .iter()
            .filter(|c| {
                c.bins.first().is_some_and(|&(b, _)| {
                    Fate::decide(0.0, b as f64 - lag_steps, grace_steps) != Fate::Dropped
                })
            })
            .collect();
        // A window opens with its first cell.
        let mut windows: BTreeMap<WindowId, f64> = BTreeMap::new();
        for c in &kept {
            let at = windows.entry(c.window).or_insert(c.first_clock);
            *at = at.min(c.first_clock);
        }
        let opens = |mut at: Vec<f64>| {
            at.sort_by(f64::total_cmp);
            at
        };
        let cell_opens = opens(kept.iter().map(|c| c.first_clock).collect());
        let window_opens = opens(windows.values().copied().collect());
        let cell_ends = opens(kept.iter().map(|c| c.window.end()).collect());
        let window_ends = opens(windows.keys().map(|w| w.end()).collect());
        let mut cost = StateCost::default();
        for (i, &x) in cell_opens.iter().enumerate() {
            // Measured after the last arrival at clock x: every cell opening there is open.
            if cell_opens.get(i + 1) == Some(&x) {
                continue;
            }
            let closed =
                |ends: &[f64]| ends.partition_point(|&e| Fate::finalised(e, x - lag, grace));
            let open_at = |at: &[f64]| at.partition_point(|&t| t <= x);
            let cells_open = open_at(&cell_opens) - closed(&cell_ends);
            let windows_open = open_at(&window_opens) - closed(&window_ends);
            cost.peak_open_cells = cost.peak_open_cells.max(cells_open);
            cost.peak_state_bytes = cost
                .peak_state_bytes
                .max(cells_open * CELL_BYTES + windows_open * WINDOW_BYTES);
        }
        cost
    }
}

/// The cells of `kind` over `stream`: each event placed in its windows, the clock at its
/// arrival binned against each window's end.
fn cells_of(stream: &Stream, window: WindowFn, step: f64, kind: Clocked) -> Vec<CellSlack> {
    let mut wm = Watermark::new(kind.watermark(0.0), stream.max_delay());
    let mut index: BTreeMap<(WindowId, KeyId), usize> = BTreeMap::new();
    let mut cells: Vec<CellSlack> = Vec::new();
    let mut counts: Vec<BTreeMap<i64, u64>> = Vec::new();
    for e in &stream.events {
        let clock = wm.observe(e);
        for w in window.assign(e.event_time) {
            let i = *index.entry((w, e.key)).or_insert_with(|| {
                cells.push(CellSlack {
                    window: w,
                    key: e.key,
                    first_clock: clock,
                    bins: Vec::new(),
                });
                counts.push(BTreeMap::new());
                cells.len() - 1
            });
            *counts[i]
                .entry(SlackStats::bin(clock - w.end(), step))
                .or_insert(0) += 1;
        }
    }
    for (c, n) in cells.iter_mut().zip(counts) {
        c.bins = n.into_iter().collect();
    }
    cells
}
