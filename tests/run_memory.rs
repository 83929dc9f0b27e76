//! `run --input -` over a log in processing-time order holds the engine's open windows, not the
//! log: the real binary is fed 1 M and then 10 M rows on standard input (written from a loop, no
//! file; a tenth of that in a debug build), and its peak resident memory must not grow with the
//! rows. With `--format json` a tenth of the rows are dropped, and the panes and drops it lists are
//! written to temporary files as they come, not held: its memory must not grow either.
//!
//! A sliding window's drops, one per event and window it was refused from, are not held
//! either, the state a run may hold ([`StateBound`]) is above what it is measured to hold, and
//! unaligned checkpoints in progress by the thousand hold what is in flight once.
//!
//! A test binary of its own, not among the command line's (tests/cli): the peak `wait4`
//! reports for a child is never below the test process's own peak so far (Linux counts the
//! memory the child starts in, the parent's until its `exec`), so it measures the program only
//! while the test process stays small. Among the other tests it would measure theirs.
#![cfg(target_os = "linux")]

use std::io::{BufWriter, Write};
use std::process::{Command, Stdio};

use twoclocks::engine::Stream;
use twoclocks::engine::StreamParams;
use twoclocks::engine::WindowFn;
use twoclocks::engine::{StateBound, StateCosts};

/// Runs the binary over `rows` sorted rows on standard input; its peak RSS in KiB.
// The child is reaped by `wait4` (which also gives its peak memory), not by `Child::wait`.
#[allow(clippy::zombie_processes)]
fn peak_rss_kib(rows: u64, json: bool) -> i64 {
    let mut args = vec!["run", "--input", "-", "--window", "10s"];
    if json {
        args.extend(["--format", "json"]);
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_twoclocks"))
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let mut w = BufWriter::with_capacity(1 << 16, stdin);
        w.write_all(b"event_time_ms,proc_time_ms,key\n").unwrap();
        let keys = [b"a,", b"b,", b"c,", b"d,"];
        let mut num = itoa_buf();
        for i in 0..rows {
            // One event per ms, 500 ms late: a few open windows at any time. For JSON, every
            // tenth is a minute late, past its window's grace: dropped and listed.
            let late = if json && i % 10 == 0 { 60_000 } else { 0 };
            let et = num.fmt(i.saturating_sub(late));
            w.write_all(et).unwrap();
            w.write_all(b",").unwrap();
            let pt = num.fmt(i + 500);
            w.write_all(pt).unwrap();
            w.write_all(b",").unwrap();
            w.write_all(&keys[(i % 4) as usize][..1]).unwrap();
            w.write_all(b"\n").unwrap();
        }
        w.flush().unwrap();
    });
    let stdout = child.stdout.take().expect("stdout");
    let stderr = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || std::io::read_to_string(stdout).unwrap_or_default());
    let err = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default());
    writer.join().expect("writes");
    let peak = reap(&child, String::new(), err);
    let out = out.join().unwrap();
    if json {
        let head = &out[..out.len().min(200)];
        assert!(out.starts_with(&format!("{{\"events\":{rows},")), "{head}");
        let dropped: u64 = out
            .split_once("\"dropped\":")
            .and_then(|(_, rest)| rest.split(',').next())
            .and_then(|n| n.parse().ok())
            .expect("a count of drops");
        assert!(dropped >= rows / 12, "{head}");
        assert!(out.matches("\"watermark_ms\"").count() as u64 >= dropped);
        assert!(
            out.trim_end().ends_with('}'),
            "{}",
            &out[out.len().saturating_sub(200)..]
        );
    } else {
        assert!(out.contains(&format!("over {rows} events")), "{out}");
    }
    peak
}

/// Waits for `child` by `wait4`, which also gives its peak memory, and reads what the thread
/// `err` gathered of its standard error: its peak RSS in KiB, once it has exited with status 0
/// (the test fails otherwise, with `what` and that standard error).
fn reap(child: &std::process::Child, what: String, err: std::thread::JoinHandle<String>) -> i64 {
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child, with valid pointers to locals.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4");
    let err = err.join().unwrap();
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{what}: {err}"
    );
    usage.ru_maxrss
}

/// A reusable buffer that formats integers without allocating.
struct Num([u8; 20]);

fn itoa_buf() -> Num {
    Num([0; 20])
}

impl Num {
    fn fmt(&mut self, mut v: u64) -> &[u8] {
        let mut i = self.0.len();
        loop {
            i -= 1;
            self.0[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        &self.0[i..]
    }
}

#[test]
fn peak_memory_of_a_sorted_log_does_not_grow_with_its_rows() {
    // An unoptimised build parses about ten times slower: 10 M rows took 110 s on two shared
    // cores, so a debug build measures 0.3 M and 3 M (still ten times the rows; in memory the
    // 2.7 M more events would be 65 MB more) and a release build (`cargo test --release`)
    // the full 1 M and 10 M.
    let (small_rows, large_rows) = if cfg!(debug_assertions) {
        (300_000, 3_000_000)
    } else {
        (1_000_000, 10_000_000)
    };
    for json in [false, true] {
        let small = peak_rss_kib(small_rows, json);
        let large = peak_rss_kib(large_rows, json);
        eprintln!(
            "peak RSS (json {json}): {small_rows} rows {small} KiB, {large_rows} rows {large} KiB"
        );
        // In memory, every event more would be 24 bytes more, and every drop listed more
        // than 100 bytes more.
        assert!(
            large - small < 8 * 1024,
            "json {json}: {small_rows} rows {small} KiB, {large_rows} rows {large} KiB"
        );
        assert!(
            large < 64 * 1024,
            "json {json}: {large_rows} rows took {large} KiB"
        );
    }
}

/// Runs the binary with `args`; its peak RSS in KiB and the first 4 KiB of its standard
/// output (the rest is read and let go: held here, it would count in the next child's peak).
// The child is reaped by `wait4` (which also gives its peak memory), not by `Child::wait`.
#[allow(clippy::zombie_processes)]
fn peak_rss_of(args: &[&str]) -> (i64, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_twoclocks"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let stdout = child.stdout.take().expect("stdout");
    let stderr = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || {
        use std::io::Read;
        let mut head = Vec::new();
        let mut stdout = stdout;
        let _ = stdout.by_ref().take(4096).read_to_end(&mut head);
        let _ = std::io::copy(&mut stdout, &mut std::io::sink());
        String::from_utf8_lossy(&head).into_owned()
    });
    let err = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default());
    let peak = reap(&child, format!("{args:?}"), err);
    let out = out.join().unwrap();
    (peak, out)
}

#[test]
fn a_sliding_windows_drops_are_not_held() {
    // 20 000 events over 20 s in 1 s windows sliding every 1 ms: 80 000 cells, and about
    // 1.2 M placements dropped (6 %). Held, they took 110 MB more (272 MB at 50 000 events).
    let events = if cfg!(debug_assertions) {
        "20000"
    } else {
        "50000"
    };
    for format in ["table", "json"] {
        let (peak, out) = peak_rss_of(&[
            "run", "--events", events, "--span", "20s", "--window", "1s", "--slide", "1ms",
            "--format", format,
        ]);
        eprintln!("{format}: peak RSS {peak} KiB");
        assert!(out.contains("dropped"), "{out}");
        assert!(peak < 64 * 1024, "{format}: {peak} KiB");
    }
}

#[test]
fn the_state_bound_is_above_the_measured_peak() {
    // Runs whose cells dominate: long spans of sliding windows a millisecond apart, the
    // table, JSON and the pipeline.
    // Events, --span and its ms, window size and slide (ms), more flags, the costs.
    type Case<'a> = (usize, &'a str, f64, i64, i64, &'a [&'a str], StateCosts);
    let cases: &[Case] = &[
        (2_000, "600s", 600_000.0, 1_000, 1, &[], StateCosts::SINGLE),
        (
            2_000,
            "600s",
            600_000.0,
            1_000,
            1,
            &["--format", "json"],
            StateCosts::SINGLE_LISTED,
        ),
        (20_000, "60s", 60_000.0, 10_000, 10, &[], StateCosts::SINGLE),
        (
            500,
            "100s",
            100_000.0,
            1_000,
            1,
            &["--parallelism", "2"],
            StateCosts::PIPELINE,
        ),
    ];
    for &(events, span_flag, span, size, slide, extra, costs) in cases {
        let stream = Stream::generate(&StreamParams {
            events,
            span,
            ..StreamParams::default()
        })
        .expect("valid");
        let first = stream
            .events
            .iter()
            .map(|e| e.event_time)
            .fold(f64::INFINITY, f64::min);
        let last = stream
            .events
            .iter()
            .map(|e| e.event_time)
            .fold(f64::NEG_INFINITY, f64::max);
        let window = WindowFn::sliding(size, slide).expect("valid");
        let bound = StateBound::of(
            &window,
            events as u64,
            stream.keys.len() as u64,
            Some((first, last)),
            costs,
        );
        let (n, size_flag, slide_flag) = (
            events.to_string(),
            format!("{size}ms"),
            format!("{slide}ms"),
        );
        let mut args = vec![
            "run",
            "--events",
            &n,
            "--span",
            span_flag,
            "--window",
            &size_flag,
            "--slide",
            &slide_flag,
        ];
        args.extend_from_slice(extra);
        let (peak, _) = peak_rss_of(&args);
        eprintln!(
            "{args:?}: peak RSS {peak} KiB, bound {} KiB ({} cells)",
            bound.bytes / 1024,
            bound.cells
        );
        assert!(bound.fits());
        assert!(
            (peak as u64) * 1024 <= bound.bytes,
            "{args:?}: peak {peak} KiB above the bound {} KiB",
            bound.bytes / 1024
        );
    }
}

#[test]
fn unaligned_checkpoints_hold_what_is_in_flight_once() {
    // A 40 s transit and a checkpoint every millisecond keep thousands of checkpoints in
    // progress, each storing what its receivers take before its barrier: a copy per
    // checkpoint took 289 MB at 2 000 events (and 13 s), one log with ranges into it 52 MB.
    let (peak, out) = peak_rss_of(&[
        "run",
        "--events",
        "2000",
        "--parallelism",
        "8",
        "--partitions",
        "8",
        "--barriers",
        "unaligned",
        "--transit",
        "40s",
        "--checkpoint-every",
        "1ms",
    ]);
    eprintln!("unaligned: peak RSS {peak} KiB");
    assert!(out.contains("unaligned barriers"), "{out}");
    assert!(peak < 128 * 1024, "{peak} KiB");
}

/// Runs `advise --input -` over `rows` sorted rows on standard input (one event per ms, 500 ms
/// late, four keys, 10 s windows, the fixed and bounded watermarks); its peak RSS in KiB.
// The child is reaped by `wait4` (which also gives its peak memory), not by `Child::wait`.
#[allow(clippy::zombie_processes)]
fn advise_peak_rss_kib(rows: u64) -> i64 {
    let mut child = Command::new(env!("CARGO_BIN_EXE_twoclocks"))
        .args([
            "advise",
            "--input",
            "-",
            "--window",
            "10s",
            "--watermarks",
            "fixed,bounded",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let stdin = child.stdin.take().expect("stdin");
    let writer = std::thread::spawn(move || {
        let mut w = BufWriter::with_capacity(1 << 16, stdin);
        w.write_all(b"event_time_ms,proc_time_ms,key\n").unwrap();
        let keys = [b"a", b"b", b"c", b"d"];
        let mut num = itoa_buf();
        for i in 0..rows {
            w.write_all(num.fmt(i)).unwrap();
            w.write_all(b",").unwrap();
            w.write_all(num.fmt(i + 500)).unwrap();
            w.write_all(b",").unwrap();
            w.write_all(keys[(i % 4) as usize]).unwrap();
            w.write_all(b"\n").unwrap();
        }
        w.flush().unwrap();
    });
    let stdout = child.stdout.take().expect("stdout");
    let stderr = child.stderr.take().expect("stderr");
    let out = std::thread::spawn(move || std::io::read_to_string(stdout).unwrap_or_default());
    let err = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default());
    writer.join().expect("writes");
    let peak = reap(&child, String::new(), err);
    let out = out.join().unwrap();
    assert!(out.contains(&format!("over {rows} events")), "{out}");
    peak
}

#[test]
fn advice_over_a_sorted_log_does_not_grow_with_its_rows() {
    // Ten times the rows: 1 M and 10 M in a release build, a tenth of that in a debug build,
    // where advising is ten times slower. In memory, each event more was 24 bytes more, and
    // its place among its cell's arrivals 8 more.
    let (small_rows, large_rows) = if cfg!(debug_assertions) {
        (100_000, 1_000_000)
    } else {
        (1_000_000, 10_000_000)
    };
    let small = advise_peak_rss_kib(small_rows);
    let large = advise_peak_rss_kib(large_rows);
    eprintln!("advise peak RSS: {small_rows} rows {small} KiB, {large_rows} rows {large} KiB");
    assert!(
        large - small < 8 * 1024,
        "{small_rows} rows {small} KiB, {large_rows} rows {large} KiB"
    );
}
