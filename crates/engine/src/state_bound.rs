//! How much state a whole run may hold, bounded from its dials before it starts: the cells
//! (window × key) its windows can open over the stream, the placements (event × window) it
//! makes, and the bytes a run of one kind holds for each, so that a run which would not fit
//! is refused with the figure instead of failing to allocate part-way.
//!
//! The cells are the state that cannot be let go: every cell is counted by the oracle, given
//! a final value and listed by the answer. A sliding window puts each event in up to
//! [`WindowFn::MAX_WINDOWS_PER_EVENT`] windows, so the cells are at most the events times
//! the windows per event, and at most the keys times the windows that cover the stream's
//! event times.

use crate::window::WindowFn;

/// What a run holds per event, per cell and per placement, in bytes: measured peaks
/// (`/usr/bin/time -v`, over sliding windows whose cells dominate), rounded up with room.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateCosts {
    /// Bytes per event of the stream held in memory.
    pub per_event: u64,
    /// Bytes per cell: the oracle's count, the final value, the row listed, the open state.
    pub per_cell: u64,
    /// Bytes per placement of an event in a window, for a run that may keep one for each
    /// (the pipeline keeps every dropped placement for its answer).
    pub per_placement: u64,
    /// Bytes held whatever the stream.
    pub fixed: u64,
}

impl StateCosts {
    /// The single processor writing a table (measured 108 bytes per cell, 44 per event).
    pub const SINGLE: StateCosts = StateCosts {
        per_event: 64,
        per_cell: 160,
        per_placement: 0,
        fixed: 64 << 20,
    };
    /// The single processor writing JSON: every cell is also a row of the answer in memory
    /// (measured 228 bytes per cell).
    pub const SINGLE_LISTED: StateCosts = StateCosts {
        per_cell: 320,
        ..StateCosts::SINGLE
    };
    /// The parallel pipeline: each sink's value per cell, the panes it received, and every
    /// dropped placement kept for the answer (measured 1 015 bytes per cell).
    pub const PIPELINE: StateCosts = StateCosts {
        per_event: 256,
        per_cell: 1_400,
        per_placement: 160,
        fixed: 64 << 20,
    };
}

/// A run's state, bounded from above.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateBound {
    /// The events of the stream.
    pub events: u64,
    /// The most cells (window × key) the run can open.
    pub cells: u64,
    /// The most placements (event × window) it can make.
    pub placements: u64,
    /// The most bytes it can hold, under the costs given.
    pub bytes: u64,
    /// The costs it was bounded at.
    pub costs: StateCosts,
}

impl StateBound {
    /// The most a run may hold: above it a run is refused.
    pub const LIMIT_BYTES: u64 = 8 << 30;

    /// The bound for `events` events of `keys` keys under `window`, their event times from
    /// `event_times.0` to `event_times.1` when known (`None`: only the events bound the
    /// windows), each held at `costs`.
    pub fn of(
        window: &WindowFn,
        events: u64,
        keys: u64,
        event_times: Option<(f64, f64)>,
        costs: StateCosts,
    ) -> StateBound {
        let keys = keys.max(1);
        let (cells, placements) = if window.is_global() {
            (keys.min(events), events)
        } else if window.is_merging() {
            // A session is made of at least one event's proto-window.
            (events, events)
        } else {
            let size = window.size().max(1) as u64;
            let slide = window.slide().max(1) as u64;
            let per_event = size.div_ceil(slide);
            let placements = events.saturating_mul(per_event);
            // The windows covering [first, last]: those starting from one size before the
            // first event time to the last, a slide apart, and one more for the rounding.
            let spanned = match event_times {
                Some((first, last)) if first.is_finite() && last.is_finite() && last >= first => {
                    let starts = ((last - first) / slide as f64).floor();
                    // Saturates at u64::MAX for spans beyond it.
                    (starts as u64)
                        .saturating_add(per_event)
                        .saturating_add(1)
                        .saturating_mul(keys)
                }
                _ => u64::MAX,
            };
            (placements.min(spanned), placements)
        };
        let bytes = costs
            .fixed
            .saturating_add(events.saturating_mul(costs.per_event))
            .saturating_add(cells.saturating_mul(costs.per_cell))
            .saturating_add(placements.saturating_mul(costs.per_placement));
        StateBound {
            events,
            cells,
            placements,
            bytes,
            costs,
        }
    }

    /// Whether the run fits under [`StateBound::LIMIT_BYTES`].
    pub fn fits(&self) -> bool {
        self.bytes <= Self::LIMIT_BYTES
    }

    /// The one-line refusal of a run that does not fit, `window` naming its windows: `1s/1ms
    /// sliding over 1000000 events would hold about 160.1 GB of window state (up to
    /// 1000000000 window × key cells); the limit is 8.6 GB: …`.
    pub fn refusal(&self, window: &WindowFn) -> String {
        let gb = |b: u64| format!("{:.1} GB", b as f64 / 1e9);
        let what = if self.costs.per_placement > 0 {
            format!(
                "up to {} window × key cells and {} placements of an event in a window",
                self.cells, self.placements
            )
        } else {
            format!("up to {} window × key cells", self.cells)
        };
        format!(
            "{} over {} events would hold about {} of window state ({what}); the limit is {}: \
             give fewer events, a longer slide or a shorter window",
            window.describe(),
            self.events,
            gb(self.bytes),
            gb(Self::LIMIT_BYTES)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oracle::Oracle;
    use crate::stream::{Stream, StreamParams};
    use proptest::prelude::*;

    proptest! {
        /// The cells bounded are at least the oracle's, and the placements at least the
        /// events' windows, for any stream and windows.
        #[test]
        fn the_cells_bounded_are_at_least_the_oracles(
            events in 0usize..400,
            span in 1.0f64..200_000.0,
            keys in 1usize..8,
            size in 1i64..5_000,
            per_event in 1i64..60,
            kind in 0u8..3,
            seed in 0u64..1000,
        ) {
            let stream = Stream::generate(&StreamParams {
                seed,
                events,
                span,
                keys: "abcdefgh"[..keys].to_string(),
                ..StreamParams::default()
            })
            .unwrap();
            let window = match kind {
                0 => WindowFn::sliding(size, (size / per_event).max(1)).unwrap(),
                1 => WindowFn::session(size).unwrap(),
                _ => WindowFn::global(None).unwrap(),
            };
            let times = stream.events.iter().fold(None, |r, e| {
                let t = e.event_time;
                Some(r.map_or((t, t), |(a, b): (f64, f64)| (a.min(t), b.max(t))))
            });
            let b = StateBound::of(
                &window,
                events as u64,
                stream.keys.len() as u64,
                times,
                StateCosts::SINGLE,
            );
            let truth = Oracle::true_counts(&stream, &window);
            prop_assert!(b.cells >= truth.len() as u64, "{} < {}", b.cells, truth.len());
            let placed: u64 = stream
                .events
                .iter()
                .map(|e| window.assign(e.event_time).count() as u64)
                .sum();
            prop_assert!(b.placements >= placed);
        }
    }

    #[test]
    fn the_cells_are_the_fewer_of_the_placements_and_the_spanned_windows() {
        let w = WindowFn::sliding(1000, 1).unwrap();
        let b = StateBound::of(&w, 1_000_000, 4, Some((0.0, 600_000.0)), StateCosts::SINGLE);
        assert_eq!(b.placements, 1_000_000_000);
        assert_eq!(b.cells, 4 * (600_000 + 1000 + 1));
        assert!(b.fits());
        let spread = StateBound::of(
            &w,
            1_000_000,
            4,
            Some((0.0, 1_000_000_000.0)),
            StateCosts::SINGLE,
        );
        assert_eq!(spread.cells, 1_000_000_000);
        assert!(!spread.fits());
        assert!(spread.refusal(&w).contains("1000000 events"));
    }

    #[test]
    fn huge_figures_saturate() {
        let w = WindowFn::sliding(1000, 1).unwrap();
        let b = StateBound::of(
            &w,
            u64::MAX,
            u64::MAX,
            Some((-1e300, 1e300)),
            StateCosts::PIPELINE,
        );
        assert_eq!(b.bytes, u64::MAX);
        assert!(!b.fits());
    }
}
