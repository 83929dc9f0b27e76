//! A tour's votes are fair questions: while the room votes, the keys that would move the run or
//! turn a dial wait, each saying so whole in the footer at 80×24 (the dials panel's title says
//! the dials are held); once it has voted the dials are live again.

use twoclocks::tui::app::{Action, App, DIALS_HELD};

use crate::tour_common::{act, screen, tour_from};

/// The screen's last row, the footer.
fn footer(a: &mut App, w: u16, h: u16) -> String {
    screen(a, w, h)
        .lines()
        .last()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn a_key_that_waits_for_the_vote_says_so_whole_at_80x24() {
    for step in ["predict-late", "predict-pane"] {
        let mut a = tour_from(step);
        assert!(a.voting().is_some(), "{step}");
        let (dials, arrived) = (a.dials, a.trace().arrived());
        for k in [
            Action::TogglePlay,
            Action::Step,
            Action::Restart,
            Action::JumpToEnd,
            Action::NextException,
            Action::ToggleJob,
            Action::Crash,
            Action::SideBySide,
            Action::LagDown,
            Action::GraceUp,
            Action::EarlyUp,
            Action::DialUp,
            Action::CycleWatermark,
            Action::CycleAccumulation,
        ] {
            act(&mut a, k);
            let why = a
                .status
                .as_ref()
                .map(|s| s.text.clone())
                .unwrap_or_default();
            assert!(
                why.contains("waits for the vote") || why == DIALS_HELD,
                "{step} {k:?}: {why}"
            );
            for (w, h) in [(80, 24), (120, 40)] {
                let f = footer(&mut a, w, h);
                assert!(f.contains(&format!("▸ {why}")), "{step} {k:?} {w}×{h}: {f}");
                assert!(f.contains("vote 1"), "{step} {k:?} {w}×{h}: {f}");
            }
            assert_eq!(a.dials, dials, "{step} {k:?}");
            assert_eq!(a.trace().arrived(), arrived, "{step} {k:?}");
        }
    }
}

#[test]
fn the_dials_say_they_are_held_for_the_vote_and_are_live_after_it() {
    let mut a = tour_from("predict-late");
    for (w, h) in [(80, 24), (120, 40)] {
        let s = screen(&mut a, w, h);
        assert!(s.contains("Dials · held for the vote"), "{w}×{h}:\n{s}");
    }
    let answer = a.voting().map(|q| q.answer()).unwrap();
    act(&mut a, Action::Policy(answer as u8));
    let s = screen(&mut a, 120, 40);
    assert!(!s.contains("held for the vote"), "{s}");
    let grace = a.dials.grace;
    act(&mut a, Action::GraceUp);
    assert!(a.dials.grace > grace);
}
