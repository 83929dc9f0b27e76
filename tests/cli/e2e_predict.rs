//! End to end, a class that predicts: the real binary in a pseudo-terminal on the tour's
//! predict steps at 80×24. The step pauses before its event arrives and offers the vote; a
//! key that would move the run is refused while the room votes; a wrong vote reveals the
//! fate with its inequality and says so; `r` asks again and the right vote is called right.
//! The session is recorded, and the recording played back reveals the same answer. Every wait
//! polls the screen with a generous deadline.

use crate::pty_common::ui_in;

/// The caption band's text as one line: the top four rows, each up to the panel beside it.
fn flat(screen: &str) -> String {
    screen
        .lines()
        .take(4)
        .map(|l| l.split(['┌', '│', '└']).next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The fate a revealed caption opens with, and the key that votes for it.
fn revealed_fate(screen: &str) -> Option<(&'static str, &'static [u8])> {
    let s = flat(screen);
    [
        ("On time:", b"1" as &[u8]),
        ("Late, kept:", b"2"),
        ("Dropped:", b"3"),
    ]
    .into_iter()
    .find(|(word, _)| s.contains(word))
}

#[test]
fn the_room_votes_then_sees_the_inequality_and_a_replay_shows_the_same() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let mut s = ui_in(
        dir,
        (80, 24),
        &["tour", "--from", "predict-late", "--record", "vote.rec"],
    );
    let asked = s.wait_for("the question", |t| {
        // The footer too: under load a frame may be read before it is all drawn.
        flat(t).contains("On time, late, or dropped?") && t.contains("vote 1 on time")
    });
    assert!(
        asked.contains("vote 1 on time · 2 late · 3 dropped"),
        "{asked}"
    );
    assert!(
        flat(&asked).contains("Predict: on time, late, or dropped?"),
        "{asked}"
    );
    assert!(flat(&asked).contains("Next (?): key"), "{asked}");
    // The event on its way is drawn on the plot: a `?` on the playhead's row.
    assert!(
        asked.lines().any(|l| l.contains('▶') && l.contains('?')),
        "{asked}"
    );

    // The run waits for the vote.
    s.press(b" ");
    s.wait_for("the refusal", |t| t.contains("the run waits for the vote"));

    // Vote on time: the lesson's next event behind the watermark is never on time.
    s.press(b"1");
    let wrong = s.wait_for("the reveal", |t| revealed_fate(t).is_some());
    let (fate, key) = revealed_fate(&wrong).unwrap();
    assert_ne!(fate, "On time:", "a late event was asked about:\n{wrong}");
    let w = flat(&wrong);
    assert!(w.contains("≤ watermark"), "{wrong}");
    assert!(
        w.contains("The room chose on time: not this time."),
        "{wrong}"
    );

    // Asked again, the right vote is right.
    s.press(b"r");
    s.wait_for("the question again", |t| {
        flat(t).contains("On time, late, or dropped?")
    });
    s.press(key);
    let right = s.wait_for("the right vote", |t| flat(t).contains(": right."));
    assert_eq!(revealed_fate(&right).map(|f| f.0), Some(fate), "{right}");
    s.press(b"q");
    s.expect_clean_exit();

    // The recording plays the votes back: the same answer, called right. Played without its
    // q (which would end the replay by itself), the UI stays on the revealed answer.
    let rec = std::fs::read_to_string(dir.join("vote.rec")).unwrap();
    let lines: Vec<&str> = rec.lines().collect();
    assert!(lines[lines.len() - 2].ends_with(" key q"), "{rec}");
    let mut without_q: Vec<&str> = lines[..lines.len() - 2].to_vec();
    without_q.push(lines[lines.len() - 1]);
    std::fs::write(dir.join("noq.rec"), without_q.join("\n") + "\n").unwrap();
    let mut r = ui_in(
        dir,
        (80, 24),
        &["tour", "--from", "predict-late", "--replay", "noq.rec"],
    );
    r.wait_for("the replayed vote", |t| {
        flat(t).contains(": right.") && t.contains("the recording has been played")
    });
    r.press(b"q");
    r.expect_clean_exit();
}

#[test]
fn a_pane_question_offers_three_values_and_reveals_the_pane() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let mut s = ui_in(dir, (80, 24), &["tour", "--from", "predict-pane"]);
    let asked = s.wait_for("the question", |t| {
        flat(t).contains("With what value?") && t.contains("vote 1 2 3")
    });
    let a = flat(&asked);
    for k in ["[1] ", "[2] ", "[3] "] {
        assert!(a.contains(k), "{k} in {asked}");
    }
    s.press(b"2");
    let shown = s.wait_for("the reveal", |t| flat(t).contains("The room chose 2"));
    assert!(flat(&shown).contains("fired ON_TIME with"), "{shown}");
    s.press(b"q");
    s.expect_clean_exit();
}
