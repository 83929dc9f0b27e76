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

/// Runs the binary in `dir` with `args`, stopped after 60 s (a run that waits on a pipe
/// nobody reads fails the test rather than hanging it): exit code and standard error.
fn in_dir(dir: &Path, args: &[&str]) -> (i32, String) {
    let mut child = bin()
        .current_dir(dir)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("{args:?} did not end within 60 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A small log in `dir` at `name`.
fn small_log(dir: &Path, name: &str) -> Vec<u8> {
    let mut text = String::from("event_time_ms,proc_time_ms,key\n");
    for i in 0..300u64 {
        text.push_str(&format!(
            "{},{},k{}\n",
            i * 700,
            i * 700 + (i * 7919) % 40_000,
            i % 5
        ));
    }
    std::fs::write(dir.join(name), &text).unwrap();
    text.into_bytes()
}

#[cfg(unix)]
#[test]
fn plot_never_empties_nor_replaces_a_file_it_did_not_make() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let log = small_log(d, "log.csv");
    std::fs::write(d.join("ev.svg"), &log).unwrap();
    std::os::unix::fs::symlink("log.csv", d.join("plot.svg")).unwrap();
    std::fs::hard_link(d.join("log.csv"), d.join("p.png")).unwrap();
    std::fs::write(d.join("s.svg"), "statistics\n").unwrap();
    std::fs::write(d.join("old.svg"), "keep\n").unwrap();
    std::fs::write(d.join("bad.csv"), "event_time_ms,proc_time_ms,key\nx,1,a\n").unwrap();
    let c = std::ffi::CString::new(path_arg(&d.join("f.svg"))).unwrap();
    // SAFETY: mkfifo with a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let before = names(d);
    for force in [false, true] {
        let cases: [(&[&str], &str); 9] = [
            (
                &[
                    "advise",
                    "--input",
                    "ev.svg",
                    "--input-format",
                    "csv",
                    "--plot",
                    "ev.svg",
                ],
                "is the input",
            ),
            (
                &[
                    "advise",
                    "--input",
                    "ev.svg",
                    "--input-format",
                    "csv",
                    "--plot",
                    "./ev.svg",
                ],
                "is the input",
            ),
            (
                &["frontier", "--input", "log.csv", "--plot", "plot.svg"],
                "is the input",
            ),
            (
                &["frontier", "--input", "log.csv", "--plot", "p.png"],
                "is the input",
            ),
            (
                &["advise", "--input", "log.csv", "--plot", "plot.svg"],
                "is the input",
            ),
            (
                &["advise", "--stats", "s.svg", "--plot", "s.svg"],
                "is the input",
            ),
            (
                &["advise", "--input", "bad.csv", "--plot", "old.svg"],
                if force { "bad.csv" } else { "exists; --force" },
            ),
            (&["frontier", "--plot", "f.svg"], "no program is reading"),
            (&["advise", "--plot", "f.svg"], "no program is reading"),
        ];
        for (args, says) in cases {
            let mut args = args.to_vec();
            if force {
                args.push("--force");
            }
            let (code, err) = in_dir(d, &args);
            assert_eq!(code, 2, "{args:?}: {err}");
            assert!(err.contains(says), "{args:?}: {err}");
            assert_eq!(std::fs::read(d.join("log.csv")).unwrap(), log, "{args:?}");
            assert_eq!(std::fs::read(d.join("ev.svg")).unwrap(), log, "{args:?}");
            assert_eq!(
                std::fs::read_to_string(d.join("s.svg")).unwrap(),
                "statistics\n"
            );
            assert_eq!(
                std::fs::read_to_string(d.join("old.svg")).unwrap(),
                "keep\n"
            );
            assert_eq!(names(d), before, "{args:?}");
        }
    }
    // With --force an old plot is replaced whole, SVG and PNG alike.
    let (code, err) = in_dir(d, &["advise", "--plot", "old.svg", "--force"]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read_to_string(d.join("old.svg"))
        .unwrap()
        .starts_with("<svg"));
    std::fs::write(d.join("old.png"), "keep\n").unwrap();
    let (code, err) = in_dir(d, &["frontier", "--plot", "old.png", "--force"]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::read(d.join("old.png"))
        .unwrap()
        .starts_with(b"\x89PNG"));
}

#[cfg(unix)]
#[test]
fn a_plot_stopped_by_a_signal_leaves_the_old_file() {
    let dir = tempfile::tempdir().unwrap();
    let log = big_log(dir.path(), 500_000);
    let old = dir.path().join("old.svg");
    std::fs::write(&old, "keep\n").unwrap();
    let mut child = bin()
        .args(["advise", "--force", "--input", &path_arg(&log), "--plot"])
        .arg(&old)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The copy is taken before the log is read: the run is under way once it is there.
    let copy = partial(dir.path(), "old.svg");
    let start = Instant::now();
    while !copy.exists() {
        assert!(child.try_wait().unwrap().is_none(), "the run ended first");
        assert!(start.elapsed() < Duration::from_secs(60), "never began");
        std::thread::sleep(Duration::from_millis(5));
    }
    // SAFETY: kill on a child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(128 + libc::SIGINT), "{err}");
    assert!(err.contains("nothing was written to"), "{err}");
    assert_eq!(std::fs::read_to_string(&old).unwrap(), "keep\n");
    assert_eq!(names(dir.path()), ["big.csv", "old.svg"]);
}

/// Puts something at a path.
type Plant<'a> = dyn Fn(&Path) + 'a;

#[cfg(unix)]
#[test]
fn what_is_planted_at_an_unfinished_copys_name_is_never_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let log = small_log(d, "events.csv");
    std::fs::write(d.join("notes.txt"), "precious\n").unwrap();
    let mkfifo = |p: &Path| {
        let c = std::ffi::CString::new(path_arg(p)).unwrap();
        // SAFETY: mkfifo with a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    };
    let runs: [(&[&str], &str); 5] = [
        (
            &[
                "run",
                "--input",
                "events.csv",
                "--output",
                "jsonl:panes.jsonl",
            ],
            "panes.jsonl",
        ),
        (
            &[
                "run",
                "--input",
                "events.csv",
                "--output",
                "sqlite:panes.db",
            ],
            "panes.db",
        ),
        (
            &["run", "--events", "500", "--output", "jsonl:out.jsonl"],
            "out.jsonl",
        ),
        (
            &["advise", "--input", "events.csv", "--plot", "a.svg"],
            "a.svg",
        ),
        (
            &["--input", "events.csv", "--record", "demo.rec"],
            "demo.rec",
        ),
    ];
    let plants: [(&str, &Plant<'_>); 5] = [
        ("a file with 2 names", &|p| {
            std::fs::hard_link(d.join("events.csv"), p).unwrap()
        }),
        ("a file with 2 names", &|p| {
            std::fs::hard_link(d.join("notes.txt"), p).unwrap()
        }),
        ("a symbolic link", &|p| {
            std::os::unix::fs::symlink("notes.txt", p).unwrap()
        }),
        ("a named pipe", &mkfifo),
        ("a directory", &|p| std::fs::create_dir(p).unwrap()),
    ];
    for (args, target) in runs {
        for (says, plant) in &plants {
            let copy = partial(d, target);
            plant(&copy);
            let before = names(d);
            for force in [false, true] {
                let mut args = args.to_vec();
                if force {
                    args.push("--force");
                }
                let (code, err) = in_dir(d, &args);
                assert_eq!(code, 2, "{args:?} with {says}: {err}");
                assert!(err.contains(says), "{args:?}: {err}");
                assert!(err.contains("remove it by hand"), "{args:?}: {err}");
                assert_eq!(std::fs::read(d.join("events.csv")).unwrap(), log);
                assert_eq!(
                    std::fs::read_to_string(d.join("notes.txt")).unwrap(),
                    "precious\n"
                );
                assert_eq!(names(d), before, "{args:?} with {says}");
            }
            if copy.is_dir() && !copy.is_symlink() {
                std::fs::remove_dir(&copy).unwrap();
            } else {
                std::fs::remove_file(&copy).unwrap();
            }
        }
    }
    assert_eq!(names(d), ["events.csv", "notes.txt"]);
}

#[test]
fn two_outputs_of_one_run_at_the_same_file_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (code, err) = in_dir(d, &["--record", "a.rec", "--cast", "./a.rec"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("are the same file"), "{err}");
    assert!(err.contains("--record 'a.rec'"), "{err}");
    assert!(err.contains("--cast './a.rec'"), "{err}");
    std::fs::write(d.join("old.jsonl"), "old\n").unwrap();
    #[cfg(unix)]
    std::fs::hard_link(d.join("old.jsonl"), d.join("other.jsonl")).unwrap();
    #[cfg(unix)]
    {
        let (code, err) = in_dir(
            d,
            &[
                "run",
                "--force",
                "--output",
                "jsonl:old.jsonl",
                "--output",
                "jsonl:other.jsonl",
            ],
        );
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("same file"), "{err}");
    }
    assert_eq!(
        std::fs::read_to_string(d.join("old.jsonl")).unwrap(),
        "old\n"
    );
}
