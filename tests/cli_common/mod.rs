//! Running the twoclocks binary from the command-line tests: with NO_COLOR set and nothing on
//! standard input, so that a test never waits on a terminal, and its output read as text.

// Each test file uses a part of this.
#![allow(dead_code)]

use std::process::{Command, Output, Stdio};

/// Runs the binary with `args` and waits for it.
pub fn twoclocks(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_twoclocks"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("the binary runs")
}

/// Runs the binary with `args`: its exit code (-1 when a signal ended it), standard output and
/// standard error.
pub fn twoclocks_text(args: &[&str]) -> (i32, String, String) {
    let o = twoclocks(args);
    (o.status.code().unwrap_or(-1), stdout(&o), stderr(&o))
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
