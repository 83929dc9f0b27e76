//! Fuzzing what a user can hand the program: random bytes and random near-valid text to each input
//! parser (the event-log reader, durations, window lengths, watermark specs, duration lists and
//! ranges, crash-time lists, outages), and random argument vectors to the command line. In process,
//! an argument vector is parsed and run to the end into a buffer (for the UI: its state built and
//! settled, without a terminal); a few are also given to the real binary. Every case ends with an
//! answer or with one error line (exit code 2 from the binary), and none panics.

use std::io::Write as _;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::sample::select;
use twoclocks::cli::args::{
    parse_duration, parse_duration_list, parse_watermark, parse_window_ms, MAX_DURATION_MS,
};
use twoclocks::cli::commands::PipelineArgs;
use twoclocks::cli::{error_line, execute, parse, ui_options, Invocation};
use twoclocks::io::csv::read_events_from;
use twoclocks::io::source::{read_source_from, InputFormat, OnBadRow, SourceOptions};

/// An error line as the program prints it: one line, no control character, not endless.
fn assert_one_line(line: &str) {
    assert!(!line.is_empty(), "an empty error");
    assert!(
        !line.chars().any(char::is_control),
        "a control character in {line:?}"
    );
    assert!(line.chars().count() <= 1_000, "{} characters", line.len());
}

/// Text near what a parser expects: its own tokens, numbers, units and separators, and a few
/// unprintable and far-away characters.
fn near(tokens: &'static [&'static str]) -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => select(tokens).prop_map(str::to_string),
        3 => select(&[
            "0", "1", "-1", "1e11", "1e16", "1e308", "1e999", ".5", "5.", "-0", "+3", "nan",
            "inf", "NaN", "9007199254740993", "18446744073709551616", "1e-300",
        ][..])
        .prop_map(str::to_string),
        3 => select(&["ms", "s", "m", "h", ":", ",", "..", "/", " ", "\"", "\t", "e", "-"][..])
            .prop_map(str::to_string),
        1 => select(&["\0", "\u{1b}[2J", "\r", "\n", "é", "∞", "\u{feff}", "×"][..])
            .prop_map(str::to_string),
    ];
    prop::collection::vec(piece, 0..8).prop_map(|v| v.concat())
}

fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![
        near(&[
            "10s",
            "fixed",
            "bounded",
            "heuristic",
            "perfect",
            "0s..120s/10s"
        ]),
        any::<String>(),
        "[ -~]{0,40}",
    ]
}

/// The first bytes that pick a decoder or a format.
const MAGICS: &[&[u8]] = &[b"", &[0x1f, 0x8b], &[0x28, 0xb5, 0x2f, 0xfd], b"PAR1", b"{"];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn the_log_reader_takes_any_bytes(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        if let Err(e) = read_events_from(bytes.as_slice(), "fuzz.csv") {
            assert_one_line(&error_line(&e));
        }
    }

    #[test]
    fn every_source_format_takes_any_bytes(
        bytes in prop::collection::vec(any::<u8>(), 0..400),
        format in select(&[None, Some(InputFormat::Csv), Some(InputFormat::Jsonl), Some(InputFormat::Parquet)]),
        magic in select(MAGICS),
        skip in any::<bool>(),
    ) {
        let mut input = magic.to_vec();
        input.extend_from_slice(&bytes);
        let opts = SourceOptions {
            format,
            on_bad_row: if skip { OnBadRow::Skip } else { OnBadRow::Error },
            ..SourceOptions::default()
        };
        if let Err(e) = read_source_from(input.as_slice(), "fuzz", None, &opts) {
            assert_one_line(&error_line(&e));
        }
    }

    #[test]
    fn the_json_lines_reader_takes_any_rows(
        rows in prop::collection::vec(
            near(&["{", "}", "\"event_time_ms\":", "\"proc_time_ms\":", "\"key\":", ",", "\"a\"", "1", "null", "true", "[", "]", "\"2026-12-04T08:00:00Z\""]),
            0..12,
        ),
    ) {
        let text = rows.join("\n");
        if let Err(e) = read_source_from(text.as_bytes(), "fuzz.jsonl", Some("fuzz.jsonl"), &SourceOptions::default()) {
            assert_one_line(&error_line(&e));
        }
    }

    #[test]
    fn the_log_reader_takes_any_rows(
        rows in prop::collection::vec(
            near(&["1", "2.5", "-3", ",", ",a", "\"a,b\"", "\"\"", "\"x\"\"y\"", " ", "key"]),
            0..12,
        ),
        crlf in any::<bool>(),
    ) {
        let end = if crlf { "\r\n" } else { "\n" };
        let mut text = format!("event_time_ms,proc_time_ms,key{end}");
        for r in &rows {
            text.push_str(r);
            text.push_str(end);
        }
        match read_events_from(text.as_bytes(), "fuzz.csv") {
            Ok(s) => {
                prop_assert!(s.len() <= rows.len());
                for e in &s.events {
                    prop_assert!(e.event_time.is_finite() && e.proc_time.is_finite());
                }
                for k in &s.keys {
                    prop_assert!(!k.is_empty() && !k.chars().any(char::is_control));
                }
            }
            Err(e) => {
                let line = error_line(&e);
                assert_one_line(&line);
                prop_assert!(line.starts_with("fuzz.csv, line ") || line.starts_with("fuzz.csv: "), "{}", line);
            }
        }
    }

    #[test]
    fn the_log_reader_takes_any_dates(
        rows in prop::collection::vec(
            (
                near(&[
                    "2013", "-", "01", "1", "12", "13", "29", "31", "32", "T", "t", " ", ":",
                    "05", "15", "23", "24", "60", "99", ".", ",", "250", "123456789",
                    "1234567890", "Z", "z", "+01:00", "-0500", "+01", "+99:99", "[America/New_York]",
                    "[Mars/Base]", "+002013", "-000001", "2013-03-10T02:30", "2013-11-03 01:30",
                ]),
                near(&["2013-01-01T05:15:00Z", "2013-01-01 05:15", "2013-01-01", "1357017300000"]),
            ),
            0..10,
        ),
        zone in select(&["", "America/New_York", "+05:30", "UTC"]),
        rfc3339 in any::<bool>(),
    ) {
        let mut text = String::from("event_time_ms,proc_time_ms,key\n");
        for (et, pt) in &rows {
            text += &format!("{},{},a\n", et.replace(['\n', '\r', ','], ""), pt.replace(['\n', '\r', ','], ""));
        }
        let opts = SourceOptions {
            time_zone: (!zone.is_empty()).then(|| twoclocks::io::times::zone_named(zone).unwrap()),
            time_format: rfc3339.then_some(twoclocks::io::source::TimeFormat::Rfc3339),
            ..SourceOptions::default()
        };
        match read_source_from(text.as_bytes(), "fuzz.csv", Some("fuzz.csv"), &opts) {
            Ok((s, report)) => {
                for e in &s.events {
                    prop_assert!(e.event_time.is_finite() && e.proc_time.is_finite());
                }
                for note in report.notes() {
                    assert_one_line(&note);
                }
            }
            Err(e) => {
                let line = error_line(&e);
                assert_one_line(&line);
                prop_assert!(line.starts_with("fuzz.csv, line ") || line.starts_with("fuzz.csv: "), "{}", line);
            }
        }
    }

    #[test]
    fn a_zone_is_found_or_refused_in_one_line(s in prop_oneof![
        near(&["America", "/", "New_York", "new york", "UTC", "GMT", "Z", "+", "-", "05", ":", "30", "0500", "Etc/GMT+5"]),
        any::<String>(),
    ]) {
        if let Err(e) = twoclocks::io::times::zone_named(&s) {
            assert_one_line(&e);
        }
    }

    #[test]
    fn a_duration_is_in_its_range_or_refused(s in any_text()) {
        match parse_duration(&s) {
            Ok(ms) => prop_assert!(ms == f64::INFINITY || (0.0..=MAX_DURATION_MS).contains(&ms)),
            Err(e) => assert_one_line(&e),
        }
        match parse_window_ms(&s) {
            Ok(ms) => prop_assert!((1..=MAX_DURATION_MS as i64).contains(&ms)),
            Err(e) => assert_one_line(&e),
        }
    }

    #[test]
    fn a_watermark_spec_parses_or_is_refused(s in any_text()) {
        match parse_watermark(&s) {
            Ok(kind) => {
                if let Some(lag) = kind.lag() {
                    prop_assert!((0.0..=MAX_DURATION_MS).contains(&lag));
                }
            }
            Err(e) => assert_one_line(&e),
        }
    }

    #[test]
    fn a_duration_list_is_bounded_or_refused(s in any_text()) {
        match parse_duration_list(&s) {
            Ok(v) => prop_assert!(!v.is_empty() && v.len() <= 10_000),
            Err(e) => assert_one_line(&e),
        }
        let crashes = PipelineArgs {
            parallelism: Some(2),
            partitions: None,
            checkpoint_every: None,
            crash_at: Some(s.clone()),
            sink: None,
            schedule_seed: None,
            transit: None,
            barriers: None,
            crash_operator: None,
            partition_by: None,
            outage: Vec::new(),
            idle_timeout: None,
        };
        match crashes.crashes() {
            Ok(v) => prop_assert!(v.windows(2).all(|w| w[0] < w[1])),
            Err(e) => assert_one_line(&error_line(&e)),
        }
    }

    #[test]
    fn an_outage_is_a_silence_of_a_partition_or_refused(
        s in prop_oneof![
            near(&["1@200s+90s", "@", "+", "3", "4", "200s", "90s", "1e+3s"]),
            any_text(),
        ],
    ) {
        let outage = PipelineArgs {
            parallelism: None,
            partitions: Some(4),
            checkpoint_every: None,
            crash_at: None,
            sink: None,
            schedule_seed: None,
            transit: None,
            barriers: None,
            crash_operator: None,
            partition_by: None,
            outage: vec![s],
            idle_timeout: None,
        };
        match outage.outages() {
            Ok(v) => {
                for o in v {
                    prop_assert!(o.partition < 4 && o.from.is_finite() && o.until.is_finite());
                    prop_assert!(o.until > o.from);
                }
            }
            Err(e) => assert_one_line(&error_line(&e)),
        }
    }
}

/// Small input files the argument vectors may name, in a folder of their own.
fn files() -> &'static [String; 4] {
    static FILES: OnceLock<[String; 4]> = OnceLock::new();
    FILES.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap().keep();
        let write = |name: &str, text: &str| {
            let path = dir.join(name);
            std::fs::write(&path, text).unwrap();
            path.display().to_string()
        };
        [
            write(
                "ok.csv",
                "event_time_ms,proc_time_ms,key\n1000,2500,a\n500,90000,b\n70000,71000,a\n",
            ),
            write("blank.csv", "event_time_ms,proc_time_ms,key\n1,2,a\n\n"),
            write("header.csv", "time,key\n1,a\n"),
            dir.join("missing.csv").display().to_string(),
        ]
    })
}

/// Where a flag is taken.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Scope {
    /// Every command: the source flags.
    Source,
    /// run, frontier and the UI: the engine's dials.
    Engine,
    /// run and the UI: the parallel job.
    Pipeline,
    Frontier,
    Ui,
    /// Output formats (run, stream, frontier).
    Format,
    /// Nowhere, or everywhere (help).
    Stray,
}

/// Every flag with the values it meets: good ones first, then edges and bad ones.
fn flag_table() -> Vec<(
    &'static str,
    Scope,
    &'static [&'static str],
    &'static [&'static str],
)> {
    use Scope::*;
    let bad_durations: &'static [&'static str] = &[
        "100000000000001ms",
        "-10s",
        "inf",
        "x",
        "",
        "1e16s",
        "1e-300ms",
    ];
    let bad_counts: &'static [&'static str] = &["0", "65", "-1", "x", "1e3"];
    vec![
        (
            "--seed",
            Source,
            &["0", "7", "18446744073709551615"],
            &["-1", "18446744073709551616"],
        ),
        (
            "--events",
            Source,
            &["0", "1", "2", "200", "300"],
            &["-3", "x"],
        ),
        (
            "--span",
            Source,
            &["0", "1ms", "600s", "1e11s"],
            bad_durations,
        ),
        ("--tail", Source, &["0", "1", "0.5"], &["-0.1", "2", "nan"]),
        (
            "--mean-delay",
            Source,
            &["1ms", "2s", "1e11s"],
            &["0", "-1s", "x"],
        ),
        ("--tail-max", Source, &["0", "90s", "1e11s"], bad_durations),
        (
            "--keys",
            Source,
            &["abcd", "a", "é ", " ,\""],
            &["", "ab\u{7}"],
        ),
        ("--input", Source, &["ok"], &["blank", "header", "missing"]),
        (
            "--time-zone",
            Source,
            &["UTC", "America/New_York", "+05:30"],
            &["Mars/Base", "", "+99", "new york"],
        ),
        (
            "--window",
            Engine,
            &["1ms", "60s", "1e11s", "7s"],
            &["1.5ms", "0", "-10s", "x"],
        ),
        (
            "--slide",
            Engine,
            &["1ms", "20s", "60s"],
            &["0", "1e11s", "-1s"],
        ),
        (
            "--watermark",
            Engine,
            &[
                "perfect",
                "fixed:0",
                "fixed:1e11s",
                "bounded:1ms",
                "heuristic",
                "heuristic:0.5:1000000",
                "heuristic:0:1",
            ],
            &[
                "heuristic:2",
                "fixed:-1s",
                "fixed:1e16s",
                "fixed",
                "bounded:inf",
            ],
        ),
        (
            "--grace",
            Engine,
            &["0", "1ms", "30s", "1e11s", "inf"],
            bad_durations,
        ),
        (
            "--early",
            Engine,
            &["1ms", "10s", "1e11s"],
            &["0", "-5s", "inf", "1e-300ms"],
        ),
        (
            "--accumulation",
            Engine,
            &["accumulating", "discarding", "retracting"],
            &["x"],
        ),
        (
            "--parallelism",
            Pipeline,
            &["1", "2", "4", "64"],
            bad_counts,
        ),
        ("--partitions", Pipeline, &["1", "3", "64"], bad_counts),
        (
            "--checkpoint-every",
            Pipeline,
            &["1s", "10s", "1e11s"],
            &["0", "-1s", "x", "1e-300ms", "0.5ms"],
        ),
        (
            "--crash-at",
            Pipeline,
            &["100s", "0s..600s/100s", "1e11s", "0"],
            &["100s,100s", "-1s", "x,"],
        ),
        ("--crash-operator", Pipeline, &["0", "3"], &["64", "-1"]),
        ("--partition-by", Pipeline, &["index", "key"], &["x"]),
        (
            "--outage",
            Pipeline,
            &["0@1s+2s", "0@0+1e11s", "1@1e+1s+1e+1s"],
            &[
                "x", "0@1s+0s", "64@1s+1s", "0@1s+-1s", "0@inf+1s", "0@1s+inf", "@+",
            ],
        ),
        (
            "--idle-timeout",
            Pipeline,
            &["1ms", "10s", "1e11s"],
            &["0", "-1s", "inf", "x", "1e-300ms"],
        ),
        (
            "--sink",
            Pipeline,
            &["additive", "idempotent", "transactional"],
            &["x"],
        ),
        (
            "--barriers",
            Pipeline,
            &["aligned", "unaligned", "at-least-once"],
            &["x"],
        ),
        (
            "--schedule-seed",
            Pipeline,
            &["1", "18446744073709551615"],
            &["-1", "x"],
        ),
        (
            "--transit",
            Pipeline,
            &["0", "50ms", "1e11s"],
            bad_durations,
        ),
        (
            "--lags",
            Frontier,
            &["0s..120s/10s", "1s", "0s..9999ms/1ms", "1e11s", "0"],
            &["-1s", "inf", "0s..1s/1e-300ms", "5s..1s/1s"],
        ),
        (
            "--graces",
            Frontier,
            &["0s..120s/10s", "1s", "inf", "0s..9999ms/1ms"],
            &["-1s", ","],
        ),
        (
            "--format",
            Format,
            &["table", "json", "csv", "jsonl"],
            &["x"],
        ),
        ("--theme", Ui, &["dark", "light", "mono"], &["x"]),
        (
            "--speed",
            Ui,
            &["1", "100000", "2.5x"],
            &["0", "-5", "1e9", "x"],
        ),
        (
            "--scenario",
            Ui,
            &["classroom", "punctual", "stormy"],
            &["x"],
        ),
        ("--paused", Ui, &[], &[]),
        ("--bogus", Stray, &[], &[]),
        ("--", Stray, &[], &[]),
        ("-h", Stray, &[], &[]),
    ]
}

/// Whether the subcommand takes flags of this scope.
fn takes(sub: &str, scope: Scope) -> bool {
    use Scope::*;
    matches!(
        (sub, scope),
        (_, Source)
            | ("run", Engine | Pipeline | Format)
            | ("frontier", Engine | Frontier | Format)
            | ("stream", Format)
            | ("", Engine | Pipeline | Ui)
    )
}

/// One flag and its value for a subcommand: mostly a flag it takes with a good value, now and
/// then a bad value, any text, or a flag it does not take.
fn flag_and_value(sub: &'static str) -> impl Strategy<Value = Vec<String>> {
    let table = flag_table();
    let own: Vec<_> = table.iter().copied().filter(|f| takes(sub, f.1)).collect();
    prop_oneof![
        9 => select(own),
        1 => select(table),
    ]
    .prop_flat_map(|(flag, _, good, bad)| {
        let value = if good.is_empty() {
            Just(None).boxed()
        } else if bad.is_empty() {
            select(good).prop_map(|v| Some(v.to_string())).boxed()
        } else {
            prop_oneof![
                12 => select(good).prop_map(|v| Some(v.to_string())),
                2 => select(bad).prop_map(|v| Some(v.to_string())),
                1 => any_text().prop_map(Some),
            ]
            .boxed()
        };
        value.prop_map(move |v| {
            let mut out = vec![flag.to_string()];
            match (flag, v) {
                ("--input", Some(v)) => {
                    let i = ["ok", "blank", "header", "missing"]
                        .iter()
                        .position(|n| *n == v)
                        .unwrap_or(3);
                    out.push(files()[i].clone());
                }
                (_, Some(v)) => out.push(v),
                (_, None) => {}
            }
            out
        })
    })
}

/// A command line: a subcommand (or none, for the UI) and a few flags; the stream is kept
/// small unless the flags choose another source.
fn argv() -> impl Strategy<Value = Vec<String>> {
    let subs = &[
        "", "", "", "run", "run", "run", "frontier", "frontier", "stream", "report", "help", "walk",
    ][..];
    select(subs)
        .prop_flat_map(|sub| (Just(sub), prop::collection::vec(flag_and_value(sub), 0..5)))
        .prop_map(|(sub, flags)| {
            let mut v = vec!["twoclocks".to_string()];
            if !sub.is_empty() {
                v.push(sub.to_string());
            }
            // Mostly each flag once (a flag given twice is refused; --window is tried twice).
            let mut seen: Vec<String> = Vec::new();
            let flags: Vec<String> = flags
                .into_iter()
                .filter(|f| {
                    let again = seen.contains(&f[0]) && f[0] != "--window";
                    seen.push(f[0].clone());
                    !again
                })
                .flatten()
                .collect();
            if !flags.iter().any(|f| f == "--input" || f == "--events") {
                v.extend(["--events".to_string(), "200".to_string()]);
            }
            v.extend(flags);
            v
        })
}

/// Runs a command line in process; the error line it would print, if any.
fn run_in_process(argv: &[String]) -> Option<String> {
    let result = match parse(argv) {
        Err(line) => return Some(line),
        Ok(Invocation::Help(_)) => return None,
        Ok(Invocation::Command(cmd)) => {
            let mut out = Vec::new();
            let r = execute(&cmd, &mut out);
            let _ = out.flush();
            r
        }
        Ok(Invocation::Ui(a, matches)) => ui_options(&a, &matches).map(|(options, job)| {
            let mut app = twoclocks::tui::app_for(options);
            if let Some(job) = job {
                app.open_job(job);
            }
            app.settle();
        }),
    };
    result.err().map(|e| error_line(&e))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn any_command_line_ends_with_an_answer_or_one_error_line(argv in argv()) {
        if let Some(line) = run_in_process(&argv) {
            assert_one_line(&line);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn the_binary_exits_0_or_2_with_one_error_line(argv in argv()) {
        // An argument cannot hold a NUL byte; the in-process cases cover that.
        let args: Vec<String> = argv[1..].iter().map(|a| a.replace('\0', "\u{1}")).collect();
        let mut child = Command::new(env!("CARGO_BIN_EXE_twoclocks"))
            .args(&args)
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        let mut stderr = child.stderr.take().expect("piped");
        let reader = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = std::io::Read::read_to_string(&mut stderr, &mut s);
            s
        });
        let start = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().expect("waitable") {
                break status;
            }
            if start.elapsed() > Duration::from_secs(60) {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{argv:?} did not end within 60 s");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let err = reader.join().expect("stderr read");
        prop_assert!(!err.contains("panicked"), "{:?}: {}", argv, err);
        match status.code() {
            Some(0) => {}
            Some(2) => {
                prop_assert_eq!(err.lines().count(), 1, "{:?}: {}", argv, err);
                prop_assert!(err.starts_with("twoclocks: "), "{:?}: {}", argv, err);
                assert_one_line(err.trim_end());
            }
            other => prop_assert!(false, "{:?}: exit {:?}: {}", argv, other, err),
        }
    }
}
