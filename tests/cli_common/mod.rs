//! Running the twoclocks binary from the command-line tests: with NO_COLOR set and nothing on
//! standard input, so that a test never waits on a terminal, and its output read as text or as
//! JSON, or its refusal as one error line; a subcommand run in this process; and a path spelled
//! as an argument.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use twoclocks::cli::{execute, parse, Invocation};

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

/// Runs the binary with `args`, which it must refuse: exit code 2, nothing on standard output,
/// one line on standard error that names the program and is no panic. The line. (A failure
/// shows each argument cut to 40 characters.)
pub fn refused(args: &[&str]) -> String {
    let o = twoclocks(args);
    let err = stderr(&o);
    let shown: Vec<String> = args.iter().map(|a| a.chars().take(40).collect()).collect();
    assert_eq!(o.status.code(), Some(2), "{shown:?}: {err}");
    assert!(o.stdout.is_empty(), "{shown:?}: {}", stdout(&o));
    assert_eq!(err.lines().count(), 1, "{shown:?}: {err}");
    assert!(err.starts_with("twoclocks: "), "{shown:?}: {err}");
    assert!(!err.contains("panicked"), "{shown:?}: {err}");
    err
}

/// Runs the binary with `args`, which must succeed, and reads the one JSON document it prints.
pub fn json(args: &[&str]) -> serde_json::Value {
    let (code, stdout, stderr) = twoclocks_text(args);
    assert_eq!(code, 0, "{stderr}");
    serde_json::from_str(&stdout).expect("one JSON document")
}

/// Runs the subcommand `args` in this process: what it prints, or its error line.
pub fn output(args: &[&str]) -> Result<String, String> {
    let argv = std::iter::once("twoclocks").chain(args.iter().copied());
    match parse(argv)? {
        Invocation::Command(cmd) => {
            let mut out = Vec::new();
            execute(&cmd, &mut out).map_err(|e| twoclocks::cli::error_line(&e))?;
            Ok(String::from_utf8(out).expect("UTF-8"))
        }
        other => panic!("{args:?} is not a subcommand: {other:?}"),
    }
}

/// `p` as a command-line argument.
pub fn path_arg(p: &Path) -> String {
    p.display().to_string()
}
