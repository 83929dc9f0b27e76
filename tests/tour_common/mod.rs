//! What the tour tests share: the built-in tour opened and settled (from its start or a named
//! step), a key pressed (and the work it queues done), the screen drawn at a size, as a
//! buffer or as text, and the smallest good tour file.

use twoclocks::tui::app::App;
use twoclocks::tui::theme::Theme;
use twoclocks::tui::tour::Tour;

/// Presses `action` and lets the work it queued finish.
pub use crate::ui_common::act_settled as act;
/// The screen drawn at `w` × `h`, through a test terminal.
pub use crate::ui_common::buffer as frame;

/// One step as a tour file writes it, the smallest good tour: a title and a caption.
pub const GOOD_STEP: &str = "[[step]]\ntitle = \"One\"\ncaption = \"{late} late\"\n";

/// The built-in tour on its first step, dark theme.
pub fn tour() -> App {
    tour_in(Theme::dark())
}

/// The built-in tour on its first step, in `theme`.
pub fn tour_in(theme: Theme) -> App {
    let mut a = App::open_tour(Tour::built_in().unwrap(), theme).unwrap();
    a.settle();
    a
}

/// The built-in tour from the step named `name` on, dark theme.
pub fn tour_from(name: &str) -> App {
    let t = Tour::built_in().unwrap();
    let at = t.find(name).unwrap();
    let mut a = App::open_tour(t.from(at), Theme::dark()).unwrap();
    a.settle();
    a
}

/// The screen drawn at `w` × `h`, as text, a line a row.
pub fn screen(a: &mut App, w: u16, h: u16) -> String {
    crate::ui_common::text(&frame(a, w, h))
}
