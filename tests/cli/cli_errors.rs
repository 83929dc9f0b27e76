//! Error messages that help: a long or unprintable value is shown cut and escaped, a negative
//! duration is called one, the UI without a terminal says so, and bad input files are refused
//! with the line (and for a key, the column) of the offence.

use std::process::{Command, Stdio};

use crate::cli_common::{refused, stderr};

/// A file `name` holding `contents`, in a folder of its own (gone when the folder is dropped).
fn temp_file(name: &str, contents: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, contents).unwrap();
    (dir, path)
}

#[test]
fn a_long_value_is_cut_with_its_length() {
    // An argument may be at most 128 KiB on Linux.
    let long = format!("{}s", "9".repeat(99_999));
    for args in [
        vec!["run", "--window", long.as_str()],
        vec!["run", "--watermark", long.as_str()],
        vec!["run", "--crash-at", long.as_str()],
        vec!["run", "--seed", long.as_str()],
        vec!["frontier", "--lags", long.as_str()],
        vec!["run", long.as_str()],
    ] {
        let err = refused(&args);
        assert!(err.len() < 400, "{} bytes: {}", err.len(), &err[..400]);
        assert!(err.contains("…"), "{err}");
        assert!(err.contains("(100000 characters)"), "{err}");
    }
    let field = "7".repeat(1 << 20);
    let (_dir, path) = temp_file(
        "long.csv",
        format!("event_time_ms,proc_time_ms,key\n1,{field}x,a\n").as_bytes(),
    );
    let err = refused(&["run", "--input", path.to_str().unwrap()]);
    assert!(err.len() < 400, "{} bytes", err.len());
    assert!(err.contains("line 2"), "{err}");
    assert!(err.contains("(1048577 characters)"), "{err}");
}

#[test]
fn an_unprintable_value_is_escaped() {
    let err = refused(&["run", "--window", "\u{1b}[31mred"]);
    assert!(!err.contains('\u{1b}'), "{err:?}");
    assert!(err.contains("\\u{1b}"), "{err:?}");
}

#[test]
fn a_negative_duration_is_called_one() {
    for args in [
        &["run", "--window", "-10s"][..],
        &["run", "--slide", "-10s"],
        &["run", "--mean-delay", "-1s"],
        &["run", "--tail-max", "-1s"],
        &["run", "--span", "-1s"],
        &["run", "--grace", "-5s"],
        &["run", "--early", "-5s"],
        &["run", "--watermark", "fixed:-1s"],
        &["run", "--checkpoint-every", "-10s"],
        &["run", "--transit", "-1ms"],
        &["run", "--crash-at", "-1s"],
        &["run", "--crash-at", "10s,-1s"],
        &["frontier", "--lags", "-1s"],
        &["frontier", "--graces", "-10s,0s"],
        &["frontier", "--graces", "-10s..0s/1s"],
        &["--window", "-10s"],
    ] {
        let err = refused(args);
        assert!(
            err.contains("durations cannot be negative"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_negative_count_is_an_invalid_value() {
    for args in [
        &["run", "--events", "-1"][..],
        &["run", "--seed", "-1"],
        &["run", "--parallelism", "-2"],
        &["run", "--partitions", "-2"],
        &["--speed", "-5"],
    ] {
        let err = refused(args);
        assert!(!err.contains("unexpected argument"), "{args:?}: {err}");
        assert!(err.contains("'-"), "{args:?}: {err}");
    }
}

#[test]
fn the_ui_without_a_terminal_says_what_to_do() {
    for args in [&[][..], &["--paused"], &["--watermark", "fixed:2s"]] {
        let o = Command::new(env!("CARGO_BIN_EXE_twoclocks"))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .expect("the binary runs");
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("needs a terminal"), "{err}");
        assert!(err.contains("twoclocks run"), "{err}");
    }
}

#[test]
fn a_log_with_a_control_character_or_a_blank_line_is_refused() {
    let (_dir, path) = temp_file(
        "nul.csv",
        b"event_time_ms,proc_time_ms,key\n1,2,a\n3,4,b\0\n",
    );
    let err = refused(&["run", "--input", path.to_str().unwrap()]);
    assert!(err.contains("nul.csv, line 3, column 6:"), "{err}");
    assert!(err.contains("U+0000"), "{err}");
    let (_dir, path) = temp_file(
        "blank.csv",
        b"event_time_ms,proc_time_ms,key\n1,2,a\n\n3,4,b\n",
    );
    let err = refused(&["run", "--input", path.to_str().unwrap()]);
    assert!(
        err.contains("blank.csv, line 3: the line is blank"),
        "{err}"
    );
    let err = refused(&["run", "--keys", "ab\u{7}"]);
    assert!(err.contains("U+0007"), "{err}");
}

#[test]
fn a_crash_time_given_twice_is_refused() {
    let err = refused(&["run", "--events", "200", "--crash-at", "100s,100s,100s"]);
    assert!(err.contains("--crash-at: 100s is given twice"), "{err}");
    let err = refused(&["run", "--events", "200", "--crash-at", "100s,100000ms"]);
    assert!(err.contains("given twice"), "{err}");
}

#[test]
fn a_flag_error_that_lists_items_keeps_them_on_its_line() {
    let err = refused(&["--events", "200", "--early", "1s", "--grace", "1s", "run"]);
    assert!(
        err.contains("cannot be used with: --events <EVENTS>, --early <EARLY>"),
        "{err}"
    );
}

#[cfg(unix)]
#[test]
fn an_endless_input_ends_with_an_error() {
    let err = refused(&["run", "--input", "/dev/zero"]);
    assert!(
        err.contains("/dev/zero: binary data, not csv text"),
        "{err}"
    );
}
