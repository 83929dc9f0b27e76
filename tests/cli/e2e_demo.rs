//! End to end, a rehearsed demo: the real binary in a pseudo-terminal records a demo
//! (`--record`) and casts it (`--cast`); the cast, played into a terminal emulator, shows what
//! the terminal showed; the recording played back (`--replay`) shows the same screen, and a
//! replayed tour keeps saying it is a replay at every step it moves to. And the
//! demo's files are checked before the UI opens: a bad recording names its line, a path that
//! cannot be written is an error, exit code 2.

use std::path::Path;
use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

use crate::pty_common::{ui_in, DEADLINE};

const COLS: u16 = 100;
const ROWS: u16 = 30;

/// Every row but the footer (which says, for a moment, that a recording has been played).
fn above_footer(screen: &str) -> Vec<String> {
    let rows: Vec<String> = screen.lines().map(str::to_string).collect();
    rows[..rows.len().saturating_sub(1)].to_vec()
}

/// The screen a cast leaves in a terminal of its size, up to where the UI hands the terminal
/// back (leaving the alternate screen).
fn play_cast(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header: serde_json::Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(header["version"], 2);
    assert_eq!(header["width"], u64::from(COLS));
    assert_eq!(header["height"], u64::from(ROWS));
    assert!(header["timestamp"].as_u64().unwrap() > 1_600_000_000);
    let mut parser = vt100::Parser::new(ROWS, COLS, 0);
    let mut last = 0.0;
    for l in lines {
        let ev: serde_json::Value = serde_json::from_str(l).unwrap();
        let t = ev[0].as_f64().unwrap();
        assert!(t >= last, "times never go back");
        last = t;
        let data = ev[2].as_str().unwrap();
        if ev[1] == "o" {
            if data.contains("\x1b[?1049l") {
                break;
            }
            parser.process(data.as_bytes());
        }
    }
    parser.screen().contents()
}

#[test]
fn a_recorded_demo_replays_and_its_cast_shows_what_the_terminal_showed() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    let mut s = ui_in(
        dir,
        (COLS, ROWS),
        &["--paused", "--record", "demo.rec", "--cast", "demo.cast"],
    );
    s.wait_for("the UI", |t| {
        t.contains("Two clocks") && t.contains("Dials")
    });
    s.press(b"L");
    s.press(b"G");
    s.press(b"\x1b[F"); // End
    s.wait_for("the end of input", |t| t.contains("20000 so far"));
    s.press(b"z");
    let mut shown = s.wait_for("the plot alone", |t| !t.contains("Dials"));
    // Settled: the same screen twice, 300 ms apart (work still finishing on a loaded
    // machine may redraw it once more).
    let start = Instant::now();
    loop {
        thread::sleep(Duration::from_millis(300));
        let now = s.contents();
        if above_footer(&now) == above_footer(&shown) {
            shown = now;
            break;
        }
        assert!(
            start.elapsed() < DEADLINE,
            "the screen never settled:\n{now}"
        );
        shown = now;
    }
    s.press(b"q");
    s.wait_exit();

    // The cast played into a terminal shows the screen the terminal showed.
    assert_eq!(play_cast(&dir.join("demo.cast")), shown);

    // The recording ends with q and its end line; played without the q, the UI stays open
    // on the same screen.
    let rec = std::fs::read_to_string(dir.join("demo.rec")).unwrap();
    assert!(rec.starts_with("twoclocks-record 1\n"), "{rec}");
    let lines: Vec<&str> = rec.lines().collect();
    assert!(lines[lines.len() - 2].ends_with(" key q"), "{rec}");
    assert!(lines[lines.len() - 1].ends_with(" end"), "{rec}");
    let mut without_q: Vec<&str> = lines[..lines.len() - 2].to_vec();
    without_q.push(lines[lines.len() - 1]);
    std::fs::write(dir.join("noq.rec"), without_q.join("\n") + "\n").unwrap();
    let mut r = ui_in(dir, (COLS, ROWS), &["--paused", "--replay", "noq.rec"]);
    let replayed = r.wait_for("the replay's end", |t| {
        t.contains("the recording has been played")
    });
    assert_eq!(above_footer(&replayed), above_footer(&shown));
    r.press(b"q");
    r.wait_exit();

    // With the q, the replay quits by itself.
    let mut q = ui_in(dir, (COLS, ROWS), &["--paused", "--replay", "demo.rec"]);
    q.wait_exit();

    // With other flags it would go through other states: refused, saying which.
    let (code, err) = twoclocks(dir, &["--replay", "demo.rec", "--theme", "light"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("recorded with --paused") && err.contains("this run has no flags"),
        "{err}"
    );
}

fn twoclocks(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_twoclocks"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_demos_files_are_checked_before_the_ui_opens() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    std::fs::write(
        dir.join("bad.rec"),
        "twoclocks-record 1\n0 resize 80 24\n9 key Bogus\n",
    )
    .unwrap();
    let (code, err) = twoclocks(dir, &["--replay", "bad.rec"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("bad.rec") && err.contains("line 3") && err.contains("not a key"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");

    std::fs::write(
        dir.join("cut.rec"),
        "twoclocks-record 1\n0 resize 80 24\n9 key",
    )
    .unwrap();
    let (code, err) = twoclocks(dir, &["--replay", "cut.rec"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("cut.rec' line 3") && err.contains("truncated"),
        "{err}"
    );

    let (code, err) = twoclocks(dir, &["--replay", "missing.rec"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("cannot read") && err.contains("missing.rec"),
        "{err}"
    );

    for flag in ["--record", "--cast"] {
        let (code, err) = twoclocks(dir, &[flag, "no/such/folder/x"]);
        assert_eq!(code, 2, "{flag}: {err}");
        assert!(
            err.contains(&format!("{flag}: folder 'no/such/folder' does not exist")),
            "{flag}: {err}"
        );
    }

    // Another flag's error: nothing is left at the paths, nor beside them.
    let before: usize = std::fs::read_dir(dir).unwrap().count();
    let (code, err) = twoclocks(
        dir,
        &["--record", "r.rec", "--cast", "c.cast", "--session", "30s"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(!dir.join("r.rec").exists() && !dir.join("c.cast").exists());
    assert_eq!(std::fs::read_dir(dir).unwrap().count(), before);

    let (code, err) = twoclocks(dir, &["--record", "same", "--cast", "same"]);
    assert_eq!(code, 2);
    assert!(err.contains("are the same file"), "{err}");
}

#[test]
fn a_replay_says_it_is_playing_and_that_it_has_the_keys() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    // Four seconds of a recording that does nothing but wait, then opens the help.
    std::fs::write(
        dir.join("slow.rec"),
        "twoclocks-record 1\n0 flags [\"--paused\"]\n4000000 key ?\n4000001 end\n",
    )
    .unwrap();
    let mut r = ui_in(dir, (COLS, ROWS), &["--paused", "--replay", "slow.rec"]);
    r.wait_for("the replay's mark", |t| {
        t.contains("▶ replay slow.rec 0:00 / 0:04")
    });
    r.press(b"x");
    r.wait_for("the held key said", |t| {
        t.contains("the replay has the keys")
    });
    // Its clock moves on between the recording's inputs.
    r.wait_for("the replay's clock moving on", |t| {
        ["0:01", "0:02", "0:03"]
            .iter()
            .any(|s| t.contains(&format!("▶ replay slow.rec {s} / 0:04")))
    });
    let end = r.wait_for("the replay's end", |t| {
        t.contains("the recording has been played")
    });
    assert!(!end.contains("▶ replay"), "{end}");
    r.press(b"q");
    r.wait_exit();
}

#[test]
fn a_replayed_tour_says_so_at_every_step_it_moves_to() {
    let scratch = tempfile::tempdir().unwrap();
    let dir = scratch.path();
    // A vote, the next step, and four seconds on it before going back and ending.
    std::fs::write(
        dir.join("tour.rec"),
        "twoclocks-record 1\n0 flags [\"tour\",\"--from\",\"predict-late\"]\n0 resize 80 24\n\
         300000 key 2\n600000 key n\n4600000 key N\n4600001 end\n",
    )
    .unwrap();
    let mut r = ui_in(
        dir,
        (80, 24),
        &["tour", "--from", "predict-late", "--replay", "tour.rec"],
    );
    let footer = |t: &str| t.lines().last().unwrap_or_default().to_string();
    let next = r.wait_for("the next step, replayed", |t| t.contains("step 6/15"));
    let f = footer(&next);
    assert!(f.contains("▶ replay tour.rec"), "{next}");
    for offered in ["n N", "Space", "dial"] {
        assert!(!f.contains(offered), "{offered} offered in {f}");
    }
    let end = r.wait_for("the replay's end", |t| {
        t.contains("the recording has been played")
    });
    assert!(
        end.contains("step 5/15") && !end.contains("▶ replay"),
        "{end}"
    );
    r.press(b"q");
    r.wait_exit();
}
