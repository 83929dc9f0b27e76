//! `run --input -` over a log in processing-time order holds the engine's open windows, not
//! the log: the real binary is fed 1 M and then 10 M rows on standard input (written from a
//! loop, no file; a tenth of that in a debug build), and its peak resident memory must not grow with the rows.
//! With `--format json` a tenth of the rows are dropped, and the panes and drops it lists are
//! written to temporary files as they come, not held: its memory must not grow either.
//!
//! A test binary of its own, not among the command line's (tests/cli): the peak `wait4`
//! reports for a child is never below the test process's own peak so far (Linux counts the
//! memory the child starts in, the parent's until its `exec`), so it measures the program only
//! while the test process stays small. Among the other tests it would measure theirs.
#![cfg(target_os = "linux")]

use std::io::{BufWriter, Write};
use std::process::{Command, Stdio};

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
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child, with valid pointers to locals.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4");
    let (out, err) = (out.join().unwrap(), err.join().unwrap());
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{err}"
    );
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
