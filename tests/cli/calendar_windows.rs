//! Windows of hours and days on a wall clock fall on the zone's hours and midnights: the New
//! York departures read in New York time have day windows from 05:00 UTC (midnight there),
//! the offset the same whichever way the dials are given, `--window-offset` over the zone's,
//! and every export carrying it. On a relative clock or in UTC nothing moves.

use twoclocks::cli::args::first_event_time;
use twoclocks::cli::commands::RunArgs;
use twoclocks::cli::{parse, Command, Invocation};
use twoclocks::engine::clock::Clock;
use twoclocks::engine::Oracle;
use twoclocks::engine::{EngineConfig, Stream, WindowFn};

use crate::cli_common::{output, refused};

const SAMPLE: &str = "assets/samples/nyc-departures.csv";
const HOUR: i64 = 3_600_000;
/// 2013-01-01 05:00 UTC, midnight in New York.
const NEW_YORK_NEW_YEAR: i64 = 1_357_016_400_000;

/// The sample's columns, read in New York time: its times are New York's.
const IN_NEW_YORK: [&str; 10] = [
    "--input",
    SAMPLE,
    "--event-time-col",
    "scheduled",
    "--proc-time-col",
    "departed",
    "--key-col",
    "origin",
    "--time-zone",
    "America/New_York",
];

/// `run`'s flags on the sample read in New York time, with `flags` after them.
fn run_args(flags: &[&str]) -> RunArgs {
    let argv = ["twoclocks", "run"]
        .into_iter()
        .chain(IN_NEW_YORK)
        .chain(flags.iter().copied());
    match parse(argv) {
        Ok(Invocation::Command(cmd)) => match *cmd {
            Command::Run(args) => args,
            other => panic!("not run: {other:?}"),
        },
        other => panic!("{other:?}"),
    }
}

/// The sample read in New York time and the dials `flags` give on it, the windows as they
/// fall in the stream's zone; `clock` in place of the stream's, if given.
fn zoned(flags: &[&str], clock: Option<Clock>) -> (Stream, EngineConfig) {
    let args = run_args(flags);
    let mut stream = args.source.load().unwrap();
    if let Some(clock) = clock {
        stream.clock = clock;
    }
    let cfg = args.engine.config().unwrap();
    let cfg = args
        .engine
        .in_zone(cfg, &stream.clock, first_event_time(&stream));
    (stream, cfg)
}

#[test]
fn a_new_york_day_starts_at_its_midnight_five_hours_into_the_utc_day() {
    let (stream, cfg) = zoned(&["--window", "24h"], None);
    assert_eq!(cfg.window.offset(), 5 * HOUR);
    assert_eq!(cfg.window.describe(), "24h tumbling (offset 5h)");
    let truth = Oracle::true_counts(&stream, &cfg.window);
    let mut days: Vec<(i64, u64)> = Vec::new();
    for (cell, n) in &truth {
        match days.last_mut() {
            Some((start, total)) if *start == cell.window.start_ms() => *total += n,
            _ => days.push((cell.window.start_ms(), *n)),
        }
    }
    // Three days from New York's midnights, each holding the flights scheduled on its date
    // (838, 935 and 904 rows of the file): on the UTC days, the 421 flights scheduled from
    // 19:00 would count in the next day, and a fourth day would hold the last evening's.
    let day = 24 * HOUR;
    assert_eq!(
        days,
        vec![
            (NEW_YORK_NEW_YEAR, 838),
            (NEW_YORK_NEW_YEAR + day, 935),
            (NEW_YORK_NEW_YEAR + 2 * day, 904),
        ]
    );
    assert_eq!(stream.clock.at(days[0].0 as f64), "2013-01-01 00:00");
}

#[test]
fn hours_and_days_keep_the_zone_s_offset_under_every_flag_that_gives_them() {
    let offset = |flags: &[&str]| zoned(flags, None).1.window.offset();
    // Sliding days a day apart or an hour apart: the hours of New York are UTC's.
    assert_eq!(offset(&["--window", "24h", "--slide", "6h"]), 5 * HOUR);
    assert_eq!(offset(&["--window", "24h", "--slide", "1h"]), 0);
    assert_eq!(offset(&["--window", "48h"]), 5 * HOUR);
    // A window that does not divide a day stays on the epoch's grid.
    assert_eq!(offset(&["--window", "7m"]), 0);
    assert_eq!(offset(&["--window", "24h", "--slide", "7m"]), 0);
    // --window-offset overrides the zone's, modulo the slide, as Flink's of(size, offset).
    assert_eq!(offset(&["--window", "24h", "--window-offset", "0"]), 0);
    assert_eq!(
        offset(&["--window", "24h", "--window-offset", "-19h"]),
        5 * HOUR
    );
    assert_eq!(
        offset(&["--window", "24h", "--window-offset", "30m"]),
        HOUR / 2
    );
    // Sessions and the global window are on no grid.
    let sessions = zoned(&["--session", "1h"], None).1.window;
    assert_eq!(sessions, WindowFn::session(HOUR).unwrap());
}

#[test]
fn on_a_relative_clock_or_in_utc_windows_stay_on_the_epoch_s_grid() {
    for clock in [Clock::Relative, Clock::wall_utc()] {
        let (_, cfg) = zoned(&["--window", "24h"], Some(clock.clone()));
        assert_eq!(
            cfg.window,
            WindowFn::tumbling(24 * HOUR).unwrap(),
            "{clock:?}"
        );
    }
    // The sample read in UTC, as it is without --time-zone.
    let utc: Vec<&str> = IN_NEW_YORK[..8].to_vec();
    let json: serde_json::Value = serde_json::from_str(
        &output(&[&["run", "--format", "json", "--window", "24h"][..], &utc].concat()).unwrap(),
    )
    .unwrap();
    assert_eq!(json["config"]["window"], "24h tumbling");
    assert_eq!(json["windows"][0]["start_ms"], 1_356_998_400_000.0);
}

#[test]
fn a_run_the_frontier_and_an_export_of_the_log_read_in_new_york_take_its_days() {
    let cmd = |head: &[&str], tail: &[&str]| output(&[head, &IN_NEW_YORK[..], tail].concat());
    let run = cmd(&["run", "--format", "json"], &["--window", "24h"]).unwrap();
    let json: serde_json::Value = serde_json::from_str(&run).unwrap();
    assert_eq!(json["config"]["window"], "24h tumbling (offset 5h)");
    let mut starts: Vec<i64> = json["windows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["start_ms"].as_f64().unwrap() as i64)
        .collect();
    starts.dedup();
    let day = 24 * HOUR;
    assert_eq!(
        starts,
        [0, day, 2 * day].map(|d| NEW_YORK_NEW_YEAR + d).to_vec()
    );
    // The sweep runs New York's days: as with the offset given, not as on UTC's.
    let frontier = |more: &[&str]| {
        cmd(
            &["frontier", "--format", "json"],
            &[&["--window", "24h"][..], more].concat(),
        )
        .unwrap()
    };
    assert_eq!(frontier(&[]), frontier(&["--window-offset", "5h"]));
    assert_ne!(frontier(&[]), frontier(&["--window-offset", "0"]));
    let advise = cmd(&["advise", "--format", "json"], &["--window", "24h"]).unwrap();
    assert!(
        advise.contains(r#""window":"24h tumbling (offset 5h)""#),
        "{advise}"
    );
    let flink = cmd(&["export", "--to", "flink"], &["--window", "24h"]).unwrap();
    assert!(
        flink.contains("TumblingEventTimeWindows.of(Duration.ofHours(24), Duration.ofHours(5))"),
        "{flink}"
    );
    // --window-offset over the zone's.
    let flink = cmd(
        &["export", "--to", "flink"],
        &["--window", "24h", "--window-offset", "0"],
    )
    .unwrap();
    assert!(
        flink.contains(".window(TumblingEventTimeWindows.of(Duration.ofHours(24)))"),
        "{flink}"
    );
}

#[test]
fn a_window_offset_moves_a_run_s_windows() {
    let starts = |flags: &[&str]| -> Vec<i64> {
        let json: serde_json::Value =
            serde_json::from_str(&output(&[&["run", "--format", "json"], flags].concat()).unwrap())
                .unwrap();
        json["windows"]
            .as_array()
            .expect("windows")
            .iter()
            .map(|f| f["start_ms"].as_f64().unwrap() as i64)
            .collect()
    };
    let plain = starts(&[]);
    assert!(plain.iter().all(|s| s % 60_000 == 0), "{plain:?}");
    let moved = starts(&["--window-offset", "7s"]);
    assert!(!moved.is_empty());
    assert!(
        moved.iter().all(|s| s.rem_euclid(60_000) == 7_000),
        "{moved:?}"
    );
}

#[test]
fn a_window_offset_is_refused_where_windows_lie_on_no_grid() {
    for flags in [
        &["--session", "10s", "--window-offset", "5s"][..],
        &["--window", "global", "--window-offset", "5s"],
    ] {
        let err = refused(&[&["run"], flags].concat());
        assert!(err.contains("--window-offset"), "{err}");
    }
    for bad in ["5", "1.5ms", "inf", "-x"] {
        let err = refused(&["run", "--window-offset", bad]);
        assert!(err.contains("offset"), "{bad}: {err}");
    }
}

#[test]
fn every_export_carries_the_offset() {
    let export = |to: &str, flags: &[&str]| {
        output(&[&["export", "--to", to, "--window", "24h"], flags].concat()).unwrap()
    };
    let offset = ["--window-offset", "5h"];
    let flink = export("flink", &offset);
    assert!(
        flink.contains(
            ".window(TumblingEventTimeWindows.of(Duration.ofHours(24), Duration.ofHours(5)))"
        ),
        "{flink}"
    );
    let beam = export("beam", &offset);
    assert!(
        beam.contains(
            "FixedWindows.of(Duration.standardHours(24)).withOffset(Duration.standardHours(5))"
        ),
        "{beam}"
    );
    let sql = export("flink-sql", &offset);
    assert!(
        sql.contains("TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '24' HOUR, INTERVAL '5' HOUR)"),
        "{sql}"
    );
    let kafka = export("kafka-streams", &offset);
    assert!(
        kafka.contains("Differs from twoclocks: Kafka Streams' windows take no offset"),
        "{kafka}"
    );
    let sliding = ["--slide", "6h", "--window-offset", "-19h"];
    let flink = export("flink", &sliding);
    assert!(
        flink.contains("SlidingEventTimeWindows.of(Duration.ofHours(24), Duration.ofHours(6), Duration.ofHours(5))"),
        "{flink}"
    );
    let beam = export("beam", &sliding);
    assert!(
        beam.contains("SlidingWindows.of(Duration.standardHours(24)).every(Duration.standardHours(6)).withOffset(Duration.standardHours(5))"),
        "{beam}"
    );
    // The GROUP BY window functions (for early panes) take none, and say so.
    let sql = export("flink-sql", &[&offset[..], &["--early", "1m"]].concat());
    assert!(
        sql.contains("Differs from twoclocks: the GROUP BY window functions take no offset"),
        "{sql}"
    );
    // Without an offset, not a word of it.
    for to in ["flink", "flink-sql", "beam", "kafka-streams"] {
        let plain = export(to, &[]);
        assert!(
            !plain.contains("withOffset") && !plain.contains("past the epoch"),
            "{to}"
        );
    }
}

#[test]
fn slack_statistics_bin_on_the_epoch_s_grid_and_refuse_an_offset() {
    let query = ["advise", "--sql", "duckdb", "--time-format", "ms"];
    assert!(output(&[&query[..], &["--window", "24h"]].concat()).is_ok());
    let err =
        output(&[&query[..], &["--window", "24h", "--window-offset", "5h"]].concat()).unwrap_err();
    assert!(err.contains("--window-offset"), "{err}");
}

#[test]
fn the_ui_opens_the_log_read_in_new_york_on_its_days_single_or_as_a_job() {
    for job in [&[][..], &["--parallelism", "2"]] {
        let argv = ["twoclocks"]
            .into_iter()
            .chain(IN_NEW_YORK)
            .chain(["--window", "24h"])
            .chain(job.iter().copied());
        let Ok(Invocation::Ui(args, matches)) = parse(argv) else {
            panic!("not the UI");
        };
        let (options, preset) = twoclocks::cli::ui_options(&args, &matches).unwrap();
        assert_eq!(options.config.window.offset(), 5 * HOUR, "{job:?}");
        let first = options.scenario.windows_of(None)[0];
        assert_eq!(first.start_ms(), NEW_YORK_NEW_YEAR, "{job:?}");
        if let Some(preset) = preset {
            assert_eq!(preset.config.engine.window, options.config.window);
        }
    }
}

#[test]
fn a_log_in_arrival_order_streamed_from_its_file_takes_the_same_days() {
    // The sample sorted by departure: run replays it from a temporary file, one at a time.
    let text = std::fs::read_to_string(SAMPLE).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines[1..].sort_by_key(|l| l.split(',').nth(1).unwrap_or_default().to_string());
    let file = tempfile::Builder::new().suffix(".csv").tempfile().unwrap();
    std::fs::write(file.path(), lines.join("\n") + "\n").unwrap();
    let path = file.path().display().to_string();
    let mut args = IN_NEW_YORK.to_vec();
    args[1] = &path;
    let run = output(&[&["run", "--format", "json", "--window", "24h"][..], &args].concat());
    let json: serde_json::Value = serde_json::from_str(&run.unwrap()).unwrap();
    assert_eq!(json["config"]["window"], "24h tumbling (offset 5h)");
    assert_eq!(json["windows"][0]["start_ms"], NEW_YORK_NEW_YEAR as f64);
}
