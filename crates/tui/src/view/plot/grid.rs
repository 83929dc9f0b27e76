//! The plot's grid of cells before they are drawn: what each cell shows ([`Mark`]) and which
//! mark wins a cell ([`put`]), shared by the plot and the layers it draws (panes, the
//! inspected event's inequality, the stalls).

use twoclocks_engine::{Fate, Timing};

/// What a plot cell shows (see [`Mark::rank`] for which wins a cell).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mark {
    Empty,
    WindowEdge,
    SelectedEdge,
    Playhead,
    Ideal,
    /// On-time events, by glyph weight (index into the ramp).
    OnTime(u8),
    /// The selected cell's pane bar, by its timing (`panes`): over sparse on-time events,
    /// under dense ones, the watermark and every late or dropped event.
    Pane(Timing),
    /// The watermark line where it runs across a row.
    WatermarkRun,
    /// The watermark where it stood at a row's processing time.
    Watermark,
    /// An on-time event in a cell of its own, when every event has one (a magnified plot,
    /// a small stream): over the pane bars and the watermark, as the late and dropped are.
    OnTimeOne,
    Late(u8),
    Dropped(u8),
    /// Events an outage held back, drawn where they arrived (the heal), by the fate most of
    /// them met.
    Held(Fate),
    /// Side by side: events whose fate differs in the other run, by the fate most of them met
    /// in this one.
    Differs(Fate),
    Replayed,
    InspectedWindow,
    PastGrace,
    GraceBand,
    WindowEnd,
    AtArrival,
    Inspected,
}

impl Mark {
    /// Drawing priority: a cell shows its highest-ranked mark. The watermark's run across a
    /// row gives way to crowded on-time cells (their ink is the data), its point per row
    /// does not, so the line stays traceable through the dense diagonal. A pane bar covers
    /// only sparse on-time cells on its one row: the exceptions and the watermark stay.
    pub(super) fn rank(self) -> u8 {
        match self {
            Mark::Empty => 0,
            Mark::WindowEdge => 1,
            Mark::SelectedEdge => 2,
            Mark::Playhead => 3,
            Mark::Ideal => 4,
            Mark::OnTime(l) if l < 2 => 5,
            Mark::Pane(Timing::Early) => 6,
            Mark::Pane(Timing::Late) => 7,
            Mark::Pane(Timing::OnTime) => 8,
            Mark::WatermarkRun => 9,
            Mark::OnTime(_) => 10,
            Mark::Watermark => 11,
            Mark::OnTimeOne => 12,
            Mark::Late(_) => 13,
            Mark::Dropped(_) => 14,
            Mark::Held(_) => 15,
            Mark::Differs(_) => 16,
            Mark::Replayed => 17,
            Mark::InspectedWindow => 18,
            Mark::PastGrace => 19,
            Mark::GraceBand => 20,
            Mark::WindowEnd => 21,
            Mark::AtArrival => 22,
            Mark::Inspected => 23,
        }
    }
}

pub(super) fn put(grid: &mut [Mark], w: usize, c: u16, r: u16, m: Mark) {
    let i = r as usize * w + c as usize;
    if let Some(g) = grid.get_mut(i) {
        if m.rank() > g.rank() {
            *g = m;
        }
    }
}
