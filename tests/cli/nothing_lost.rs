//! Files the program did not make stay untouched, and an output is whole or not there at all:
//! `--record` and `--cast` never remove or truncate an existing file (nor a link's target, a
//! pipe or a device); `--force` never replaces a device, a link or the run's own input; a run
//! stopped by a signal, or by a full disk, leaves nothing at its outputs' paths; a second run
//! writing the same file is refused while the first one writes it.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::cli_common::{path_arg, twoclocks_text};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_twoclocks"));
    c.env("NO_COLOR", "1").stdin(Stdio::null());
    c
}

/// The names in a folder, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// A log of `rows` events in processing-time order over many windows and keys, so that a run
/// over it writes panes for a while.
fn big_log(dir: &Path, rows: usize) -> PathBuf {
    use std::io::Write;
    let path = dir.join("big.csv");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    writeln!(w, "event_time_ms,proc_time_ms,key").unwrap();
    for i in 0..rows {
        let t = i as f64 * 20.0;
        writeln!(w, "{t},{},k{}", t + 30_000.0, i % 97).unwrap();
    }
    w.flush().unwrap();
    path
}

fn partial(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!(".{name}.twoclocks-partial"))
}

/// Waits until the run has begun writing `name` (its unfinished copy holds something).
fn wait_writing(child: &mut Child, copy: &Path) {
    let start = Instant::now();
    loop {
        if std::fs::metadata(copy).is_ok_and(|m| m.len() > 0) {
            return;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("the run ended ({status}) before it was seen writing");
        }
        assert!(start.elapsed() < Duration::from_secs(120), "never began");
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn record_and_cast_never_remove_a_file_they_did_not_make() {
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "precious\n").unwrap();
    let missing = dir.path().join("missing.csv");
    for flag in ["--record", "--cast"] {
        // Without --force an existing file is refused.
        let (code, _, err) =
            twoclocks_text(&[flag, &path_arg(&notes), "--input", &path_arg(&missing)]);
        assert_eq!(code, 2);
        assert!(err.contains("exists; --force replaces it"), "{err}");
        // With --force, a UI that does not open (no input, no terminal) leaves it as it was.
        let (code, _, err) = twoclocks_text(&[
            flag,
            &path_arg(&notes),
            "--force",
            "--input",
            &path_arg(&missing),
        ]);
        assert_eq!(code, 2, "{err}");
        let (code, _, err) = twoclocks_text(&[flag, &path_arg(&notes), "--force"]);
        assert_eq!(code, 2);
        assert!(err.contains("needs a terminal"), "{err}");
        assert_eq!(std::fs::read_to_string(&notes).unwrap(), "precious\n");
    }
    assert_eq!(names(dir.path()), ["notes.txt"]);
}

#[cfg(unix)]
#[test]
fn links_pipes_and_devices_given_to_record_stay() {
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "precious\n").unwrap();
    let link = dir.path().join("link.txt");
    std::os::unix::fs::symlink(&notes, &link).unwrap();
    let fifo = dir.path().join("pipe");
    let c = std::ffi::CString::new(path_arg(&fifo)).unwrap();
    // SAFETY: mkfifo with a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    for target in [&link, &fifo] {
        for flag in ["--record", "--cast"] {
            let (code, _, err) = twoclocks_text(&[flag, &path_arg(target), "--force"]);
            assert_eq!(code, 2, "{err}");
        }
    }
    // Nobody reads the pipe: said, not waited on.
    let (_, _, err) = twoclocks_text(&["--record", &path_arg(&fifo), "--force"]);
    assert!(err.contains("no program is reading"), "{err}");
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "precious\n");
    if Path::new("/dev/null").exists() {
        let (code, _, _) = twoclocks_text(&["--record", "/dev/null", "--cast", "/dev/zero"]);
        assert_eq!(code, 2);
        for dev in ["/dev/null", "/dev/zero"] {
            assert!(std::fs::metadata(dev).unwrap().file_type().is_char_device());
        }
    }
    assert_eq!(names(dir.path()), ["link.txt", "notes.txt", "pipe"]);
}

#[cfg(unix)]
#[test]
fn force_never_replaces_a_device_or_a_link() {
    let dir = tempfile::tempdir().unwrap();
    use std::os::unix::fs::FileTypeExt;
    if Path::new("/dev/null").exists() {
        let (code, _, err) = twoclocks_text(&["run", "--output", "sqlite:/dev/null", "--force"]);
        assert_eq!(code, 2);
        assert!(err.contains("is a character device, not a file"), "{err}");
        assert!(std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device());
    }
    // A link to a database stays a link; what it points at is the new database.
    let real = dir.path().join("real.db");
    std::fs::write(&real, "an old file").unwrap();
    let link = dir.path().join("run.db");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let (code, _, err) = twoclocks_text(&[
        "run",
        "--output",
        &format!("sqlite:{}", path_arg(&link)),
        "--force",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let db = rusqlite::Connection::open(&real).unwrap();
    let completed: String = db
        .query_row("SELECT value FROM meta WHERE name = 'completed'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(completed, "true");
    drop(db);
    assert_eq!(names(dir.path()), ["real.db", "run.db"]);
}

#[test]
fn an_output_that_is_the_input_is_refused_even_with_force() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.csv");
    std::fs::write(&input, "event_time_ms,proc_time_ms,key\n1,2,a\n").unwrap();
    let before = std::fs::read(&input).unwrap();
    let dotted = dir.path().join(".").join("in.csv");
    let mut outputs = vec![
        format!("jsonl:{}", path_arg(&input)),
        format!("jsonl:{}", path_arg(&dotted)),
        format!("sqlite:{}", path_arg(&input)),
    ];
    #[cfg(unix)]
    {
        let link = dir.path().join("link.csv");
        std::os::unix::fs::symlink(&input, &link).unwrap();
        outputs.push(format!("jsonl:{}", path_arg(&link)));
        outputs.push(format!("sqlite:{}", path_arg(&link)));
    }
    for o in &outputs {
        for force in [false, true] {
            let mut args = vec!["run", "--input", input.to_str().unwrap(), "--output", o];
            if force {
                args.push("--force");
            }
            let (code, _, err) = twoclocks_text(&args);
            assert_eq!(code, 2, "{o}: {err}");
            assert!(err.contains("is the input"), "{o}: {err}");
        }
    }
    assert_eq!(std::fs::read(&input).unwrap(), before);
}

#[cfg(unix)]
#[test]
fn a_run_stopped_by_a_signal_leaves_no_output() {
    let dir = tempfile::tempdir().unwrap();
    let log = big_log(dir.path(), 500_000);
    let db = dir.path().join("k.db");
    let lines = dir.path().join("k.jsonl");
    // An old output at one of the paths is kept as it was.
    std::fs::write(&lines, "an old run\n").unwrap();
    for (signal, name) in [
        (libc::SIGINT, "SIGINT"),
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGHUP, "SIGHUP"),
    ] {
        let mut child = bin()
            .args(["run", "--force", "--input", &path_arg(&log), "--output"])
            .arg(format!("sqlite:{}", path_arg(&db)))
            .arg("--output")
            .arg(format!("jsonl:{}", path_arg(&lines)))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        wait_writing(&mut child, &partial(dir.path(), "k.jsonl"));
        // SAFETY: kill on a child this test started.
        unsafe { libc::kill(child.id() as i32, signal) };
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(128 + signal), "{name}: {err}");
        assert!(
            err.contains(&format!("stopped by {name} before the run finished")),
            "{err}"
        );
        assert!(err.contains("nothing was written to"), "{err}");
        assert_eq!(names(dir.path()), ["big.csv", "k.jsonl"], "{name}");
        assert_eq!(std::fs::read_to_string(&lines).unwrap(), "an old run\n");
    }
    // SIGKILL cannot be caught: the unfinished copies stay beside the paths, never at them,
    // and the next run takes them over.
    let mut child = bin()
        .args(["run", "--input", &path_arg(&log), "--output"])
        .arg(format!("sqlite:{}", path_arg(&db)))
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    wait_writing(&mut child, &partial(dir.path(), "k.db"));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!db.exists());
    let (code, _, err) = twoclocks_text(&[
        "run",
        "--input",
        &path_arg(&log),
        "--output",
        &format!("sqlite:{}", path_arg(&db)),
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(names(dir.path()), ["big.csv", "k.db", "k.jsonl"]);
}

#[cfg(unix)]
#[test]
fn a_full_disk_leaves_no_database_nor_its_side_files() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let log = big_log(dir.path(), 200_000);
    let mut cmd = bin();
    // The pipeline holds the log in memory: the database is the only file written.
    cmd.args([
        "run",
        "--parallelism",
        "2",
        "--input",
        &path_arg(&log),
        "--output",
    ])
    .arg(format!("sqlite:{}", path_arg(&dir.path().join("k.db"))))
    .stdout(Stdio::null());
    // SAFETY: only async-signal-safe calls between fork and exec: files may not grow past
    // 256 KiB (as on a full disk), and the signal that would announce it is ignored.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 256 * 1024,
                rlim_max: 256 * 1024,
            };
            libc::setrlimit(libc::RLIMIT_FSIZE, &limit);
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--output 'sqlite:"), "{err}");
    assert_eq!(names(dir.path()), ["big.csv"]);
}

#[test]
fn a_second_run_writing_the_same_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let log = big_log(dir.path(), 500_000);
    let lines = dir.path().join("k.jsonl");
    let db = dir.path().join("k.db");
    let mut first = bin()
        .args([
            "run",
            "--format",
            "json",
            "--input",
            &path_arg(&log),
            "--output",
        ])
        .arg(format!("jsonl:{}", path_arg(&lines)))
        .arg("--output")
        .arg(format!("sqlite:{}", path_arg(&db)))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    wait_writing(&mut first, &partial(dir.path(), "k.jsonl"));
    for o in [
        format!("jsonl:{}", path_arg(&lines)),
        format!("sqlite:{}", path_arg(&db)),
    ] {
        let (code, _, err) = twoclocks_text(&["run", "--force", "--output", &o]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("another run is writing"), "{err}");
    }
    let out = first.wait_with_output().unwrap();
    assert!(out.status.success());
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let panes = answer["panes"].as_array().unwrap().len();
    let text = std::fs::read_to_string(&lines).unwrap();
    for l in text.lines() {
        serde_json::from_str::<serde_json::Value>(l).unwrap();
    }
    assert_eq!(text.lines().count(), panes);
    assert_eq!(names(dir.path()), ["big.csv", "k.db", "k.jsonl"]);
}
