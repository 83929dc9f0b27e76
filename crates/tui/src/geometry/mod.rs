//! Where everything is on screen, as pure functions of the terminal size and of the numbers
//! drawn: the panels' areas ([`layout`]) and, inside them, each dial's track, the plot's cells,
//! the frontier chart's points, the windows table's rows and the topology's operator rows. The
//! view draws with these and a click is resolved with the same ones, so it lands on what the
//! user saw. Nothing here reads the UI's state: each function is given what it needs.

pub mod dials;
pub mod frontier;
pub mod layout;
pub mod plot;
pub mod topology;
pub mod windows;

pub use layout::{Areas, Mode, SideAreas, FULL_SIZE, MIN_SIZE};

use ratatui::layout::Rect;
use ratatui::widgets::{Block, Borders};

/// The inside of a bordered panel at `area`.
pub fn inner(area: Rect) -> Rect {
    Block::default().borders(Borders::ALL).inner(area)
}

/// Whether the screen cell (col, row) is inside `r`.
pub fn inside(r: Rect, col: u16, row: u16) -> bool {
    col >= r.x && col < r.right() && row >= r.y && row < r.bottom()
}
