//! What the UI update tests share: the classroom app, pressing keys, ticking the clock,
//! and reading the footer and the screen.

#![allow(dead_code)]

use std::sync::OnceLock;
use std::time::Duration;

use twoclocks::engine::timeline::Timeline;
use twoclocks::engine::EngineConfig;
use twoclocks::tui::app::{update, Action, App, Msg};
use twoclocks::tui::scenario::Scenario;
use twoclocks::tui::theme::Theme;
use twoclocks::tui::{app_for, Options};

/// The classroom app with the default dials (fixed 20 s, no grace), frontier computed once.
pub fn app() -> App {
    static BASE: OnceLock<App> = OnceLock::new();
    BASE.get_or_init(|| {
        let mut a = app_for(Options {
            scenario: Scenario::classroom(),
            config: EngineConfig::fixed(20_000.0, 0.0),
            speed: 10.0,
            theme: Theme::mono(),
            play: false,
        });
        a.settle();
        a
    })
    .clone()
}

/// The single processor's timeline the app draws.
pub fn timeline(a: &App) -> &Timeline {
    a.trace.timeline().expect("the single processor")
}

pub fn act(a: &mut App, action: Action) -> bool {
    update(a, Msg::Action(action), Duration::ZERO)
}

pub fn tick(a: &mut App, secs: f64) -> bool {
    update(a, Msg::Tick, Duration::from_secs_f64(secs))
}

/// The footer's status message, or "".
pub fn said(a: &App) -> &str {
    a.status.as_ref().map_or("", |s| s.text.as_str())
}

/// The screen's text at the app's size.
pub fn screen(a: &App) -> String {
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    let area = Rect::new(0, 0, a.size.0, a.size.1);
    let mut buf = Buffer::empty(area);
    twoclocks::tui::view::draw(a, area, &mut buf);
    (0..area.height)
        .map(|y| {
            (0..area.width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}
