//! `--output` with several sinks: when one cannot be made, the files of those made before it
//! are taken away, so that a failed run leaves no output behind; so are they when the run
//! fails while writing (a device such as /dev/full, given as an output, is never removed).

use twoclocks::io::sink::{parse_output, reserve_outputs};

#[test]
fn a_sink_that_cannot_be_made_takes_the_files_made_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("panes.jsonl");
    let db = dir.path().join("also.db");
    // Its folder is missing: the outputs before it were already taken.
    let second = dir.path().join("missing").join("results.db");
    let specs = vec![
        parse_output(&format!("jsonl:{}", first.display())).unwrap(),
        parse_output(&format!("sqlite:{}", db.display())).unwrap(),
        parse_output(&format!("sqlite:{}", second.display())).unwrap(),
    ];
    let err = match reserve_outputs(&specs, false, &[]) {
        Ok(_) => panic!("opened a database in a missing folder"),
        Err(e) => format!("{e:#}"),
    };
    assert!(err.contains("results.db"), "{err}");
    assert!(!first.exists(), "the JSON Lines file was left behind");
    assert!(!db.exists(), "the first database was left behind");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn a_run_that_fails_while_writing_takes_its_files_away_and_never_a_device() {
    if !std::path::Path::new("/dev/full").exists() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let panes = dir.path().join("panes.jsonl");
    let db = dir.path().join("results.db");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_twoclocks"))
        .args(["run", "--force", "--output"])
        .arg(format!("jsonl:{}", panes.display()))
        .arg("--output")
        .arg(format!("sqlite:{}", db.display()))
        .args(["--output", "jsonl:/dev/full"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("the binary runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--output 'jsonl:/dev/full': cannot write"),
        "{err}"
    );
    assert!(!panes.exists(), "the JSON Lines file was left behind");
    assert!(!db.exists(), "the database was left behind");
    // The device itself is still there.
    let kind = std::fs::metadata("/dev/full").unwrap().file_type();
    assert!(!kind.is_file() && !kind.is_dir());
}
