//! End to end, a live producer: the real binary in a pseudo-terminal, reading JSON Lines from
//! a pipe (`sh -c 'cat FIFO | twoclocks --input - --input-format jsonl'`) while the test writes
//! rows into the FIFO over time. The counters grow while the producer writes, the keys still
//! work (they come from the terminal, not from standard input), the end of input says "input
//! ended" and the UI stays open on the whole stream; Ctrl-C quits and restores the terminal
//! while the producer is still writing.
//! Every wait polls the screen with a generous deadline, so a loaded machine only makes it
//! slower, not flaky.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::thread;
use std::time::Duration;

use portable_pty::CommandBuilder;
use tempfile::TempDir;

use crate::pty_common::Session;

/// The binary behind a pipe from a FIFO, in a pseudo-terminal of that size.
fn live(cols: u16, rows: u16, fifo: &Path, args: &str) -> Session {
    let line = format!(
        "cat '{}' | '{}' --input - --input-format jsonl {args}",
        fifo.display(),
        env!("CARGO_BIN_EXE_twoclocks")
    );
    let mut cmd = CommandBuilder::new("sh");
    cmd.args(["-c", &line]);
    Session::start(cmd, cols, rows)
}

/// The counters' "arrived N / M": (N, M).
fn arrived(screen: &str) -> Option<(u64, u64)> {
    screen.lines().find_map(|l| {
        let rest = &l[l.find("arrived")? + "arrived".len()..];
        let mut numbers = rest
            .split(|c: char| !c.is_ascii_digit())
            .filter(|w| !w.is_empty())
            .map(|w| w.parse().ok());
        Some((numbers.next()??, numbers.next()??))
    })
}

/// A fresh FIFO in a folder of its own (gone, with the FIFO, when the folder is dropped).
fn fifo() -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rows");
    let made = std::process::Command::new("mkfifo")
        .arg(&path)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    (dir, path)
}

/// Writes rows `from..to` into the producer's end: one event each 100 ms of event time.
fn write_rows(out: &mut File, from: u32, to: u32) {
    for i in from..to {
        let key = ["a", "b", "c"][i as usize % 3];
        writeln!(
            out,
            "{{\"event_time_ms\": {}, \"key\": \"{key}\"}}",
            i * 100
        )
        .expect("a row is written");
        out.flush().expect("the row is flushed");
        thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn the_counters_grow_while_the_producer_writes_and_the_end_is_said() {
    let (_dir, path) = fifo();
    let mut s = live(120, 40, &path, "--window 2s");
    // Opening the FIFO waits for `cat` to open the other end.
    let mut out = File::create(&path).expect("the FIFO opens");
    s.wait_for("the UI, live", |t| {
        t.contains("Two clocks") && t.contains("live")
    });
    write_rows(&mut out, 0, 20);
    let t = s.wait_for("20 rows", |t| arrived(t) == Some((20, 20)));
    assert!(t.contains("● live"), "{t}");
    write_rows(&mut out, 20, 50);
    s.wait_for("50 rows", |t| arrived(t) == Some((50, 50)));
    // Paused, the playhead stays while the stream grows; Space catches up.
    s.press(b" ");
    s.wait_for("paused", |t| t.contains("live · paused"));
    write_rows(&mut out, 50, 60);
    s.wait_for("60 rows behind the playhead", |t| {
        arrived(t) == Some((50, 60))
    });
    s.press(b" ");
    s.wait_for("caught up", |t| arrived(t) == Some((60, 60)));
    drop(out);
    let t = s.wait_for("the end of input", |t| t.contains("input ended"));
    assert_eq!(arrived(&t), Some((60, 60)), "{t}");
    // Still open on the whole stream: the keys work.
    s.press(b"?");
    s.wait_for("the help", |t| t.contains("Esc"));
    s.press(b"\x1b");
    s.press(b"q");
    s.expect_clean_exit();
}

#[test]
fn ctrl_c_quits_while_the_producer_is_still_writing() {
    let (_dir, path) = fifo();
    let mut s = live(80, 24, &path, "");
    let mut out = File::create(&path).expect("the FIFO opens");
    write_rows(&mut out, 0, 10);
    s.wait_for("10 rows", |t| arrived(t) == Some((10, 10)));
    // Ctrl-C, the FIFO still open. The producer finds no reader once the UI has gone: `cat`
    // ends on a broken pipe, which `sh -c` does not report (the pipeline's status is the UI's).
    s.press(b"\x03");
    let writer = thread::spawn(move || {
        for i in 10..400 {
            if writeln!(out, "{{\"event_time_ms\": {}, \"key\": \"a\"}}", i * 100).is_err() {
                break;
            }
            thread::sleep(Duration::from_millis(5));
        }
    });
    s.expect_clean_exit();
    let _ = writer.join();
}
