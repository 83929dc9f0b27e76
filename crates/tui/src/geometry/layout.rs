//! Where each panel goes, as a pure function of the terminal size. The view draws into these
//! areas and the mouse handler hit-tests against the same ones, so a click lands where the
//! user saw the dial. At 120×40 and up: every panel; from 80×24: a compact layout; below that,
//! nothing but the "terminal too small" message. Job mode swaps the pane history and the
//! frontier for the topology and sinks panels (compact: the windows table for the topology).
//!
//! During a tour the caption band takes the top rows of the plot ([`Areas::with_caption`]).
//!
//! The plot gets the space first: every other panel gets the rows its text needs (the windows
//! table one row per window of the classroom stream, the counters and dials one per line), the
//! plot the rest. Rows left over in the right-hand column go to the counters panel's state
//! chart (up to its natural height), then to the watermark panel's gap history or, in job
//! mode, its watermark lanes (a chart) or, in single full mode, to the frontier chart, never to
//! an empty panel. Compact job mode at 80×24 gives the watermark panel one line (the lanes and
//! the state chart are left out there; the topology shows each partition's watermark); rows
//! beyond go to the watermark lanes first, then to the counters.
//! On a tall screen (200×60) the right-hand column holds all the other panels, the windows
//! table and pane history (or topology) included, the watermark panel is a wide band under the
//! plot (its lanes as wide as the plot) and the plot takes the rest of the left side.

use ratatui::layout::Rect;

use crate::panel::Panel;

/// The smallest terminal the panels fit in.
pub const MIN_SIZE: (u16, u16) = (80, 24);
/// From this size the full layout is used.
pub const FULL_SIZE: (u16, u16) = (120, 40);

/// The right-hand column's width: full and compact layouts.
const RIGHT_FULL: u16 = 40;
const RIGHT_COMPACT: u16 = 30;
/// The rows the bottom band wants: a header and the classroom stream's 10 windows, boxed (the
/// job's topology needs 11: 2 sources, a header, 4 operators, the sink and the checkpoint).
const BOTTOM_NATURAL: u16 = 13;
const TOPOLOGY_NATURAL: u16 = 11;
/// The windows table's natural width in the full layout (the pane history gets the rest).
const WINDOWS_FULL_W: u16 = 48;
/// The job's windows-at-the-sinks table's natural width.
const JOB_WINDOWS_W: u16 = 40;
/// Natural heights of the right-hand column's panels (borders included).
const WATERMARK_FULL: u16 = 7;
const WATERMARK_COMPACT: u16 = 4;
/// Compact job mode at its smallest: one line (status, now, watermark, gap).
const WATERMARK_MIN: u16 = 3;
/// Job mode: the watermark panel with its lanes (two lines, a legend, the combined lane and
/// up to five partitions').
const WATERMARK_LANES: u16 = 11;
/// Compact job mode with rows to spare: two lines, a legend and three lanes (the combined
/// one and two partitions', the UI's own job; more partitions are counted, not drawn).
const WATERMARK_LANES_COMPACT: u16 = 8;
/// Tall screens: the watermark band under the plot.
const WATERMARK_TALL: u16 = 12;
const COUNTERS: u16 = 9;
/// The counters with the state chart under them: a label and two rows of chart.
const COUNTERS_STATE: u16 = COUNTERS + 3;
/// The counters with the smallest state chart: a label and one row.
const COUNTERS_STATE_MIN: u16 = COUNTERS + 2;
/// Compact job mode at its smallest: two lines of counters.
const COUNTERS_MIN: u16 = 4;
/// Single mode: six dials (compact: plus two lines of the frontier summary).
const DIALS_FULL: u16 = 8;
const DIALS_COMPACT: u16 = 10;
/// Job mode: eight dials, the checkpoint interval and the idle timeout the last.
const DIALS_JOB: u16 = 10;
const SINKS: u16 = 8;
/// The frontier chart and the pane history at their smallest, in the tall layout.
const FRONTIER_MIN: u16 = 14;
const PANES_MIN: u16 = 8;
/// Compact job mode at its smallest: the header and the three sinks.
const SINKS_MIN: u16 = 6;

/// The tour's caption band: a title row and three lines of caption.
pub const CAPTION_ROWS: u16 = 4;

/// Which arrangement of the panels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// From [`FULL_SIZE`] up: a wider right-hand column, and room for the pane history and the
    /// frontier chart (in job mode, the topology and the sinks).
    Full,
    /// From [`MIN_SIZE`] to below [`FULL_SIZE`]: no pane history or frontier chart (the dials
    /// carry a frontier summary), a shorter watermark panel.
    Compact,
}

/// The panels' areas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Areas {
    /// Which arrangement the areas follow.
    pub mode: Mode,
    /// The whole terminal, from (0, 0).
    pub screen: Rect,
    /// The two-clocks plot (the inspector and the crash report draw over it).
    pub plot: Rect,
    /// The watermark panel: processing time, the watermark, the gap and its history (job
    /// mode: each partition's watermark lane).
    pub watermark: Rect,
    /// The counters panel: arrivals, fates, panes, open windows, state size, and with rows
    /// to spare the state over time.
    pub counters: Rect,
    /// The dials panel.
    pub dials: Rect,
    /// The windows table (empty in compact job mode).
    pub windows: Rect,
    /// The pane history of the selected cell (full layout only).
    pub panes: Option<Rect>,
    /// The frontier chart (full layout only; compact shows a summary inside the dials).
    pub frontier: Option<Rect>,
    /// Job mode: sources, channels, operator instances and the sink.
    pub topology: Option<Rect>,
    /// Job mode: the three sinks against the oracle.
    pub sinks: Option<Rect>,
    /// The bottom row: the scenario, the status message and the key hints.
    pub footer: Rect,
    /// Two policies side by side: where B's plot and both runs' counters go (A's plot is
    /// [`Areas::plot`]); None with one run on screen.
    pub side: Option<SideAreas>,
    /// During a tour: the caption band (the step, its title and caption), taken from the top
    /// of the plot ([`Areas::with_caption`]).
    pub caption: Option<Rect>,
}

/// Two policies side by side: the plot area split in two, A's half and B's, each a plot over
/// a few lines of counters. Left and right from [`FULL_SIZE`]; below it, top and bottom, the
/// band under the plot (the windows table, or the job's topology) given to them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SideAreas {
    /// A's counters, under A's plot.
    pub a_counters: Rect,
    /// B's plot.
    pub b_plot: Rect,
    /// B's counters, under B's plot.
    pub b_counters: Rect,
}

/// Side by side: rows of counters under each plot, left and right (full) or top and bottom
/// (compact).
const SIDE_COUNTERS_FULL: u16 = 3;
const SIDE_COUNTERS_COMPACT: u16 = 2;

fn split_v(r: Rect, top: u16) -> (Rect, Rect) {
    let top = top.min(r.height);
    (
        Rect { height: top, ..r },
        Rect {
            y: r.y.saturating_add(top),
            height: r.height - top,
            ..r
        },
    )
}

fn split_h(r: Rect, left: u16) -> (Rect, Rect) {
    let left = left.min(r.width);
    (
        Rect { width: left, ..r },
        Rect {
            x: r.x.saturating_add(left),
            width: r.width - left,
            ..r
        },
    )
}

/// Splits `column` from the top into panels of the given (smallest, natural) heights: each gets
/// its smallest, then the rows left are handed out in the order given up to each natural
/// height, and what remains goes to the panel at `grow`.
fn stack<const N: usize>(column: Rect, sizes: [(u16, u16); N], grow: usize) -> [Rect; N] {
    let mut h: [u16; N] = sizes.map(|(min, _)| min);
    let mut left = column.height.saturating_sub(h.iter().sum());
    for (i, &(min, natural)) in sizes.iter().enumerate() {
        let more = natural.saturating_sub(min).min(left);
        h[i] += more;
        left -= more;
    }
    h[grow.min(N - 1)] += left;
    let mut rest = column;
    h.map(|rows| {
        let (r, below) = split_v(rest, rows);
        rest = below;
        r
    })
}

/// The bottom band's height in a main area `h` rows high: its natural height, at most a third
/// of the screen (and a row), so the plot keeps the rest.
fn bottom_rows(h: u16, natural: u16) -> u16 {
    natural.min(h / 3 + 1).max(6)
}

impl Areas {
    /// The layout for a terminal of `size` (width, height); None when it is too small.
    pub fn compute(size: (u16, u16)) -> Option<Areas> {
        Areas::compute_for(size, false)
    }

    /// The layout as the UI draws it: zoomed (`z`), the plot alone above the footer, the other
    /// panels left out; else [`Areas::compute_for`].
    pub fn compute_view(size: (u16, u16), pipeline: bool, zoomed: bool) -> Option<Areas> {
        let (w, h) = size;
        if zoomed && w >= MIN_SIZE.0 && h >= MIN_SIZE.1 {
            let screen = Rect::new(0, 0, w, h);
            let (plot, footer) = split_v(screen, h - 1);
            let full = w >= FULL_SIZE.0 && h >= FULL_SIZE.1;
            return Some(Areas {
                mode: if full { Mode::Full } else { Mode::Compact },
                screen,
                plot,
                watermark: Rect::default(),
                counters: Rect::default(),
                dials: Rect::default(),
                windows: Rect::default(),
                panes: None,
                frontier: None,
                topology: None,
                sinks: None,
                footer,
                side: None,
                caption: None,
            });
        }
        Areas::compute_for(size, pipeline)
    }

    /// The layout with or without a pipeline's panels (the parallel job's topology and sinks).
    pub fn compute_for(size: (u16, u16), pipeline: bool) -> Option<Areas> {
        let (w, h) = size;
        if w < MIN_SIZE.0 || h < MIN_SIZE.1 {
            return None;
        }
        let screen = Rect::new(0, 0, w, h);
        let (main, footer) = split_v(screen, h - 1);
        let full = w >= FULL_SIZE.0 && h >= FULL_SIZE.1;
        let right_w = if full { RIGHT_FULL } else { RIGHT_COMPACT };
        let (left, right) = split_h(main, w - right_w);
        let mut a = Areas {
            mode: if full { Mode::Full } else { Mode::Compact },
            screen,
            plot: Rect::default(),
            watermark: Rect::default(),
            counters: Rect::default(),
            dials: Rect::default(),
            windows: Rect::default(),
            panes: None,
            frontier: None,
            topology: None,
            sinks: None,
            footer,
            side: None,
            caption: None,
        };
        // Tall: the right-hand column holds every other panel, the left the plot over the
        // watermark band.
        let tall_single = [
            COUNTERS_STATE,
            DIALS_FULL,
            FRONTIER_MIN,
            BOTTOM_NATURAL,
            PANES_MIN,
        ];
        let tall_job = [
            COUNTERS_STATE,
            DIALS_JOB,
            SINKS,
            TOPOLOGY_NATURAL,
            BOTTOM_NATURAL,
        ];
        let tall =
            full && main.height >= if pipeline { tall_job } else { tall_single }.iter().sum();
        match (full, pipeline) {
            (true, false) if tall => {
                let [counters, dials, frontier, windows, panes] =
                    stack(right, tall_single.map(|h| (h, h)), 2);
                let (plot, watermark) = split_v(left, main.height - WATERMARK_TALL);
                a.plot = plot;
                a.windows = windows;
                a.panes = Some(panes);
                a.frontier = Some(frontier);
                (a.watermark, a.counters, a.dials) = (watermark, counters, dials);
            }
            (true, true) if tall => {
                let [counters, dials, sinks, topology, windows] =
                    stack(right, tall_job.map(|h| (h, h)), 0);
                let (plot, watermark) = split_v(left, main.height - WATERMARK_TALL);
                a.plot = plot;
                a.windows = windows;
                a.topology = Some(topology);
                a.sinks = Some(sinks);
                (a.watermark, a.counters, a.dials) = (watermark, counters, dials);
            }
            (true, false) => {
                let (plot, bottom) =
                    split_v(left, main.height - bottom_rows(main.height, BOTTOM_NATURAL));
                let (windows, panes) = split_h(bottom, WINDOWS_FULL_W);
                let [watermark, counters, dials, frontier] = stack(
                    right,
                    [
                        (WATERMARK_FULL, WATERMARK_FULL),
                        (COUNTERS, COUNTERS_STATE),
                        (DIALS_FULL, DIALS_FULL),
                        (0, 0),
                    ],
                    3,
                );
                a.plot = plot;
                a.windows = windows;
                a.panes = Some(panes);
                a.frontier = Some(frontier);
                (a.watermark, a.counters, a.dials) = (watermark, counters, dials);
            }
            (true, true) => {
                let natural = BOTTOM_NATURAL.max(TOPOLOGY_NATURAL);
                let (plot, bottom) = split_v(left, main.height - bottom_rows(main.height, natural));
                let (windows, topology) = split_h(bottom, JOB_WINDOWS_W);
                let [watermark, counters, dials, sinks] = stack(
                    right,
                    [
                        (WATERMARK_FULL, WATERMARK_LANES),
                        (COUNTERS_STATE_MIN, COUNTERS_STATE),
                        (DIALS_JOB, DIALS_JOB),
                        (SINKS, SINKS),
                    ],
                    0,
                );
                a.plot = plot;
                a.windows = windows;
                a.topology = Some(topology);
                a.sinks = Some(sinks);
                (a.watermark, a.counters, a.dials) = (watermark, counters, dials);
            }
            (false, false) => {
                let (plot, windows) =
                    split_v(left, main.height - bottom_rows(main.height, BOTTOM_NATURAL));
                let [watermark, counters, dials] = stack(
                    right,
                    [
                        (WATERMARK_COMPACT, WATERMARK_COMPACT),
                        (COUNTERS, COUNTERS_STATE),
                        (DIALS_COMPACT, DIALS_COMPACT),
                    ],
                    0,
                );
                a.plot = plot;
                a.windows = windows;
                (a.watermark, a.counters, a.dials) = (watermark, counters, dials);
            }
            (false, true) => {
                // The topology keeps all its rows (down to the checkpoint line) below the plot.
                let topo_h = TOPOLOGY_NATURAL.min(main.height / 2);
                let (plot, topology) = split_v(left, main.height - topo_h);
                let [watermark, counters, dials, sinks] = stack(
                    right,
                    [
                        (WATERMARK_MIN, WATERMARK_LANES_COMPACT),
                        (COUNTERS_MIN, COUNTERS_STATE),
                        (DIALS_JOB, DIALS_JOB),
                        (SINKS_MIN, SINKS),
                    ],
                    0,
                );
                a.plot = plot;
                a.topology = Some(topology);
                a.sinks = Some(sinks);
                (a.watermark, a.counters, a.dials) = (watermark, counters, dials);
            }
        }
        Some(a)
    }

    /// The same layout with two policies side by side: the plot area split in two (left and
    /// right from [`FULL_SIZE`]; below it top and bottom, taking the band under the plot as
    /// well), each half a plot over its counters. A's plot stays [`Areas::plot`], so clicks on
    /// it inspect A as before.
    pub fn split_side(mut self) -> Areas {
        let wide = self.screen.width >= FULL_SIZE.0 && self.screen.height >= FULL_SIZE.1;
        let (a, b, rows) = if wide {
            let (a, b) = split_h(self.plot, self.plot.width / 2);
            (a, b, SIDE_COUNTERS_FULL)
        } else {
            let mut region = self.plot;
            let (x, width, bottom) = (region.x, region.width, region.bottom());
            let below = |r: &Rect| r.x == x && r.width == width && r.y == bottom;
            if below(&self.windows) {
                region.height += self.windows.height;
                self.windows = Rect::default();
            } else if let Some(t) = self.topology.filter(below) {
                region.height += t.height;
                self.topology = None;
            }
            let (a, b) = split_v(region, region.height / 2);
            (a, b, SIDE_COUNTERS_COMPACT)
        };
        let (a_plot, a_counters) = split_v(a, a.height.saturating_sub(rows));
        let (b_plot, b_counters) = split_v(b, b.height.saturating_sub(rows));
        self.plot = a_plot;
        self.side = Some(SideAreas {
            a_counters,
            b_plot,
            b_counters,
        });
        self
    }

    /// The layout with the tour's caption band: [`CAPTION_ROWS`] rows from the top of the plot
    /// (a title row and up to three lines of caption), the plot keeping the rest. In every
    /// mode, zoomed (`z`) too, so the caption stays readable at 80×24.
    pub fn with_caption(mut self) -> Areas {
        let (caption, plot) = split_v(self.plot, CAPTION_ROWS.min(self.plot.height / 2));
        self.caption = Some(caption);
        self.plot = plot;
        self
    }

    /// The compact layout with room for the panels a tour step is about (`needed`, by name) that it
    /// leaves out: the pane history takes the dials' place (or the counters', when the dials are
    /// needed), the frontier chart the windows table's (or the dials'), and in job mode the sinks
    /// panel grows up over the counters, so that its last lines (the over-count) show, and the
    /// topology under the plot gives its rows to the plot when the step names the plot and not the
    /// topology. A panel given up draws nothing and takes no click. The full layout has every panel
    /// and is left as it is.
    pub fn room_for(mut self, needed: &[Panel]) -> Areas {
        if self.mode != Mode::Compact {
            return self;
        }
        let needs = |p: Panel| needed.contains(&p);
        if needs(Panel::Panes) && self.panes.is_none() {
            if !needs(Panel::Dials) {
                self.panes = Some(std::mem::take(&mut self.dials));
            } else if !needs(Panel::Counters) {
                self.panes = Some(std::mem::take(&mut self.counters));
            }
        }
        if needs(Panel::Frontier) && self.frontier.is_none() && self.topology.is_none() {
            if !needs(Panel::Windows) {
                self.frontier = Some(std::mem::take(&mut self.windows));
            } else if !needs(Panel::Dials) && self.dials.area() > 0 {
                self.frontier = Some(std::mem::take(&mut self.dials));
            }
        }
        // In job mode the topology sits under the plot: a step about something else gives
        // its rows to the plot (a crash and its replay need them).
        if needs(Panel::Plot) && !needs(Panel::Topology) {
            if let Some(topology) = self.topology.take() {
                if topology.x == self.plot.x && topology.y == self.plot.bottom() {
                    self.plot.height += topology.height;
                } else {
                    self.topology = Some(topology);
                }
            }
        }
        if needs(Panel::Sinks) && !needs(Panel::Counters) {
            // The right-hand column stacks watermark, counters, dials, sinks: the counters
            // give their rows up, the dials move up into them and the sinks take the rest.
            if let Some(sinks) = self.sinks.as_mut() {
                let counters = std::mem::take(&mut self.counters);
                if counters.area() > 0 && counters.y < self.dials.y && self.dials.y < sinks.y {
                    let bottom = sinks.bottom();
                    self.dials.y = counters.y;
                    sinks.y = self.dials.bottom();
                    sinks.height = bottom - sinks.y;
                } else {
                    self.counters = counters;
                }
            }
        }
        self
    }

    /// Every panel's area with its name (the plot first), the empty ones left out.
    pub fn panels(&self) -> Vec<(Panel, Rect)> {
        let side = self.side;
        [
            (Panel::Plot, Some(self.plot)),
            (Panel::SideA, side.map(|s| s.a_counters)),
            (Panel::SideBPlot, side.map(|s| s.b_plot)),
            (Panel::SideB, side.map(|s| s.b_counters)),
            (Panel::Watermark, Some(self.watermark)),
            (Panel::Counters, Some(self.counters)),
            (Panel::Dials, Some(self.dials)),
            (Panel::Windows, Some(self.windows)),
            (Panel::Panes, self.panes),
            (Panel::Frontier, self.frontier),
            (Panel::Topology, self.topology),
            (Panel::Sinks, self.sinks),
            (Panel::Footer, Some(self.footer)),
            (Panel::Caption, self.caption),
        ]
        .into_iter()
        .filter_map(|(n, r)| r.filter(|r| r.area() > 0).map(|r| (n, r)))
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panels_fit_inside_the_screen_and_do_not_overlap() {
        for job in [false, true] {
            for size in [
                (80, 24),
                (100, 30),
                (119, 39),
                (120, 40),
                (200, 60),
                (400, 120),
            ] {
                let a = Areas::compute_for(size, job).unwrap();
                let panels = a.panels();
                for (i, (n, r)) in panels.iter().enumerate() {
                    assert!(a.screen.contains(r.as_position()), "{n} {size:?}");
                    assert!(r.right() <= a.screen.right() && r.bottom() <= a.screen.bottom());
                    for (m, s) in &panels[i + 1..] {
                        assert!(!r.intersects(*s), "{n} and {m} overlap at {size:?}");
                    }
                }
                // Every cell of the screen belongs to a panel.
                let covered: u32 = panels.iter().map(|(_, r)| r.area()).sum();
                assert_eq!(covered, a.screen.area(), "{size:?} job {job}");
                if job {
                    assert!(a.topology.is_some() && a.sinks.is_some());
                    assert!(a.dials.height >= DIALS_JOB, "{size:?}: all eight dials");
                }
            }
        }
        for job in [false, true] {
            for size in [(80, 24), (120, 40), (200, 60)] {
                let a = Areas::compute_for(size, job).unwrap().split_side();
                let panels = a.panels();
                for (i, (n, r)) in panels.iter().enumerate() {
                    for (m, s) in &panels[i + 1..] {
                        assert!(!r.intersects(*s), "{n} and {m} overlap at {size:?}, side");
                    }
                }
                let covered: u32 = panels.iter().map(|(_, r)| r.area()).sum();
                assert_eq!(covered, a.screen.area(), "{size:?} job {job}, side");
                let s = a.side.unwrap();
                assert!(
                    a.plot.height >= 6 && s.b_plot.height >= 6,
                    "{size:?} job {job}"
                );
            }
        }
        // The caption band is carved from the plot: still every cell once.
        for size in [(80, 24), (120, 40), (200, 60)] {
            for zoomed in [false, true] {
                let a = Areas::compute_view(size, false, zoomed)
                    .unwrap()
                    .with_caption();
                let covered: u32 = a.panels().iter().map(|(_, r)| r.area()).sum();
                assert_eq!(covered, a.screen.area(), "{size:?} zoomed {zoomed}");
                assert_eq!(a.caption.map(|c| c.height), Some(CAPTION_ROWS));
                assert!(a.plot.height >= 8, "{size:?}: the plot keeps room");
            }
        }
        assert!(Areas::compute((79, 24)).is_none());
        assert!(Areas::compute((80, 23)).is_none());
        assert!(Areas::compute((0, 0)).is_none());
    }
}
