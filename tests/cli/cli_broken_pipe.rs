//! A reader that stops early (`twoclocks run --format json | head -c 100`): the real binary,
//! its standard output a pipe the test closes, must stop quietly (nothing on standard error,
//! status 0) for every command that prints; a real write error (a full device) still says so.

use std::io::Read;
use std::process::{Command, ExitStatus, Stdio};

/// Runs the binary with `args`, reads `keep` bytes of its standard output and closes the pipe;
/// its exit status and standard error once it has ended.
fn closed_after(args: &[&str], keep: usize) -> (ExitStatus, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_twoclocks"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut reader = child.stdout.take().expect("standard output is piped");
    let mut head = vec![0; keep];
    reader.read_exact(&mut head).expect("the first bytes come");
    drop(reader);
    let out = child.wait_with_output().expect("the binary ends");
    (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Outputs larger than a pipe's buffer (64 KiB on Linux): the writer is still writing when the
/// reader goes, so its next write fails with EPIPE whatever the timing.
#[test]
fn a_reader_gone_mid_output_is_not_an_error() {
    let cases: [&[&str]; 3] = [
        &["run", "--format", "json"],
        &["stream"],
        &["advise", "--format", "json"],
    ];
    for args in cases {
        let (status, err) = closed_after(args, 100);
        assert!(err.is_empty(), "{args:?}: standard error {err:?}");
        assert_eq!(status.code(), Some(0), "{args:?}: {status}");
    }
}

/// The pipe closed before the first byte is read: whatever a command prints, and however
/// short, it ends quietly.
#[test]
fn a_reader_gone_at_once_is_not_an_error() {
    let cases: [&[&str]; 10] = [
        &["completions", "bash"],
        &["completions", "zsh"],
        &["man"],
        &["man", "run"],
        &["frontier", "--format", "json"],
        &["frontier"],
        &["run"],
        &["export", "--to", "flink"],
        &["report"],
        &["stream", "--events", "10"],
    ];
    for args in cases {
        let (status, err) = closed_after(args, 0);
        assert!(err.is_empty(), "{args:?}: standard error {err:?}");
        assert_eq!(status.code(), Some(0), "{args:?}: {status}");
    }
}

/// A write that fails for another reason is still reported, as one line with status 2: the
/// answer to a full device, and a sink's file on one.
#[test]
fn a_full_device_is_still_an_error() {
    if !std::path::Path::new("/dev/full").exists() {
        return;
    }
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full opens");
    let out = Command::new(env!("CARGO_BIN_EXE_twoclocks"))
        .args(["run", "--format", "json"])
        .stdin(Stdio::null())
        .stdout(full)
        .output()
        .expect("the binary runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.starts_with("twoclocks: ") && err.contains("No space left"),
        "{err}"
    );

    let out = Command::new(env!("CARGO_BIN_EXE_twoclocks"))
        .args(["run", "--output", "jsonl:/dev/full", "--force"])
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("No space left"), "{err}");
    // The failing output is named.
    assert!(
        err.contains("--output 'jsonl:/dev/full': cannot write"),
        "{err}"
    );
}

#[test]
fn a_reader_leaving_standard_output_ends_that_output_only_and_the_files_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let lines = dir.path().join("panes.jsonl");
    let db = dir.path().join("panes.db");
    let mut child = Command::new(env!("CARGO_BIN_EXE_twoclocks"))
        .args(["run", "--events", "100000", "--window", "100ms"])
        .args(["--output", "jsonl:-", "--output"])
        .arg(format!("jsonl:{}", lines.display()))
        .arg("--output")
        .arg(format!("sqlite:{}", db.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    // Read one line, then leave.
    let mut first = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut first,
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(first.starts_with('{'), "{first}");
    let written = std::fs::read_to_string(&lines).expect("the JSON Lines file is kept");
    assert!(
        written.lines().count() > 1000,
        "{}",
        written.lines().count()
    );
    assert!(db.exists(), "the database is kept");
}
