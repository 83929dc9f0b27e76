//! A tour played back from a recording says so all the way: the footer's `▶ replay` mark stays
//! through every step the recording moves to (each step starts the state afresh), and while it
//! plays the footer and the caption's rule offer no key but quitting, since the recording has
//! the others. Once it has played, the keys are offered again.

use std::time::Duration;

use twoclocks::tui::app::{Action, App, ReplayProgress};

use crate::tour_common::{act, screen, tour_from};

/// The screen's last row, the footer.
fn footer(a: &mut App, size: (u16, u16)) -> String {
    screen(a, size.0, size.1)
        .lines()
        .last()
        .unwrap_or_default()
        .to_string()
}

/// The caption band's top rule, the screen's first row.
fn rule(a: &mut App, size: (u16, u16)) -> String {
    screen(a, size.0, size.1)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string()
}

fn replaying(a: &mut App) {
    a.replay = Some(ReplayProgress {
        file: "demo.rec".into(),
        at: Duration::ZERO,
        total: Duration::from_secs(10),
    });
}

#[test]
fn a_replayed_tour_says_so_at_every_step_and_offers_only_quitting() {
    let mut a = tour_from("late-data");
    replaying(&mut a);
    // The recording's keys, as the shell applies them: on to the vote, the vote, on again, back.
    for k in [
        None,
        Some(Action::TourNext),
        Some(Action::Policy(1)),
        Some(Action::TourNext),
        Some(Action::TourPrev),
        Some(Action::TourReset),
    ] {
        if let Some(k) = k {
            act(&mut a, k);
        }
        for size in [(80, 24), (120, 40)] {
            let f = footer(&mut a, size);
            assert!(
                f.contains("▶ replay demo.rec 0:00 / 0:10"),
                "{k:?} {size:?}: {f}"
            );
            assert!(f.contains("quit"), "{k:?} {size:?}: {f}");
            for offered in ["n N", "Space", "dial", "help", "vote", "window", "inspect"] {
                assert!(!f.contains(offered), "{k:?} {size:?}: {offered} in {f}");
            }
            let r = rule(&mut a, size);
            assert!(!r.contains("n next"), "{k:?} {size:?}: {r}");
        }
    }
    // Played: the keys are the presenter's again, and offered.
    a.replay = None;
    act(&mut a, Action::Policy(1));
    let f = footer(&mut a, (120, 40));
    assert!(f.contains("n N step") && f.contains("Space play"), "{f}");
    assert!(rule(&mut a, (120, 40)).contains("n next"));
}

#[test]
fn a_held_key_is_said_whole_at_80x24_beside_a_long_recordings_name() {
    let mut a = tour_from("predict-late");
    a.replay = Some(ReplayProgress {
        file: "rehearsals/monday-lesson-with-the-second-class.rec".into(),
        at: Duration::from_secs(41),
        total: Duration::from_secs(130),
    });
    a.say(twoclocks::tui::app::REPLAY_HAS_THE_KEYS);
    let f = footer(&mut a, (80, 24));
    assert!(
        f.contains(&format!("▸ {}", twoclocks::tui::app::REPLAY_HAS_THE_KEYS)),
        "{f}"
    );
    assert!(f.contains("class.rec 0:41 / 2:10"), "{f}");
}
