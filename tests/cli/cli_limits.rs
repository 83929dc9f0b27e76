//! Every duration the command line accepts, at the edges of its documented range: 0, 1 ms, the
//! largest allowed (10^11 s) and just past it. Each run must end (a deadline kills it and fails
//! the test): with its answer, or with one error line and exit code 2 that, past the range,
//! states the range.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The largest duration any flag accepts, as a user writes it.
const MAX: &str = "100000000000s";
/// One millisecond past it.
const PAST: &str = "100000000000001ms";

/// How long one small run may take, even in a debug build on a busy machine.
const DEADLINE: Duration = Duration::from_secs(60);

/// Exit code and stderr of the binary with `args`, or a failure if it did not end in time.
pub(crate) fn run_with_deadline(args: &[String]) -> (i32, String) {
    run_fed_with_deadline(args, None)
}

/// The same, with standard input written by `feed` on a thread of its own (until it returns
/// or the program stops reading) when one is given, else empty.
pub(crate) fn run_fed_with_deadline(
    args: &[String],
    feed: Option<fn(std::process::ChildStdin)>,
) -> (i32, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_twoclocks"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(if feed.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    if let (Some(feed), Some(stdin)) = (feed, child.stdin.take()) {
        std::thread::spawn(move || feed(stdin));
    }
    let mut stderr = child.stderr.take().expect("piped stderr");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("the child can be waited on") {
            let err = reader.join().expect("stderr read");
            return (status.code().unwrap_or(-1), err);
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "twoclocks {} did not end within {DEADLINE:?}",
                args.join(" ")
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What a run at one value must give.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    /// Ends with its answer.
    Ok,
    /// Refused: one line, exit 2.
    Refused,
    /// Refused because the value is past the range: the line states the range.
    OutOfRange,
}

use Expect::{Ok as Runs, OutOfRange, Refused};

/// One duration flag: the command and flags around it, and what each of
/// 0, 1 ms, the largest allowed and just past it must give.
struct Case {
    before: &'static [&'static str],
    flag: &'static str,
    prefix: &'static str,
    expect: [Expect; 4],
}

const SMALL: &[&str] = &["--events", "200"];

fn cases() -> Vec<Case> {
    let c = |before, flag, prefix, expect| Case {
        before,
        flag,
        prefix,
        expect,
    };
    let all_run = [Runs, Runs, Runs, OutOfRange];
    let positive = [Refused, Runs, Runs, OutOfRange];
    vec![
        c(&["run"], "--window", "", positive),
        c(
            &["run", "--window", MAX],
            "--slide",
            "",
            [Refused, Refused, Runs, OutOfRange],
        ),
        c(&["run"], "--grace", "", all_run),
        c(&["run"], "--early", "", positive),
        c(&["run"], "--span", "", all_run),
        c(&["run"], "--mean-delay", "", positive),
        c(&["run"], "--tail-max", "", all_run),
        c(&["run"], "--watermark", "fixed:", all_run),
        c(&["run"], "--watermark", "bounded:", all_run),
        c(
            &["run", "--parallelism", "2"],
            "--checkpoint-every",
            "",
            positive,
        ),
        c(&["run", "--parallelism", "2"], "--transit", "", all_run),
        c(&["run", "--parallelism", "2"], "--crash-at", "", all_run),
        c(
            &["run", "--parallelism", "2"],
            "--idle-timeout",
            "",
            positive,
        ),
        c(&["run", "--partitions", "2"], "--outage", "1@1s+", positive),
        c(&["frontier"], "--lags", "", all_run),
        c(&["frontier"], "--graces", "", all_run),
        c(
            &["frontier", "--watermark", "bounded:1s"],
            "--lags",
            "",
            all_run,
        ),
        c(&["stream"], "--span", "", all_run),
        c(&["stream"], "--mean-delay", "", positive),
    ]
}

#[test]
fn every_duration_flag_ends_at_the_edges_of_its_range() {
    for case in cases() {
        for (value, expect) in ["0", "1ms", MAX, PAST].into_iter().zip(case.expect) {
            let mut args: Vec<String> = case.before.iter().map(|s| s.to_string()).collect();
            args.extend(SMALL.iter().map(|s| s.to_string()));
            args.push(case.flag.to_string());
            args.push(format!("{}{value}", case.prefix));
            let (code, err) = run_with_deadline(&args);
            let shown = args.join(" ");
            assert!(!err.contains("panicked"), "{shown}: {err}");
            match expect {
                Runs => assert_eq!(code, 0, "{shown}: {err}"),
                Refused | OutOfRange => {
                    assert_eq!(code, 2, "{shown}: {err}");
                    assert_eq!(err.lines().count(), 1, "{shown}: {err}");
                    assert!(err.starts_with("twoclocks: "), "{shown}: {err}");
                }
            }
            if expect == OutOfRange {
                assert!(
                    err.contains("out of range") && err.contains("1e11s"),
                    "{shown}: {err}"
                );
            }
        }
    }
}

#[test]
fn the_frontier_and_the_pipeline_end_with_the_largest_lag() {
    for args in [
        &["frontier", "--lags", "0s,1e11s", "--graces", "0s,1e11s,inf"][..],
        &["frontier", "--watermark", "bounded:1s", "--lags", "1e11s"],
        &[
            "run",
            "--watermark",
            "fixed:1e11s",
            "--parallelism",
            "3",
            "--partitions",
            "2",
            "--checkpoint-every",
            "1e11s",
            "--crash-at",
            "1ms,1e11s",
            "--transit",
            "1e11s",
        ],
    ] {
        let mut args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        args.extend(SMALL.iter().map(|s| s.to_string()));
        let (code, err) = run_with_deadline(&args);
        assert_eq!(code, 0, "{}: {err}", args.join(" "));
    }
}

#[test]
fn the_hangs_once_reported_now_end_with_a_range_error() {
    for args in [
        &["run", "--watermark", "fixed:1e16s"][..],
        &["run", "--watermark", "bounded:1e16s"],
        &["frontier", "--lags", "1e16s"],
        &["run", "--parallelism", "2", "--watermark", "fixed:1e16s"],
        &["--watermark", "fixed:1e16s"],
    ] {
        let mut args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        args.extend(SMALL.iter().map(|s| s.to_string()));
        let (code, err) = run_with_deadline(&args);
        assert_eq!(code, 2, "{}: {err}", args.join(" "));
        assert!(err.contains("out of range"), "{}: {err}", args.join(" "));
    }
}

#[test]
fn the_frontier_grid_is_capped_with_a_way_out() {
    let args: Vec<String> = [
        "frontier",
        "--lags",
        "0s..9999ms/1ms",
        "--graces",
        "0s..9999ms/1ms",
        "--events",
        "200",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let (code, err) = run_with_deadline(&args);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("100000000 points"), "{err}");
    assert!(err.contains("at most 100000"), "{err}");
    assert!(err.contains("larger step"), "{err}");
    // Just within the limit: 250 × 400.
    let args: Vec<String> = [
        "frontier",
        "--lags",
        "0s..249s/1s",
        "--graces",
        "0s..399s/1s",
        "--events",
        "200",
        "--format",
        "csv",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let (code, err) = run_with_deadline(&args);
    assert_eq!(code, 0, "{err}");
}

/// The UI's state for a command line without a subcommand, built and settled (the engine run
/// to the playhead) on another thread; a failure if it does not finish in time.
fn ui_settles(args: &'static [&'static str]) -> Result<(), String> {
    use clap::{CommandFactory, FromArgMatches};
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let result = (|| -> anyhow::Result<()> {
            let argv = std::iter::once("twoclocks").chain(args.iter().copied());
            let matches = twoclocks::cli::Cli::command().try_get_matches_from(argv)?;
            let cli = twoclocks::cli::Cli::from_arg_matches(&matches)?;
            let (options, job) = twoclocks::cli::ui_options(&cli.ui, &matches)?;
            let mut app = twoclocks::tui::app_for(options);
            if let Some(job) = job {
                app.open_job(job);
            }
            app.settle();
            Ok(())
        })();
        let _ = tx.send(result.map_err(|e| e.to_string()));
    });
    rx.recv_timeout(DEADLINE)
        .unwrap_or_else(|_| panic!("the UI on {args:?} did not settle within {DEADLINE:?}"))
}

#[test]
fn the_ui_settles_at_the_edges_of_the_ranges() {
    for args in [
        &["--events", "200", "--watermark", "fixed:1e11s"][..],
        &[
            "--events",
            "200",
            "--watermark",
            "bounded:1e11s",
            "--grace",
            "1e11s",
        ],
        &["--events", "200", "--window", "1e11s", "--early", "1ms"],
        &[
            "--events",
            "200",
            "--watermark",
            "fixed:1e11s",
            "--parallelism",
            "2",
            "--transit",
            "1e11s",
            "--checkpoint-every",
            "1e11s",
        ],
    ] {
        ui_settles(args).unwrap_or_else(|e| panic!("{args:?}: {e}"));
    }
    for args in [
        &["--events", "200", "--watermark", "fixed:1e16s"][..],
        &["--events", "200", "--parallelism", "2", "--transit", PAST],
    ] {
        let err = ui_settles(args).unwrap_err();
        assert!(err.contains("out of range"), "{args:?}: {err}");
    }
}

#[test]
fn intervals_below_a_millisecond_are_refused() {
    for (flag, value) in [
        ("--checkpoint-every", "1e-300ms"),
        ("--checkpoint-every", "0.5ms"),
        ("--early", "1e-300ms"),
        ("--early", "0.999ms"),
    ] {
        let args: Vec<String> = ["run", "--events", "200", "--parallelism", "2", flag, value]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let (code, err) = run_with_deadline(&args);
        assert_eq!(code, 2, "{flag} {value}: {err}");
        assert!(err.contains("at least 1ms"), "{flag} {value}: {err}");
    }
}
