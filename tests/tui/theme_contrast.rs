//! Contrast of the colour themes, measured as an xterm draws them: every style each theme
//! defines, and every glyph of whole screens rendered with ratatui's TestBackend, against
//! WCAG 2.1 AA (4.5:1 for text, 3:1 for lines and marks) on each terminal the theme is meant
//! for (the light theme on light and dark terminals alike, since it paints its own background).

use std::time::Duration;

use ratatui::buffer::Buffer;
use ratatui::style::Style;
use twoclocks::engine::{EngineConfig, Fate};
use twoclocks::tui::app::{update, Action, App, Msg};
use twoclocks::tui::scenario::Scenario;
use twoclocks::tui::theme::{contrast, Theme, Use};
use twoclocks::tui::{app_for, Options};

use crate::ui_common::{act, buffer, use_of};

fn themes() -> [Theme; 3] {
    [Theme::dark(), Theme::light(), Theme::mono()]
}

#[test]
fn every_style_of_every_theme_meets_aa() {
    let mut failures = Vec::new();
    for theme in themes() {
        let mut worst = f64::INFINITY;
        for term in theme.terminals() {
            for (name, style, what) in theme.roles() {
                let (fg, bg) = contrast::shown(style, theme.base, term);
                let r = contrast::ratio(fg, bg);
                worst = worst.min(r);
                if r < what.threshold() {
                    failures.push(format!(
                        "{:?} {name} on a {}: {fg:?} on {bg:?} = {r:.2}:1 < {}",
                        theme.name,
                        term.name,
                        what.threshold()
                    ));
                }
            }
        }
        println!("{:?}: worst style contrast {worst:.2}:1", theme.name);
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn the_formula_and_the_palette_give_the_known_figures() {
    let white = contrast::indexed(15);
    assert_eq!(white, (255, 255, 255));
    assert!((contrast::ratio((0, 0, 0), white) - 21.0).abs() < 1e-9);
    // xterm's grey 7 on white: 1.26:1; cube colour 22 is (0, 95, 0); grey 232 is (8, 8, 8).
    assert!((contrast::ratio(contrast::indexed(7), white) - 1.26).abs() < 0.01);
    assert_eq!(contrast::indexed(22), (0, 95, 0));
    assert_eq!(contrast::indexed(232), (8, 8, 8));
    assert_eq!(contrast::indexed(255), (238, 238, 238));
}

fn app(theme: Theme, cfg: EngineConfig) -> App {
    let mut a = app_for(Options {
        scenario: Scenario::classroom(),
        config: cfg,
        speed: 10.0,
        theme,
        play: false,
    });
    a.settle();
    a
}

/// The screens a class sees, in one theme: midway, at the end with late and dropped data and
/// the inspector open, in job mode after a crash, and under the help overlay.
fn screens(theme: Theme) -> Vec<(String, Buffer)> {
    let mut v = Vec::new();
    for (w, h) in [(120, 40), (80, 24)] {
        let mut a = app(theme, EngineConfig::fixed(20_000.0, 0.0));
        act(&mut a, Action::TogglePlay);
        update(&mut a, Msg::Tick, Duration::from_secs(30));
        act(&mut a, Action::TogglePlay);
        v.push((format!("midway {w}×{h}"), buffer(&mut a, w, h)));

        let mut a = app(theme, EngineConfig::fixed(10_000.0, 30_000.0));
        act(&mut a, Action::JumpToEnd);
        a.selection.inspected = a
            .trace()
            .timeline()
            .unwrap()
            .fates()
            .iter()
            .rposition(|f| *f == Fate::Late);
        v.push((format!("end, inspected {w}×{h}"), buffer(&mut a, w, h)));

        let mut a = app(theme, EngineConfig::fixed(20_000.0, 0.0));
        act(&mut a, Action::ToggleJob);
        act(&mut a, Action::TogglePlay);
        update(&mut a, Msg::Tick, Duration::from_secs(20));
        act(&mut a, Action::Crash);
        act(&mut a, Action::TogglePlay);
        v.push((format!("job after a crash {w}×{h}"), buffer(&mut a, w, h)));

        let mut a = app(theme, EngineConfig::fixed(20_000.0, 0.0));
        act(&mut a, Action::Help);
        v.push((format!("help {w}×{h}"), buffer(&mut a, w, h)));
    }
    v
}

#[test]
fn every_glyph_on_screen_meets_aa_against_its_own_background() {
    let mut failures = Vec::new();
    for theme in themes() {
        let mut worst = f64::INFINITY;
        let mut worst_text = f64::INFINITY;
        let mut short = 0usize;
        for (what, buf) in screens(theme) {
            for term in theme.terminals() {
                for y in buf.area.top()..buf.area.bottom() {
                    for x in buf.area.left()..buf.area.right() {
                        let cell = &buf[(x, y)];
                        let sym = cell.symbol();
                        if sym.trim().is_empty() {
                            continue;
                        }
                        let (fg, bg) = contrast::shown(cell.style(), Style::default(), term);
                        let r = contrast::ratio(fg, bg);
                        worst = worst.min(r);
                        let need = use_of(sym).threshold();
                        if use_of(sym) == Use::Text {
                            worst_text = worst_text.min(r);
                        }
                        if r < need {
                            short += 1;
                            if failures.len() < 40 {
                                failures.push(format!(
                                    "{:?}, {what}, {}: {sym:?} at ({x},{y}) {fg:?} on {bg:?} = {r:.2}:1 < {need}",
                                    theme.name, term.name
                                ));
                            }
                        }
                    }
                }
            }
        }
        println!(
            "{:?}: worst glyph contrast {worst:.2}:1 (text {worst_text:.2}:1), {short} glyphs short",
            theme.name
        );
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn the_colour_themes_use_fixed_colours_and_the_light_one_paints_its_background() {
    use ratatui::style::Color;
    let fixed = |c: Option<Color>| matches!(c, None | Some(Color::Indexed(16..) | Color::Rgb(..)));
    for theme in [Theme::dark(), Theme::light()] {
        for (name, style, _) in theme.roles() {
            assert!(fixed(style.fg), "{:?} {name}: {:?}", theme.name, style.fg);
            assert!(fixed(style.bg), "{:?} {name}: {:?}", theme.name, style.bg);
        }
    }
    let light = Theme::light();
    assert!(matches!(light.base.bg, Some(Color::Indexed(16..))));
    for (name, style, _) in light.roles() {
        assert_eq!(style.bg, light.base.bg, "light {name} keeps the background");
    }
    // Painted under the whole screen: blank cells too.
    let mut a = app(light, EngineConfig::fixed(20_000.0, 0.0));
    let buf = buffer(&mut a, 120, 40);
    assert!(buf.content().iter().all(|c| c.bg == light.base.bg.unwrap()));
}
