//! The tour's predict steps in process: the question is the engine's (the next event behind
//! the watermark, the next pane), asked just before its event arrives; the keys that would
//! move the run wait for the vote; a vote reveals the answer with the inequality, inspects the
//! event and says whether the room was right; `r` asks again, `n` moves on; a pane question's
//! choices hold the pane that fires. Tour files with a bad `predict` are refused with the
//! file, line and field.

use twoclocks::engine::Fate;
use twoclocks::tui::app::{Action, App};
use twoclocks::tui::lesson::predict::{self, Ask, Question, FATES};
use twoclocks::tui::theme::Theme;
use twoclocks::tui::tour::Tour;

use crate::tour_common::{act, tour_from};

fn caption(a: &App) -> String {
    twoclocks::tui::view::caption::text(a).unwrap()
}

#[test]
fn the_late_question_stops_just_before_its_event_and_reveals_its_fate() {
    let mut a = tour_from("predict-late");
    let q = a.voting().cloned().expect("a question is open");
    let Question::Fate { offset, event, .. } = q.clone() else {
        panic!("a fate question");
    };
    // The engine's answer, asked of the step's run at its playhead (100 s).
    let from = a
        .scenario()
        .stream
        .events
        .partition_point(|e| e.proc_time <= 100_000.0);
    let want = predict::ask(
        a.dials().config(),
        &a.scenario().stream,
        &a.scenario().oracle.truth,
        from,
        Ask::NextLate,
        None,
    )
    .unwrap();
    assert_eq!(want, q);
    // Every event before it has arrived, not it.
    assert_eq!(a.trace().arrived(), offset);
    assert!(a.playhead().now < event.proc_time);
    assert_eq!(a.selection.key, Some(event.key));
    assert!(caption(&a).contains(&format!("key {}", a.scenario().stream.key_name(event.key))));

    // The run waits for the vote.
    for k in [
        Action::TogglePlay,
        Action::Step,
        Action::JumpToEnd,
        Action::GraceUp,
    ] {
        act(&mut a, k);
        assert!(
            a.status.as_ref().unwrap().text.contains("for the vote"),
            "{k:?}"
        );
        assert_eq!(a.trace().arrived(), offset, "{k:?}");
    }

    // A wrong vote: the fate revealed, with its inequality, and said wrong.
    let right = q.answer();
    assert_ne!(FATES[right], Fate::OnTime);
    let wrong = (right + 1) % 3;
    act(&mut a, Action::Policy(wrong as u8));
    assert!(a.voting().is_none());
    assert_eq!(a.trace().arrived(), offset + 1);
    assert_eq!(a.selection.inspected, Some(offset));
    let said = caption(&a);
    assert!(said.contains("≤ watermark"), "{said}");
    assert!(said.ends_with("not this time."), "{said}");
    // The dials were not touched by the key (1 2 3 pick a policy elsewhere).
    let dials = a.dials();
    act(&mut a, Action::Policy(right as u8));
    assert_eq!(a.dials(), dials);
    assert!(a.status.as_ref().unwrap().text.contains("has voted"));

    // r asks again; the right vote is right.
    act(&mut a, Action::TourReset);
    assert_eq!(a.voting(), Some(&q));
    act(&mut a, Action::Policy(right as u8));
    assert!(caption(&a).ends_with(": right."), "{}", caption(&a));
}

#[test]
fn the_pane_question_offers_the_pane_that_fires_and_reveals_it() {
    let mut a = tour_from("predict-pane");
    let q = a.voting().cloned().expect("a question is open");
    let Question::Pane {
        pane,
        choices,
        answer,
        ..
    } = q.clone()
    else {
        panic!("a pane question");
    };
    assert_eq!(choices[answer].cell, pane.cell);
    assert_eq!(choices[answer].value, pane.value);
    let asked = caption(&a);
    for k in 1..=choices.len() {
        assert!(asked.contains(&format!("[{k}]\u{a0}")), "{asked}");
    }
    // Asked where the step put the playhead, before the pane fires.
    assert!(a.playhead().now < pane.proc_time);
    act(&mut a, Action::Policy(answer as u8));
    let said = caption(&a);
    assert!(said.contains("fired ON_TIME with"), "{said}");
    assert!(said.ends_with(": right."), "{said}");
    assert!(a.playhead().now >= pane.proc_time);
    // The window that fired is selected: its pane is in the panes panel.
    assert_eq!(a.selection.key, Some(pane.cell.key));
    assert_eq!(
        a.scenario().windows_of(Some(pane.cell.key))[a.selection.window],
        pane.cell.window
    );
    // n moves on: no question in the next step.
    act(&mut a, Action::TourNext);
    assert!(a.prediction.is_none());
}

fn bad(text: &str) -> String {
    Tour::parse("p.toml", text).unwrap_err().to_string()
}

#[test]
fn a_bad_predict_is_refused_with_the_file_line_and_field() {
    let head = "[[step]]\ntitle = \"Guess\"\ncaption = \"{event}\"\n";
    let e = bad(&format!("{head}predict = \"soon\"\n"));
    assert!(
        e.starts_with("p.toml: line 4: predict: \"soon\" is not a question"),
        "{e}"
    );
    let e = bad(&format!("{head}job = true\npredict = \"next-late\"\n"));
    assert!(e.starts_with("p.toml: line 5: predict:"), "{e}");
    assert!(e.contains("leave out job and side"), "{e}");
    let e = bad(&format!(
        "{head}playhead = \"end\"\npredict = \"next-late\"\n"
    ));
    assert!(e.starts_with("p.toml: line 5: predict:"), "{e}");
    assert!(e.contains("no late or dropped event"), "{e}");
    let e = bad(&format!("{head}playhead = \"100s\"\npredict = \"3\"\n"));
    assert!(e.contains("has 200 events"), "{e}");
    // A number still to come is a question.
    let t = Tour::parse("p.toml", &format!("{head}predict = \"150\"\n")).unwrap();
    let a = App::open_tour(t, Theme::dark()).unwrap();
    assert!(matches!(
        a.voting(),
        Some(Question::Fate { offset: 150, .. })
    ));
}

#[test]
fn the_guides_reveal_is_the_programs() {
    let mut a = tour_from("predict-late");
    act(&mut a, Action::Policy(0));
    let said = caption(&a);
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/presenting.md"))
            .unwrap()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
    assert!(
        readme.contains(&format!("(`{said}`)")),
        "docs/presenting.md quotes the reveal of predict-late voted 1; the program says:\n{said}"
    );
}
