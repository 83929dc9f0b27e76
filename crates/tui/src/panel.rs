//! The screen's panels by name: the layout gives each its rectangle, the view draws each with
//! one exhaustive match, and a tour step shows or highlights them by the names written here
//! (`show = ["plot", "counters"]`, `highlight = "frontier"`), so a name that is not a panel is
//! refused where it is read.

use std::fmt;
use std::str::FromStr;

/// A panel of the screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Panel {
    /// The event-time × processing-time plot (A's, side by side).
    Plot,
    /// A's counters, side by side.
    SideA,
    /// B's plot, side by side.
    SideBPlot,
    /// B's counters, side by side.
    SideB,
    /// The watermark and the clocks.
    Watermark,
    /// The fates and panes counted.
    Counters,
    /// The dials.
    Dials,
    /// The windows table.
    Windows,
    /// The selected window's pane history.
    Panes,
    /// The accuracy/latency frontier.
    Frontier,
    /// The parallel job's topology.
    Topology,
    /// The parallel job's sinks.
    Sinks,
    /// The keys offered and the status line.
    Footer,
    /// The tour step's caption.
    Caption,
}

impl Panel {
    /// Every panel, in the order they are drawn (the plot first).
    pub const ALL: [Panel; 14] = [
        Panel::Plot,
        Panel::SideA,
        Panel::SideBPlot,
        Panel::SideB,
        Panel::Watermark,
        Panel::Counters,
        Panel::Dials,
        Panel::Windows,
        Panel::Panes,
        Panel::Frontier,
        Panel::Topology,
        Panel::Sinks,
        Panel::Footer,
        Panel::Caption,
    ];

    /// The panels a tour step may show or highlight, in the order a step's mask keeps them.
    /// The others (side by side, the footer, the caption) show whenever their layout has them.
    pub const TAUGHT: [Panel; 9] = [
        Panel::Plot,
        Panel::Watermark,
        Panel::Counters,
        Panel::Dials,
        Panel::Windows,
        Panel::Panes,
        Panel::Frontier,
        Panel::Topology,
        Panel::Sinks,
    ];

    /// Its name, as the layout, the tour files and a withheld panel's title write it.
    pub fn name(self) -> &'static str {
        match self {
            Panel::Plot => "plot",
            Panel::SideA => "side-a",
            Panel::SideBPlot => "side-b-plot",
            Panel::SideB => "side-b",
            Panel::Watermark => "watermark",
            Panel::Counters => "counters",
            Panel::Dials => "dials",
            Panel::Windows => "windows",
            Panel::Panes => "panes",
            Panel::Frontier => "frontier",
            Panel::Topology => "topology",
            Panel::Sinks => "sinks",
            Panel::Footer => "footer",
            Panel::Caption => "caption",
        }
    }

    /// Its place in [`Panel::TAUGHT`] (None: a step does not name it).
    pub fn taught_index(self) -> Option<usize> {
        Panel::TAUGHT.iter().position(|p| *p == self)
    }

    /// The names a tour step may give, comma-separated, for an error to list.
    pub fn taught_names() -> String {
        Panel::TAUGHT.map(Panel::name).join(", ")
    }
}

impl fmt::Display for Panel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a panel's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a panel")]
pub struct UnknownPanel(pub String);

impl FromStr for Panel {
    type Err = UnknownPanel;

    fn from_str(s: &str) -> Result<Panel, UnknownPanel> {
        Panel::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| UnknownPanel(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_reads_back_as_its_panel() {
        for p in Panel::ALL {
            assert_eq!(p.to_string().parse::<Panel>(), Ok(p));
        }
        assert_eq!(
            "legend".parse::<Panel>(),
            Err(UnknownPanel("legend".into()))
        );
        assert_eq!(
            "Plot".parse::<Panel>().unwrap_err().to_string(),
            "\"Plot\" is not a panel"
        );
    }
}
