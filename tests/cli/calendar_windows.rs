//! Windows of hours and days on a wall clock fall on the zone's hours and midnights: the New
//! York departures read in New York time have day windows from 05:00 UTC (midnight there),
//! the offset the same whichever way the dials are given, `--window-offset` over the zone's,
//! and every export carrying it. On a relative clock or in UTC nothing moves.

use std::path::Path;

use twoclocks::cli::args::first_event_time;
use twoclocks::cli::commands::RunArgs;
use twoclocks::cli::{parse, Command, Invocation};
use twoclocks::engine::clock::{Clock, Zone};
use twoclocks::engine::window::oracle;
use twoclocks::engine::{EngineConfig, Stream, WindowFn};

use crate::cli_common::{output, refused};

const SAMPLE: &str = "assets/samples/nyc-departures.csv";
const HOUR: i64 = 3_600_000;
/// 2013-01-01 05:00 UTC, midnight in New York.
const NEW_YORK_NEW_YEAR: i64 = 1_357_016_400_000;

/// `run`'s flags on `log` (the sample's columns), with `flags` after them.
fn run_args(log: &Path, flags: &[&str]) -> RunArgs {
    let log = log.display().to_string();
    let columns = [
        "--event-time-col",
        "scheduled",
        "--proc-time-col",
        "departed",
        "--key-col",
        "origin",
    ];
    let argv = ["twoclocks", "run", "--input", log.as_str()]
        .into_iter()
        .chain(columns)
        .chain(flags.iter().copied());
    match parse(argv) {
        Ok(Invocation::Command(cmd)) => match *cmd {
            Command::Run(args) => args,
            other => panic!("not run: {other:?}"),
        },
        other => panic!("{other:?}"),
    }
}

/// The sample with its times read in New York time: they are New York's, EST (UTC−05:00) all
/// through 1–3 January, so each is written with that offset.
fn sample_in_new_york() -> tempfile::NamedTempFile {
    let text = std::fs::read_to_string(SAMPLE).unwrap();
    let mut lines = text.lines();
    let mut out = format!("{}\n", lines.next().unwrap());
    for line in lines {
        let f: Vec<&str> = line.split(',').collect();
        out += &format!("{}-05:00,{}-05:00,{}\n", f[0], f[1], f[2]);
    }
    let file = tempfile::Builder::new().suffix(".csv").tempfile().unwrap();
    std::fs::write(file.path(), out).unwrap();
    file
}

/// The sample and the dials `flags` give on it, the windows as they fall in the stream's zone:
/// New York's, or UTC's (`None`: the clock the reader gives).
fn zoned(flags: &[&str], zone: Option<Zone>) -> (Stream, EngineConfig) {
    let log = sample_in_new_york();
    let args = run_args(log.path(), flags);
    let mut stream = args.source.load().unwrap();
    if let Some(zone) = zone {
        stream.clock = Clock::Wall(zone);
    }
    let cfg = args.engine.config().unwrap();
    let cfg = args
        .engine
        .in_zone(cfg, &stream.clock, first_event_time(&stream));
    (stream, cfg)
}

fn new_york() -> Option<Zone> {
    Zone::fixed(-5 * 3600)
}

#[test]
fn a_new_york_day_starts_at_its_midnight_five_hours_into_the_utc_day() {
    let (stream, cfg) = zoned(&["--window", "24h"], new_york());
    assert_eq!(cfg.window.offset(), 5 * HOUR);
    assert_eq!(cfg.window.describe(), "1440m tumbling (offset 5h)");
    let truth = oracle(&stream, &cfg.window);
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
    let offset = |flags: &[&str]| zoned(flags, new_york()).1.window.offset();
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
    let sessions = zoned(&["--session", "1h"], new_york()).1.window;
    assert_eq!(sessions, WindowFn::session(HOUR).unwrap());
}

#[test]
fn on_a_relative_clock_or_in_utc_windows_stay_on_the_epoch_s_grid() {
    for zone in [None, Some(Zone::utc())] {
        let (_, cfg) = zoned(&["--window", "24h"], zone.clone());
        assert_eq!(
            cfg.window,
            WindowFn::tumbling(24 * HOUR).unwrap(),
            "{zone:?}"
        );
    }
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
