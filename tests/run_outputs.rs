//! `--output` with several sinks: when one cannot be made, the files of those made before it
//! are taken away, so that a failed run leaves no output behind.

use twoclocks::io::sink::{parse_output, Outputs, RunMeta};

#[test]
fn a_sink_that_cannot_be_made_takes_the_files_made_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("panes.jsonl");
    let db = dir.path().join("also.db");
    // Its folder is missing: only opening it finds out (the checks before a run would not
    // let it through; a folder removed meanwhile would).
    let second = dir.path().join("missing").join("results.db");
    let specs = vec![
        parse_output(&format!("jsonl:{}", first.display())).unwrap(),
        parse_output(&format!("sqlite:{}", db.display())).unwrap(),
        parse_output(&format!("sqlite:{}", second.display())).unwrap(),
    ];
    let err = match Outputs::open(
        &specs,
        false,
        &RunMeta::default(),
        Box::new(std::io::sink()),
    ) {
        Ok(_) => panic!("opened a database in a missing folder"),
        Err(e) => format!("{e:#}"),
    };
    assert!(err.contains("results.db"), "{err}");
    assert!(!first.exists(), "the JSON Lines file was left behind");
    assert!(!db.exists(), "the first database was left behind");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}
