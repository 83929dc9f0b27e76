//! Every file the program reads whole has a limit of its size, and an endless input is refused
//! in one line naming the file, its kind and the limit, soon and in little memory: a script
//! (from a file or standard input), a tour, a recording to replay, slack statistics (one file
//! or a directory's parts together). A regular file over the limit is refused by its size,
//! unread (a sparse file here, so the test writes nothing); `/dev/zero` and an endless `yes`
//! are read to the limit and no further.

use std::io::Write;
use std::path::Path;

use super::cli_limits::{run_fed_with_deadline, run_with_deadline};

const MIB: u64 = 1 << 20;

/// A file of `bytes` zeros at `path`, sparse: nothing is written.
fn sparse(path: &Path, bytes: u64) {
    std::fs::File::create(path).unwrap().set_len(bytes).unwrap();
}

/// The binary with `args` must end with exit code 2 and one line containing `want`.
fn refused_with(args: &[&str], want: &str) {
    refused_fed_with(args, None, want);
}

fn refused_fed_with(args: &[&str], feed: Option<fn(std::process::ChildStdin)>, want: &str) {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let (code, err) = match feed {
        Some(_) => run_fed_with_deadline(&args, feed),
        None => run_with_deadline(&args),
    };
    assert_eq!(code, 2, "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(err.contains(want), "{args:?}: {err}\n  wanted {want}");
}

#[test]
fn a_file_over_its_kinds_limit_is_refused_by_its_size() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name).display().to_string();
    // Before, each was read whole and refused for what it held ("not YAML", "not a
    // recording"…), a file of any size in memory first.
    sparse(&dir.path().join("big.yaml"), 16 * MIB + 1);
    refused_with(
        &["script", &at("big.yaml")],
        "big.yaml: more than 16 MiB; a script file is at most 16 MiB",
    );
    sparse(&dir.path().join("big.toml"), 16 * MIB + 1);
    refused_with(
        &["tour", "--tour", &at("big.toml")],
        "big.toml: more than 16 MiB; a tour file is at most 16 MiB",
    );
    sparse(&dir.path().join("big.rec"), 64 * MIB + 1);
    refused_with(
        &["--replay", &at("big.rec")],
        "big.rec': more than 64 MiB; a recording is at most 64 MiB",
    );
    sparse(&dir.path().join("big.csv"), 1024 * MIB + 1);
    refused_with(
        &["advise", "--stats", &at("big.csv"), "--window", "60s"],
        "big.csv: more than 1 GiB; a statistics file (all its parts together) is at most 1 GiB",
    );
    // A directory's parts count together: two of 600 MiB are refused, naming the directory.
    let parts = dir.path().join("parts");
    std::fs::create_dir(&parts).unwrap();
    sparse(&parts.join("part-0.csv"), 600 * MIB);
    sparse(&parts.join("part-1.csv"), 600 * MIB);
    refused_with(
        &["advise", "--stats", &at("parts"), "--window", "60s"],
        "parts: more than 1 GiB; a statistics file (all its parts together) is at most 1 GiB",
    );
}

#[cfg(unix)]
#[test]
fn endless_inputs_are_read_to_their_limit_and_refused() {
    refused_with(
        &["script", "/dev/zero"],
        "/dev/zero: more than 16 MiB; a script file is at most 16 MiB",
    );
    refused_with(
        &["tour", "--tour", "/dev/zero"],
        "/dev/zero: more than 16 MiB; a tour file is at most 16 MiB",
    );
    for replay in [
        &["--replay", "/dev/zero"][..],
        &["tour", "--replay", "/dev/zero"],
    ] {
        refused_with(
            replay,
            "/dev/zero': more than 64 MiB; a recording is at most 64 MiB",
        );
    }
    // `yes | twoclocks script -`.
    fn yes(mut stdin: std::process::ChildStdin) {
        let line = b"y\n".repeat(4096);
        while stdin.write_all(&line).is_ok() {}
    }
    refused_fed_with(
        &["script", "-"],
        Some(yes),
        "standard input: more than 16 MiB; a script file is at most 16 MiB",
    );
}
