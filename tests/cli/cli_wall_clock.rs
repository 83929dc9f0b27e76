//! The command line at a log's own scale: the New York departures through `run`, `advise`,
//! `frontier` and `report`, their times as dates and their durations in hours and minutes in
//! the tables, the sweeps reaching the log's delays (and saying so), JSON and CSV in
//! milliseconds; where no setting within the largest emit delay reaches the target, `advise`
//! names the `--max-delay` that would, on every stream; a stream whose target is met reads
//! as it did.

use crate::cli_common::twoclocks_text;

#[test]
fn advise_names_the_max_delay_that_would_reach_the_target() {
    let (code, out, err) = twoclocks_text(&[
        "advise",
        "--events",
        "3000",
        "--watermarks",
        "fixed",
        "--max-delay",
        "5s",
        "--target-accuracy",
        "100",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("no setting reaches 100%"), "{out}");
    // 24 steps of 1 s and of 2 s do not reach it; 24 steps of 5 s do.
    assert!(
        out.contains(
            "no setting within an emit delay of 5.0s reaches 100%; --max-delay 2m would: fixed \
             watermark, lag 0s, grace 90s, emit delay 90s (100.000%)"
        ),
        "{out}"
    );
    // What it names, given, meets the target.
    let (code, out, err) = twoclocks_text(&[
        "advise",
        "--events",
        "3000",
        "--watermarks",
        "fixed",
        "--max-delay",
        "2m",
        "--target-accuracy",
        "100",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("advised: fixed watermark, lag 0s, grace 90s"),
        "{out}"
    );
    assert!(!out.contains("would:"), "{out}");
}

#[test]
fn a_target_met_adds_no_line() {
    let (code, out, err) = twoclocks_text(&["advise", "--events", "3000", "--watermarks", "fixed"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("--max-delay"), "{out}");
    assert!(!out.contains("arrive before their event time"), "{out}");
    assert!(err.is_empty(), "{err}");
}

/// The New York departures of 1–3 January 2013 (nycflights13): scheduled departure as event
/// time, actual departure as processing time, origin airport as key; their times, written
/// without an offset, read in New York.
const DEPARTURES: [&str; 9] = [
    "--input",
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/samples/nyc-departures.csv"
    ),
    "--event-time-col",
    "scheduled",
    "--proc-time-col",
    "departed",
    "--key-col",
    "origin",
    "--time-zone",
];

/// `command` over the departures, with `args` after the input's flags.
fn over_departures(command: &str, args: &[&str]) -> (String, String) {
    let mut all = vec![command];
    all.extend_from_slice(&DEPARTURES);
    all.extend(["America/New_York", "--window", "1h"]);
    all.extend_from_slice(args);
    let (code, out, err) = twoclocks_text(&all);
    assert_eq!(code, 0, "{err}");
    (out, err)
}

#[test]
fn run_writes_the_departures_windows_as_dates() {
    // No window number: counted from the epoch it would read 376954.
    let (out, _) = over_departures("run", &["--watermark", "fixed:2h", "--grace", "30m"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[1], "  times in America/New_York", "{out}");
    assert_eq!(
        lines[5], "  start            end        key    value    truth    error",
        "{out}"
    );
    assert_eq!(
        lines[6], "  2013-01-01 05:00 06:00      EWR        2        2        0",
        "{out}"
    );
    // JSON keeps milliseconds.
    let (out, _) = over_departures(
        "run",
        &[
            "--watermark",
            "fixed:2h",
            "--grace",
            "30m",
            "--format",
            "json",
        ],
    );
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    // 05:00 in New York is 10:00 UTC.
    assert_eq!(j["windows"][0]["start_ms"], 1_357_034_400_000.0);
    assert_eq!(j["windows"][0]["end_ms"], 1_357_038_000_000.0);
}

#[test]
fn advise_sweeps_the_departures_delays_in_hours() {
    let (out, err) = over_departures("advise", &[]);
    assert!(
        err.contains(
            "twoclocks: swept lags and graces 0–12h in steps of 30m (the log's \
             99.9th-percentile delay is 6h 19m); --max-delay changes it\n"
        ),
        "{err}"
    );
    assert!(
        out.starts_with(
            "advice for 60m tumbling windows over 2677 events: target 99.9% accuracy, emit \
             delay at most 12h\n"
        ),
        "{out}"
    );
    for line in [
        "  lag 0, grace 6h                        0          6h            1              1   \
         99.963% ◀ advised (+12 alike)",
        "  advised: lag 0, grace 6h: emit delay 6h, 99.963% accuracy, state at most 24 cells \
         (1.9 KiB)",
        "  q 0.99, grace 3h                  2h 10m      5h 10m            2              2   \
         99.925% ◀ advised",
        "advised: heuristic watermark, q 0.99, grace 3h",
    ] {
        assert!(out.lines().any(|l| l == line), "{line}\n{out}");
    }
    // Half the flights leave early: the heuristic's median delay is negative, and the note
    // says what that is.
    assert!(
        out.contains("q 0.5, grace 0                    −44.7s      −44.7s"),
        "{out}"
    );
    assert!(
        out.contains("  (a negative lag: where most recent events arrive before their event time"),
        "{out}"
    );
    assert!(
        out.contains("\n1277 of 2677 events (47.7%) arrive before their event time"),
        "{out}"
    );
    // JSON keeps milliseconds, and the sweep's reach is in it.
    let (out, _) = over_departures("advise", &["--format", "json"]);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["max_delay_ms"], 43_200_000.0);
    assert_eq!(j["advised"]["grace_ms"], 10_800_000.0);
    // A --max-delay given wins, and is not announced.
    let (out, err) = over_departures("advise", &["--max-delay", "1h", "--target-accuracy", "99%"]);
    assert!(!err.contains("swept"), "{err}");
    assert!(out.contains("emit delay at most 60m"), "{out}");
    assert!(
        out.contains(
            "\nno setting within an emit delay of 60m reaches 99%; --max-delay 4h would: \
             heuristic watermark, q 0.95, grace 70m, emit delay 2h 8m (99.029%)\n"
        ),
        "{out}"
    );
}

#[test]
fn frontier_sweeps_the_departures_delays_in_hours() {
    let (out, err) = over_departures("frontier", &[]);
    assert!(
        err.contains(
            "twoclocks: swept lags and graces 0–6h 30m in steps of 30m (the log's \
             99.9th-percentile delay is 6h 19m); --lags and --graces change it\n"
        ),
        "{err}"
    );
    let lines: Vec<&str> = out.lines().collect();
    // 14 lags × 14 graces under two lines of heading.
    assert_eq!(lines.len(), 2 + 14 * 14, "{out}");
    assert_eq!(
        lines[3],
        "        0     30m         30m      201             96          201          9    92.49%"
    );
    assert_eq!(
        lines[2 + 14 + 3],
        "      30m     90m          2h       33             29           33          2    98.77%"
    );
    // CSV keeps milliseconds; a list given stands, the other sweep still the log's.
    let (out, err) = over_departures("frontier", &["--lags", "0s,1h", "--format", "csv"]);
    assert!(err.contains("swept graces 0–6h 30m"), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1 + 2 * 14, "{out}");
    assert_eq!(lines[2], "0,1800000,1800000,201,96,201,9,92.4916");
    assert!(lines[15].starts_with("3600000,0,3600000,"), "{out}");
}

#[test]
fn report_writes_the_departures_times_and_delays_on_their_clock() {
    let mut args = vec!["report"];
    args.extend_from_slice(&DEPARTURES);
    args.push("America/New_York");
    let (code, out, err) = twoclocks_text(&args);
    assert_eq!(code, 0, "{err}");
    for line in [
        "  2677 events with event times from 2013-01-01 05:15 to 2013-01-03 23:59 \
         (America/New_York)",
        "  delay  p50 0   p99 2h 44m   max 14h 13m",
        "  perfect watermark lags by 14h 13m (the largest delay in the stream)",
    ] {
        assert!(out.lines().any(|l| l == line), "{line}\n{out}");
    }
}

#[test]
fn the_departures_plot_counts_emit_delay_in_hours() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("advice.svg");
    let svg_arg = crate::cli_common::path_arg(&svg);
    let (out, _) = over_departures("advise", &["--plot", &svg_arg]);
    assert!(
        out.contains("advised: heuristic watermark, q 0.99, grace 3h"),
        "{out}"
    );
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(picture.contains("emit delay (h)"), "{picture}");
    assert!(
        picture.contains("advised: heuristic q 0.99, grace 3h"),
        "{picture}"
    );
}
