//! Where each panel goes, as a pure function of the terminal size. The view draws into these
//! areas and the mouse handler hit-tests against the same ones, so a click lands where the
//! user saw the dial. At 120×40 and up: every panel; from 80×24: a compact layout; below that,
//! nothing but the "terminal too small" message. Job mode swaps the pane history and the
//! frontier for the topology and sinks panels (compact: for the windows and dials).

use ratatui::layout::Rect;

/// The smallest terminal the panels fit in.
pub const MIN_SIZE: (u16, u16) = (80, 24);
/// From this size the full layout is used.
pub const FULL_SIZE: (u16, u16) = (120, 40);

/// Which arrangement of the panels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Full,
    Compact,
}

/// The panels' areas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Areas {
    pub mode: Mode,
    pub screen: Rect,
    pub plot: Rect,
    pub watermark: Rect,
    pub counters: Rect,
    pub dials: Rect,
    pub windows: Rect,
    /// The pane history of the selected cell (full layout only).
    pub panes: Option<Rect>,
    /// The frontier chart (full layout only; compact shows a summary inside the dials).
    pub frontier: Option<Rect>,
    /// Job mode: sources, channels, operator instances and the sink.
    pub topology: Option<Rect>,
    /// Job mode: the three sinks against the oracle.
    pub sinks: Option<Rect>,
    pub footer: Rect,
}

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

impl Areas {
    /// The layout for a terminal of `size` (width, height); None when it is too small.
    pub fn compute(size: (u16, u16)) -> Option<Areas> {
        Areas::compute_for(size, false)
    }

    /// The layout with or without the job's panels.
    pub fn compute_for(size: (u16, u16), job: bool) -> Option<Areas> {
        let a = Areas::single(size)?;
        if !job {
            return Some(a);
        }
        Some(match a.mode {
            Mode::Full => {
                let bottom = a.windows.union(a.panes.unwrap_or(a.windows));
                let windows_w = (bottom.width * 2 / 5).clamp(40, 60);
                let (windows, topology) = split_h(bottom, windows_w);
                let right = a.dials.union(a.frontier.unwrap_or(a.dials));
                let (dials, sinks) = split_v(right, 9);
                Areas {
                    windows,
                    dials,
                    panes: None,
                    frontier: None,
                    topology: Some(topology),
                    sinks: Some(sinks),
                    ..a
                }
            }
            Mode::Compact => {
                let bottom = a.windows.union(a.dials);
                let (topology, sinks) = split_h(bottom, a.windows.width);
                Areas {
                    windows: Rect::default(),
                    dials: Rect::default(),
                    topology: Some(topology),
                    sinks: Some(sinks),
                    ..a
                }
            }
        })
    }

    fn single(size: (u16, u16)) -> Option<Areas> {
        let (w, h) = size;
        if w < MIN_SIZE.0 || h < MIN_SIZE.1 {
            return None;
        }
        let screen = Rect::new(0, 0, w, h);
        let (main, footer) = split_v(screen, h - 1);
        if w >= FULL_SIZE.0 && h >= FULL_SIZE.1 {
            // The right column and the pane history grow with very wide terminals.
            let right_w = (w / 4).max(40);
            let (left, right) = split_h(main, w - right_w);
            let plot_h = (u32::from(main.height) * 60 / 100) as u16;
            let (plot, bottom) = split_v(left, plot_h);
            let panes_w = (bottom.width.saturating_sub(50)).max(30);
            let (windows, panes) = split_h(bottom, bottom.width.saturating_sub(panes_w));
            let (watermark, rest) = split_v(right, 7);
            let (counters, rest) = split_v(rest, 9);
            let (dials, frontier) = split_v(rest, 8);
            Some(Areas {
                mode: Mode::Full,
                screen,
                plot,
                watermark,
                counters,
                dials,
                windows,
                panes: Some(panes),
                frontier: Some(frontier),
                topology: None,
                sinks: None,
                footer,
            })
        } else {
            let (top, bottom) = split_v(main, main.height.saturating_sub(10));
            let (plot, right) = split_h(top, w - 32);
            let (watermark, counters) = split_v(right, 4);
            let (windows, dials) = split_h(bottom, w - 32);
            Some(Areas {
                mode: Mode::Compact,
                screen,
                plot,
                watermark,
                counters,
                dials,
                windows,
                panes: None,
                frontier: None,
                topology: None,
                sinks: None,
                footer,
            })
        }
    }
}

impl Areas {
    /// Every panel's area with its name (the plot first), the empty ones left out.
    pub fn panels(&self) -> Vec<(&'static str, Rect)> {
        [
            ("plot", Some(self.plot)),
            ("watermark", Some(self.watermark)),
            ("counters", Some(self.counters)),
            ("dials", Some(self.dials)),
            ("windows", Some(self.windows)),
            ("panes", self.panes),
            ("frontier", self.frontier),
            ("topology", self.topology),
            ("sinks", self.sinks),
            ("footer", Some(self.footer)),
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
    fn panels_fit_inside_the_screen() {
        for size in [(80, 24), (100, 30), (120, 40), (200, 60), (400, 120)] {
            let a = Areas::compute(size).unwrap();
            for r in [
                a.plot,
                a.watermark,
                a.counters,
                a.dials,
                a.windows,
                a.footer,
            ] {
                assert!(a.screen.contains(r.as_position()) || r.area() == 0);
                assert!(r.right() <= a.screen.right() && r.bottom() <= a.screen.bottom());
            }
        }
        for size in [(80, 24), (119, 39), (120, 40), (300, 90)] {
            let a = Areas::compute_for(size, true).unwrap();
            for r in [a.topology.unwrap(), a.sinks.unwrap(), a.plot, a.counters] {
                assert!(r.area() > 0, "{size:?}");
                assert!(r.right() <= a.screen.right() && r.bottom() <= a.screen.bottom());
            }
        }
        assert!(Areas::compute((79, 24)).is_none());
        assert!(Areas::compute((80, 23)).is_none());
        assert!(Areas::compute((0, 0)).is_none());
    }
}
