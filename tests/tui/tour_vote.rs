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
        let (dials, arrived) = (a.dials(), a.trace().arrived());
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
            assert_eq!(a.dials(), dials, "{step} {k:?}");
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
    let grace = a.dials().grace;
    act(&mut a, Action::GraceUp);
    assert!(a.dials().grace > grace);
}

/// The watermark the Watermark panel shows, as its `watermark` (120×40) or `wm` (80×24) row
/// writes it: `100.8s`.
fn watermark_panel(s: &str) -> String {
    s.lines()
        .find_map(|l| {
            let (_, rest) = l
                .split_once("│watermark ")
                .or_else(|| l.split_once("│wm "))?;
            rest.split_whitespace().next().map(str::to_string)
        })
        .unwrap_or_default()
}

#[test]
fn the_late_question_names_the_moment_of_each_watermark_it_gives() {
    let mut a = tour_from("predict-late");
    let Some(twoclocks::tui::lesson::predict::Question::Fate { inspection, .. }) =
        a.voting().cloned()
    else {
        panic!("a fate question");
    };
    for (w, h) in [(80, 24), (120, 40)] {
        let s = screen(&mut a, w, h);
        let shown = watermark_panel(&s);
        let at_arrival = format!("{:.1}s", inspection.watermark / 1000.0);
        assert_ne!(
            shown, at_arrival,
            "the panel shows the watermark before the arrival"
        );
        // The caption's band, its first rows (left of the panels), joined.
        let band: String = s
            .lines()
            .skip(1)
            .take(3)
            .map(|l| l.split(['│', '└', '┌']).next().unwrap_or_default().trim())
            .collect::<Vec<_>>()
            .join(" ");
        let now = format!(
            ": watermark 102 s then, {} s now.",
            shown.trim_end_matches('s')
        );
        let band = band.trim_end();
        assert!(band.contains(&now), "{w}×{h}: {band}\n{s}");
        assert!(
            band.ends_with("1, 2 or 3."),
            "{w}×{h}: the caption whole: {band}"
        );
    }
}

/// The windows table's row for the window spanning `span` (`90–120s`), its words after the
/// span.
fn table_row(s: &str, span: &str) -> Vec<String> {
    s.lines()
        .find_map(|l| {
            let (_, rest) = l.split_once(&format!("│{span} "))?;
            Some(
                rest.split('│')
                    .next()
                    .unwrap_or_default()
                    .split_whitespace()
                    .map(str::to_string)
                    .collect(),
            )
        })
        .unwrap_or_default()
}

#[test]
fn the_pane_question_does_not_show_its_windows_value_or_oracle_until_the_vote() {
    let mut a = tour_from("predict-pane");
    let Some(twoclocks::tui::lesson::predict::Question::Pane {
        choices, answer, ..
    }) = a.voting().cloned()
    else {
        panic!("a pane question");
    };
    let cell = choices[answer].cell;
    let span = format!(
        "{:.0}–{:.0}s",
        cell.window.start() / 1000.0,
        cell.window.end() / 1000.0
    );
    for (w, h) in [(80, 24), (120, 40)] {
        let s = screen(&mut a, w, h);
        let row = table_row(&s, &span);
        // Value, oracle and Δ, then the state: none of the choices' values shows.
        assert_eq!(row[..3], ["?", "?", "?"], "{w}×{h}: {row:?}\n{s}");
        for c in &choices {
            assert!(!row.contains(&c.value.to_string()), "{w}×{h}: {row:?}");
        }
    }
    act(&mut a, Action::Policy(answer as u8));
    let s = screen(&mut a, 120, 40);
    let row = table_row(&s, &span);
    assert_eq!(row[0], choices[answer].value.to_string(), "{row:?}\n{s}");
    assert!(!row.contains(&"?".to_string()), "{row:?}");
}

#[test]
fn the_pane_questions_mark_says_what_it_marks() {
    let mut a = tour_from("predict-pane");
    for (w, h) in [(80, 24), (120, 40)] {
        let s = screen(&mut a, w, h);
        // On the playhead's row, over the window's span: a bar and the words.
        let row = s.lines().find(|l| l.contains('▶')).unwrap_or_default();
        assert!(row.contains("╌? next pane"), "{w}×{h}: {row}\n{s}");
    }
    let answer = a.voting().map(|q| q.answer()).unwrap();
    act(&mut a, Action::Policy(answer as u8));
    let s = screen(&mut a, 120, 40);
    assert!(!s.contains("? next pane"), "{s}");
    // The fate question's `?` is the event's, where it will land: no words.
    let mut a = tour_from("predict-late");
    let s = screen(&mut a, 120, 40);
    assert!(!s.contains("? next pane"), "{s}");
    let row = s.lines().find(|l| l.contains('▶')).unwrap_or_default();
    assert!(row.contains('?'), "{row}");
}
