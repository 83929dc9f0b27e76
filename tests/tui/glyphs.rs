//! Every glyph the UI draws exists in DejaVu Sans Mono, the font of many Linux terminals and
//! of projector laptops: a glyph it lacks is drawn as a box (or borrowed from another font at
//! another width). Checked against the font's character map (tests/fonts, its licence
//! beside it) over every screen the snapshot tests pin and every step of the built-in tour
//! at 80×24 and 120×40, with the help overlay open and closed.

use std::collections::BTreeMap;
use std::time::Duration;

use ab_glyph::{Font, FontRef};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use twoclocks::tui::app::{update, Action, App, Msg};
use twoclocks::tui::theme::Theme;
use twoclocks::tui::tour::Tour;
use twoclocks::tui::view;

const FONT: &[u8] = include_bytes!("../fonts/DejaVuSansMono.ttf");

fn drawn(a: &mut App, w: u16, h: u16) -> String {
    update(a, Msg::Resize(w, h), Duration::ZERO);
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| view::render(a, f)).unwrap();
    let buf = t.backend().buffer();
    buf.content().iter().map(|c| c.symbol()).collect()
}

/// The characters of `text` the font has no glyph for, each with where it was seen.
fn missing(font: &FontRef, text: &str, place: &str, out: &mut BTreeMap<char, String>) {
    for c in text.chars() {
        if !c.is_control() && font.glyph_id(c).0 == 0 {
            out.entry(c).or_insert_with(|| place.to_string());
        }
    }
}

#[test]
fn every_glyph_on_every_screen_is_in_dejavu_sans_mono() {
    let font = FontRef::try_from_slice(FONT).expect("the font loads");
    let mut lacking = BTreeMap::new();
    // The screens the snapshot tests pin (their header lines are plain ASCII).
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/snapshots");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "snap") {
            let text = std::fs::read_to_string(&path).unwrap();
            missing(&font, &text, &path.display().to_string(), &mut lacking);
            seen += 1;
        }
    }
    assert!(seen >= 40, "only {seen} snapshots found");
    // Every tour step, with and without the help.
    let mut a = App::open_tour(Tour::built_in().unwrap(), Theme::dark()).unwrap();
    a.settle();
    let steps = a.tour.as_ref().unwrap().steps.len();
    for k in 0..steps {
        for (w, h) in [(80, 24), (120, 40)] {
            let place = format!("tour step {} at {w}×{h}", k + 1);
            missing(&font, &drawn(&mut a, w, h), &place, &mut lacking);
            update(&mut a, Msg::Action(Action::Help), Duration::ZERO);
            missing(
                &font,
                &drawn(&mut a, w, h),
                &format!("{place}, help"),
                &mut lacking,
            );
            update(&mut a, Msg::Action(Action::Help), Duration::ZERO);
        }
        update(&mut a, Msg::Action(Action::TourNext), Duration::ZERO);
        a.settle();
    }
    assert!(
        lacking.is_empty(),
        "glyphs DejaVu Sans Mono lacks (drawn as boxes): {lacking:?}"
    );
}

#[test]
fn the_check_finds_a_glyph_the_font_lacks() {
    let font = FontRef::try_from_slice(FONT).unwrap();
    let mut lacking = BTreeMap::new();
    missing(&font, "paused ⏸ aligning ⧗ ok •◆✕", "here", &mut lacking);
    assert_eq!(lacking.keys().copied().collect::<String>(), "⏸⧗");
}
