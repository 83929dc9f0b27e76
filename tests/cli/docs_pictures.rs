//! The screens the README and the guide show as pictures (docs/*.svg, as `s` saves them) are
//! what the program draws today: each is drawn here and compared with its file. When a screen
//! changes, `TWOCLOCKS_WRITE_GOLDEN=1 cargo test --test cli docs_pictures` writes them anew.

use ratatui::buffer::Buffer;
use twoclocks::engine::EngineConfig;
use twoclocks::tui::app::{Action, App};
use twoclocks::tui::export::svg;
use twoclocks::tui::scenario::Scenario;
use twoclocks::tui::theme::Theme;
use twoclocks::tui::{app_for, Options};

use crate::tour_common::{act, frame, tour_in};

/// The tour on the step named `name`, reached as a class reaches it (n from the first).
fn tour_step(name: &str, theme: Theme) -> App {
    let mut a = tour_in(theme);
    while a.tour.as_ref().unwrap().step().name.as_deref() != Some(name) {
        act(&mut a, Action::TourNext);
    }
    a
}

fn check(name: &str, buf: &Buffer) {
    let path = format!("{}/docs/{name}", env!("CARGO_MANIFEST_DIR"));
    let got = svg::svg(buf);
    if std::env::var_os("TWOCLOCKS_WRITE_GOLDEN").is_some() {
        std::fs::write(&path, &got).unwrap();
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("{path}: TWOCLOCKS_WRITE_GOLDEN=1 writes it"));
    assert!(
        got == want,
        "{path} is not what the program draws today: \
         TWOCLOCKS_WRITE_GOLDEN=1 cargo test --test cli docs_pictures writes it anew"
    );
}

#[test]
fn the_guides_pictures_are_the_screens_drawn_today() {
    // The classroom stream at its end, the UI's defaults, light theme, 120×40.
    let mut end = app_for(Options {
        scenario: Scenario::classroom(),
        config: EngineConfig::fixed(20_000.0, 0.0),
        speed: 10.0,
        theme: Theme::light(),
        play: false,
    });
    end.settle();
    act(&mut end, Action::JumpToEnd);
    check("classroom-end-light.svg", &frame(&mut end, 120, 40));
    check(
        "tour-two-clocks-80x24.svg",
        &frame(&mut tour_step("two-clocks", Theme::dark()), 80, 24),
    );
    check(
        "tour-late-data-light.svg",
        &frame(&mut tour_step("late-data", Theme::light()), 120, 40),
    );
    check(
        "tour-panes-light.svg",
        &frame(&mut tour_step("triggers", Theme::light()), 120, 40),
    );
    check(
        "tour-crash-80x24.svg",
        &frame(&mut tour_step("crash", Theme::dark()), 80, 24),
    );
}

/// `docs/advise.svg` is what `twoclocks advise --plot docs/advise.svg` draws today.
#[test]
fn the_advisors_picture_is_the_one_it_draws_today() {
    let path = format!("{}/docs/advise.svg", env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let drawn = dir.path().join("advise.svg");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_twoclocks"))
        .args(["advise", "--plot"])
        .arg(&drawn)
        .output()
        .expect("the binary runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = std::fs::read_to_string(&drawn).unwrap();
    if std::env::var_os("TWOCLOCKS_WRITE_GOLDEN").is_some() {
        std::fs::write(&path, &got).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap();
    assert!(
        got == want,
        "{path} is not what `twoclocks advise --plot` draws today: \
         TWOCLOCKS_WRITE_GOLDEN=1 cargo test --test cli docs_pictures writes it anew"
    );
}
