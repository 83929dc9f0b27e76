//! What the tour tests share: the built-in tour opened and settled (from its start or a named
//! step), a key pressed (and the
//! work it queues done), and the screen drawn at a size, as a buffer or as text.

// Each test file uses a part of this.
#![allow(dead_code)]

use std::time::Duration;

use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::Terminal;
use twoclocks::tui::app::{update, Action, App, Msg};
use twoclocks::tui::theme::Theme;
use twoclocks::tui::tour::Tour;
use twoclocks::tui::view;

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

/// Presses `action` and lets the work it queued finish.
pub fn act(a: &mut App, action: Action) {
    update(a, Msg::Action(action), Duration::ZERO);
    a.settle();
}

/// The screen drawn at `w` × `h`.
pub fn frame(a: &mut App, w: u16, h: u16) -> Buffer {
    update(a, Msg::Resize(w, h), Duration::ZERO);
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| view::render(a, f)).unwrap();
    t.backend().buffer().clone()
}

/// The screen drawn at `w` × `h`, as text, a line a row.
pub fn screen(a: &mut App, w: u16, h: u16) -> String {
    let buf = frame(a, w, h);
    (0..h)
        .map(|y| (0..w).map(|x| buf[(x, y)].symbol()).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}
