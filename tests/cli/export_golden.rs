//! `twoclocks export`: golden files of every target on the dial settings that exercise each
//! part of the translation (the classroom default; sliding + bounded + grace + early +
//! discarding; sessions; the global window with a TTL; the heuristic and perfect watermarks),
//! a check that every dial given reaches the code, and the errors.

use clap::ValueEnum;
use twoclocks::cli::export::Target;

use crate::cli_common::output;
use crate::kept_snapshots::assert_snapshot;

/// Every target `--to` takes, by the name it takes, from the exports' own list: a target added
/// is golden-tested here, and the tables below do not compile until they say what it writes.
fn targets() -> Vec<String> {
    Target::value_variants().iter().map(|t| t.name()).collect()
}

/// How a comment line starts in the targets' languages: Java's `//`, SQL's `--`, Python's `#`.
const COMMENT_MARKS: [&str; 3] = ["//", "--", "#"];

/// The dial settings with a golden file per target.
const SETTINGS: [(&str, &[&str]); 7] = [
    ("classroom", &[]),
    (
        "sliding_bounded_early_discarding",
        &[
            "--window",
            "60s",
            "--slide",
            "20s",
            "--watermark",
            "bounded:5s",
            "--grace",
            "30s",
            "--early",
            "10s",
            "--accumulation",
            "discarding",
            "--idle-timeout",
            "10s",
        ],
    ),
    (
        "sessions",
        &[
            "--scenario",
            "sessions",
            "--early",
            "5s",
            "--accumulation",
            "retracting",
        ],
    ),
    (
        "global_ttl",
        &["--window", "global", "--ttl", "2s", "--early", "10s"],
    ),
    (
        "global_event_ttl",
        &["--window", "global", "--ttl", "30s", "--ttl-time", "event"],
    ),
    (
        "heuristic",
        &["--watermark", "heuristic:0.9:500", "--grace", "20s"],
    ),
    (
        "perfect_grace_inf",
        &[
            "--watermark",
            "perfect",
            "--window",
            "30s",
            "--grace",
            "inf",
        ],
    ),
];

#[test]
fn golden_exports() {
    for (name, flags) in SETTINGS {
        for target in targets() {
            let mut args = vec!["export", "--to", &target];
            args.extend_from_slice(flags);
            let out = output(&args).unwrap_or_else(|e| panic!("{args:?}: {e}"));
            assert_snapshot!(format!("{target}__{name}"), out, &args.join(" "));
        }
    }
}

/// Every dial given appears in each target's output, in that engine's own spelling.
#[test]
fn every_dial_reaches_the_code() {
    let flags = [
        "--window",
        "47s",
        "--watermark",
        "bounded:3s",
        "--grace",
        "37s",
        "--early",
        "13s",
        "--accumulation",
        "discarding",
        "--idle-timeout",
        "11s",
    ];
    // What each target writes for the dials, in its own spelling.
    let needles = |target: Target| -> &[&str] {
        match target {
            Target::Flink => &[
                "TumblingEventTimeWindows.of(Duration.ofSeconds(47))",
                "forBoundedOutOfOrderness(Duration.ofSeconds(3))",
                ".allowedLateness(Duration.ofSeconds(37))",
                "new EarlyThenOnTime(13000L, true)",
                ".withIdleness(Duration.ofSeconds(11))",
                ".sideOutputLateData(DROPPED)",
                "FIRE_AND_PURGE",
            ],
            Target::FlinkSql => &[
                "TUMBLE(ts, INTERVAL '47' SECOND)",
                "WATERMARK FOR ts AS ts - INTERVAL '3' SECOND - INTERVAL '0.001' SECOND",
                "SET 'table.exec.emit.allow-lateness' = '37 s';",
                "SET 'table.exec.emit.early-fire.delay' = '13 s';",
                "SET 'table.exec.source.idle-timeout' = '11 s';",
                "for discarding panes",
            ],
            Target::Beam => &[
                "FixedWindows.of(Duration.standardSeconds(47))",
                "Duration.standardSeconds(3),",
                ".withAllowedLateness(Duration.standardSeconds(37))",
                ".plusDelayOf(Duration.standardSeconds(13))",
                ".discardingFiredPanes()",
                "--idle-timeout 11s",
            ],
            // The bound joins the grace: 3s + 37s.
            Target::KafkaStreams => &[
                "TimeWindows.ofSizeAndGrace(Duration.ofSeconds(47), Duration.ofSeconds(40))",
                "Suppressed.untilTimeLimit(Duration.ofSeconds(13)",
                "Suppressed.untilWindowCloses(BufferConfig.unbounded())",
                "--idle-timeout 11s",
                "for discarding panes",
            ],
            // The watermark is the source's: the bound is said, for the source to give.
            Target::BeamPython => &[
                "window.FixedWindows(Duration(seconds=47))",
                "the highest event time seen − 3s",
                "allowed_lateness=Duration(seconds=37)",
                "trigger.AfterProcessingTime(13)",
                "accumulation_mode=trigger.AccumulationMode.DISCARDING",
                "idle timeout",
            ],
        }
    };
    for &target in Target::value_variants() {
        let name = target.name();
        let mut args = vec!["export", "--to", &name];
        args.extend_from_slice(&flags);
        let out = output(&args).unwrap();
        for n in needles(target) {
            assert!(out.contains(n), "{name}: {n:?} missing from\n{out}");
        }
    }
}

/// Sliding windows, sessions and the global window reach each target's own assigner.
#[test]
fn window_kinds_reach_the_code() {
    let flags: [&[&str]; 3] = [
        &["--window", "90s", "--slide", "30s"],
        &["--session", "45s"],
        &["--window", "global", "--ttl", "7s"],
    ];
    // What each target writes for each of the flags above, in order.
    let needles = |target: Target| -> [&str; 3] {
        match target {
            Target::Flink => [
                "SlidingEventTimeWindows.of(Duration.ofSeconds(90), Duration.ofSeconds(30))",
                "EventTimeSessionWindows.withGap(Duration.ofSeconds(45))",
                ".newBuilder(Duration.ofSeconds(7))",
            ],
            Target::FlinkSql => [
                "HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '30' SECOND, INTERVAL '90' SECOND)",
                "SESSION(TABLE events PARTITION BY `key`, DESCRIPTOR(ts), INTERVAL '45' SECOND)",
                "SET 'table.exec.state.ttl' = '7 s';",
            ],
            Target::Beam => [
                "SlidingWindows.of(Duration.standardSeconds(90)).every(Duration.standardSeconds(30))",
                "Sessions.withGapDuration(Duration.standardSeconds(45))",
                "new GlobalWindows()",
            ],
            Target::KafkaStreams => [
                ".advanceBy(Duration.ofSeconds(30))",
                "SessionWindows.ofInactivityGapAndGrace(Duration.ofSeconds(45)",
                "SessionWindows.ofInactivityGapWithNoGrace(Duration.ofSeconds(7))",
            ],
            Target::BeamPython => [
                "window.SlidingWindows(Duration(seconds=90), Duration(seconds=30))",
                "window.Sessions(Duration(seconds=45))",
                "window.GlobalWindows()",
            ],
        }
    };
    for &target in Target::value_variants() {
        let name = target.name();
        for (flags, needle) in flags.iter().zip(needles(target)) {
            let mut args = vec!["export", "--to", &name];
            args.extend_from_slice(flags);
            let out = output(&args).unwrap();
            assert!(
                out.contains(needle),
                "{args:?}: {needle:?} missing from\n{out}"
            );
        }
    }
}

/// Flink SQL reads the experimental table.exec.emit.* options only in the deprecated GROUP BY
/// TUMBLE/HOP window aggregation: a window TVF aggregation refuses them, and so does GROUP BY
/// SESSION. So no export sets them next to a TVF or a session, and sessions with early panes
/// or a grace say what is lost.
#[test]
fn flink_sql_emit_options_only_with_group_windows() {
    let cases: [&[&str]; 5] = [
        &["--early", "10s"],
        &["--grace", "30s"],
        &[
            "--window", "90s", "--slide", "30s", "--early", "5s", "--grace", "1m",
        ],
        &["--session", "45s", "--early", "5s", "--grace", "1m"],
        &["--scenario", "sessions", "--early", "5s"],
    ];
    for flags in cases {
        let mut args = vec!["export", "--to", "flink-sql"];
        args.extend_from_slice(flags);
        let out = output(&args).unwrap();
        let emits = out.contains("SET 'table.exec.emit.");
        let tvf = out.contains("FROM TABLE(");
        let session = out.contains("SESSION(");
        assert!(!(emits && (tvf || session)), "{args:?}\n{out}");
        if session {
            assert!(tvf, "{args:?}: sessions are written as the TVF\n{out}");
            let prose = out.split_whitespace().collect::<Vec<_>>().join(" ");
            assert!(
                prose.contains("no early firings for session windows")
                    && prose.contains("no allowed lateness for session windows"),
                "{args:?}\n{out}"
            );
        } else {
            assert!(emits && out.contains("GROUP BY `key`, "), "{args:?}\n{out}");
        }
    }
}

/// The watermark kinds no engine has are said to differ, with the value standing in for them.
#[test]
fn missing_watermarks_are_said_so() {
    for target in targets() {
        let target = target.as_str();
        for wm in ["fixed:20s", "heuristic", "perfect"] {
            let out = output(&["export", "--to", target, "--watermark", wm]).unwrap();
            assert!(
                out.contains("Differs from twoclocks:"),
                "{target} {wm}: no difference stated\n{out}"
            );
        }
        let out = output(&["export", "--to", target, "--watermark", "heuristic"]).unwrap();
        let prose: Vec<&str> = out
            .split_whitespace()
            .filter(|w| !COMMENT_MARKS.contains(w))
            .collect();
        assert!(
            prose
                .join(" ")
                .contains("none of Flink, Beam or Kafka Streams has it"),
            "{target}"
        );
    }
}

/// Fractional durations are rounded to whole milliseconds and said so; every comment fits.
#[test]
fn odd_values_are_rounded_and_said_so() {
    for target in targets() {
        let target = target.as_str();
        let out = output(&[
            "export",
            "--to",
            target,
            "--watermark",
            "bounded:1.5ms",
            "--grace",
            "0.25ms",
            "--early",
            "2.5ms",
        ])
        .unwrap();
        assert!(out.contains("rounded"), "{target}\n{out}");
        for line in out
            .lines()
            .filter(|l| COMMENT_MARKS.iter().any(|m| l.trim_start().starts_with(m)))
        {
            assert!(line.chars().count() <= 100, "{target}: {line}");
        }
    }
}

#[test]
fn errors_are_one_line() {
    let err = output(&["export", "--to", "spark"]).unwrap_err();
    assert!(err.contains("'spark'"), "{err}");
    let err = output(&["export"]).unwrap_err();
    assert!(err.contains("--to"), "{err}");
    let err = output(&["export", "--to", "flink", "--ttl", "2s"]).unwrap_err();
    assert!(err.contains("--ttl needs --window global"), "{err}");
    let err = output(&["export", "--to", "beam", "--idle-timeout", "0s"]).unwrap_err();
    assert!(err.contains("--idle-timeout must be at least 1ms"), "{err}");
    let err = output(&[
        "export",
        "--to",
        "kafka-streams",
        "--session",
        "10s",
        "--window",
        "5s",
    ])
    .unwrap_err();
    assert!(err.contains("cannot be used with"), "{err}");
}
