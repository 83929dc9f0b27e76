//! The clock a log is on once read: a wall clock when a time in it was written as a date
//! (a text, a Parquet timestamp) or every time lies where the epoch milliseconds of real dates
//! lie (1990 to 2100), else relative, as the built-in scenarios; the classroom stream written
//! out and read back stays relative. Every way a log is read carries it: CSV, JSON Lines and
//! Parquet, in memory and spooled, standard input, and live. A date without an offset, and a
//! Parquet timestamp not adjusted to UTC, is read in the zone named; the notes on times (read
//! in UTC, a unit that looks like seconds) are said once by every reader.

use twoclocks::engine::clock::Clock;
use twoclocks::engine::Stream;
use twoclocks::io::live::{read_live, Feed};
use twoclocks::io::source::{read_source_events_from, read_source_events_with, SourceOptions};
use twoclocks::io::spool::Events;

use crate::logs::{file, ok, parquet, parquet_file, read, Column};

/// 2013-01-01T05:15:00Z and an hour later, in epoch ms.
const DEPARTURE: i64 = 1_357_017_300_000;
const HOUR: i64 = 3_600_000;

fn csv_of(rows: &[(String, String, &str)]) -> String {
    let mut text = String::from("event_time_ms,proc_time_ms,key\n");
    for (et, pt, key) in rows {
        text += &format!("{et},{pt},{key}\n");
    }
    text
}

fn clock_of(name: &str, body: &str) -> Clock {
    ok(name, body, &SourceOptions::default()).clock
}

#[test]
fn a_log_of_dates_or_of_epoch_milliseconds_is_on_a_wall_clock() {
    let dates = "event_time_ms,proc_time_ms,key\n2013-01-01T05:15:00Z,2013-01-01T05:13:00Z,EWR\n\
                 2013-01-01T05:29:00Z,2013-01-01T05:45:00Z,LGA\n";
    assert_eq!(clock_of("dates.csv", dates), Clock::wall_utc());
    let epoch_ms = csv_of(&[
        (
            DEPARTURE.to_string(),
            (DEPARTURE - 120_000).to_string(),
            "EWR",
        ),
        (
            (DEPARTURE + HOUR).to_string(),
            (DEPARTURE + 21 * HOUR).to_string(),
            "JFK",
        ),
    ]);
    assert_eq!(clock_of("epoch.csv", &epoch_ms), Clock::wall_utc());
    let jsonl = format!(
        "{{\"event_time_ms\":{DEPARTURE},\"proc_time_ms\":{},\"key\":\"EWR\"}}\n",
        DEPARTURE + 60_000
    );
    assert_eq!(clock_of("epoch.jsonl", &jsonl), Clock::wall_utc());
    let jsonl_dates = "{\"event_time_ms\":\"2013-01-01T05:15:00Z\",\"proc_time_ms\":\
                       \"2013-01-01T05:16:00Z\",\"key\":\"EWR\"}\n";
    assert_eq!(clock_of("dates.jsonl", jsonl_dates), Clock::wall_utc());
    // Epoch seconds under --time-format s are epoch milliseconds once read.
    let seconds = SourceOptions {
        time_format: Some(twoclocks::io::source::TimeFormat::S),
        ..SourceOptions::default()
    };
    let s = ok(
        "s.csv",
        "event_time_ms,proc_time_ms,key\n1357017300,1357017420,a\n",
        &seconds,
    );
    assert_eq!(s.clock, Clock::wall_utc());
}

#[test]
fn a_date_makes_a_wall_clock_log_even_in_1970() {
    // 1.5 s after the epoch, written as a date: a wall-clock time, which the number 1500 is not.
    let dated = "event_time_ms,proc_time_ms,key\n1970-01-01T00:00:01.5Z,1600,a\n";
    assert_eq!(clock_of("dated.csv", dated), Clock::wall_utc());
    assert_eq!(
        clock_of(
            "numbers.csv",
            "event_time_ms,proc_time_ms,key\n1500,1600,a\n"
        ),
        Clock::Relative
    );
    // A bad row skipped says nothing of the clock: only the rows kept do.
    let skip = SourceOptions {
        on_bad_row: twoclocks::io::source::OnBadRow::Skip,
        ..SourceOptions::default()
    };
    let skipped = ok(
        "skipped.csv",
        "event_time_ms,proc_time_ms,key\n1500,1600,a\n1970-01-01T00:00:02Z,x,b\n",
        &skip,
    );
    assert_eq!(skipped.clock, Clock::Relative);
}

#[test]
fn the_classroom_stream_written_out_and_read_back_is_relative() {
    let stream = Stream::classroom();
    let mut csv = Vec::new();
    twoclocks::io::csv::write_csv(&stream, &mut csv).unwrap();
    let back = clock_of("stream.csv", std::str::from_utf8(&csv).unwrap());
    assert_eq!(back, Clock::Relative);
    let mut jsonl = Vec::new();
    twoclocks::io::csv::write_jsonl(&stream, &mut jsonl).unwrap();
    let back = clock_of("stream.jsonl", std::str::from_utf8(&jsonl).unwrap());
    assert_eq!(back, Clock::Relative);
    // One time outside 1990–2100 keeps a log of numbers relative.
    let mixed = csv_of(&[
        (DEPARTURE.to_string(), DEPARTURE.to_string(), "a"),
        ("5000".into(), DEPARTURE.to_string(), "b"),
    ]);
    assert_eq!(clock_of("mixed.csv", &mixed), Clock::Relative);
}

#[test]
fn a_spooled_log_carries_its_clock_on_disk_and_back() {
    let spool = SourceOptions {
        spool: true,
        ..SourceOptions::default()
    };
    let sorted = csv_of(&[
        (DEPARTURE.to_string(), (DEPARTURE + 60_000).to_string(), "a"),
        (
            (DEPARTURE + HOUR).to_string(),
            (DEPARTURE + HOUR).to_string(),
            "b",
        ),
    ]);
    let path = file("sorted-epoch.csv", sorted.as_bytes());
    let (events, _) = read_source_events_with(&path, &spool, |r| r).unwrap();
    let Events::Spooled(s) = events else {
        panic!("a log in processing-time order is spooled");
    };
    assert_eq!(s.clock(), &Clock::wall_utc());
    let outline = s.outline();
    assert_eq!(
        (outline.clock, outline.keys),
        (Clock::wall_utc(), vec!["a".into(), "b".into()])
    );
    assert!(outline.events.is_empty());
    assert_eq!(s.into_stream().unwrap().clock, Clock::wall_utc());
    // Out of order: sorted in memory from the spool, on the same clock.
    let unsorted = "event_time_ms,proc_time_ms,key\n2013-01-01T06:00:00Z,2013-01-01T06:10:00Z,a\n\
                    2013-01-01T05:00:00Z,2013-01-01T05:01:00Z,b\n";
    let path = file("unsorted-dates.csv", unsorted.as_bytes());
    let (events, _) = read_source_events_with(&path, &spool, |r| r).unwrap();
    let Events::Memory(stream) = events else {
        panic!("a log out of processing-time order is sorted in memory");
    };
    assert_eq!(stream.clock, Clock::wall_utc());
    // The classroom stream spooled stays relative.
    let mut csv = Vec::new();
    twoclocks::io::csv::write_csv(&Stream::classroom(), &mut csv).unwrap();
    let path = file("classroom.csv", &csv);
    let (events, _) = read_source_events_with(&path, &spool, |r| r).unwrap();
    let Events::Spooled(s) = events else {
        panic!("the classroom stream is in processing-time order");
    };
    assert_eq!(s.outline().clock, Clock::Relative);
}

#[test]
fn standard_input_is_read_on_the_clock_its_times_say() {
    // What `--input -` reads through (the name is standard input's, the format sniffed).
    let read = |body: &str| {
        let (events, _) = read_source_events_from(
            body.as_bytes(),
            "standard input",
            None,
            &SourceOptions::default(),
        )
        .unwrap();
        events.into_stream().unwrap().clock
    };
    let dates = "event_time_ms,proc_time_ms,key\n2013-01-01T05:15:00Z,2013-01-01T05:16:00Z,a\n";
    assert_eq!(read(dates), Clock::wall_utc());
    let mut csv = Vec::new();
    twoclocks::io::csv::write_csv(&Stream::classroom(), &mut csv).unwrap();
    assert_eq!(read(std::str::from_utf8(&csv).unwrap()), Clock::Relative);
}

#[test]
fn a_parquet_timestamp_is_a_wall_clock_time_with_or_without_its_utc_annotation() {
    for annotation in [
        "TIMESTAMP(MICROS,false)",
        "TIMESTAMP(MICROS,true)",
        "TIMESTAMP(MILLIS,true)",
        "TIMESTAMP_MILLIS",
    ] {
        let message = format!(
            "message m {{ required int64 event_time_ms ({annotation}); required int64 \
             proc_time_ms ({annotation}); required binary key (UTF8); }}"
        );
        // Times a second after the epoch: only the type says they are dates.
        let bytes = parquet_file(
            &message,
            &[
                Column::Int64(vec![1_000, 2_000]),
                Column::Int64(vec![1_500, 2_500]),
                Column::Text(vec!["a".into(), "b".into()]),
            ],
            parquet::basic::Compression::UNCOMPRESSED,
        );
        let path = file("stamps.parquet", &bytes);
        let (stream, _) = read(&path, &SourceOptions::default()).unwrap();
        assert_eq!(stream.clock, Clock::wall_utc(), "{annotation}");
    }
    // Plain numbers in Parquet follow the numbers' rule.
    let small = parquet(
        &[(1000.0, 1500, "a"), (2000.0, 2600, "b")],
        parquet::basic::Compression::UNCOMPRESSED,
    );
    let (stream, _) = read(&file("small.parquet", &small), &SourceOptions::default()).unwrap();
    assert_eq!(stream.clock, Clock::Relative);
    let d = DEPARTURE as f64;
    let epoch = parquet(
        &[
            (d, DEPARTURE + 60_000, "a"),
            (d + 1.0, DEPARTURE + HOUR, "b"),
        ],
        parquet::basic::Compression::UNCOMPRESSED,
    );
    let (stream, _) = read(&file("epoch.parquet", &epoch), &SourceOptions::default()).unwrap();
    assert_eq!(stream.clock, Clock::wall_utc());
}

/// The clocks of the batches a live input hands on, in order.
fn live_clocks(input: &str) -> Vec<Clock> {
    let mut clocks = Vec::new();
    let mut now = 0.0;
    read_live(
        input.as_bytes(),
        &SourceOptions::default(),
        || {
            now += 1.0;
            now
        },
        |feed| {
            match feed {
                Feed::Rows(batch) => clocks.push(batch.clock),
                Feed::Whole(stream, _) => clocks.push(stream.clock),
                Feed::Ended => {}
                Feed::Failed(why) => panic!("{why}"),
            }
            true
        },
    );
    clocks
}

#[test]
fn a_live_input_hands_on_its_clock_with_every_batch() {
    let dates = "event_time_ms,proc_time_ms,key\n2013-01-01T05:15:00Z,2013-01-01T05:16:00Z,a\n";
    assert_eq!(live_clocks(dates), [Clock::wall_utc()]);
    let epoch = format!("{{\"event_time_ms\":{DEPARTURE},\"key\":\"a\"}}\n");
    assert_eq!(live_clocks(&epoch), [Clock::wall_utc()]);
    let mut csv = Vec::new();
    twoclocks::io::csv::write_csv(&Stream::classroom(), &mut csv).unwrap();
    let clocks = live_clocks(std::str::from_utf8(&csv).unwrap());
    assert!(!clocks.is_empty() && clocks.iter().all(|c| *c == Clock::Relative));
}

fn in_zone(name: &str) -> SourceOptions {
    SourceOptions {
        time_zone: Some(twoclocks::io::times::zone_named(name).unwrap()),
        ..SourceOptions::default()
    }
}

#[test]
fn every_format_reads_a_date_without_an_offset_in_the_zone_named() {
    // 00:15 in New York on New Year's Day 2013 is 05:15 UTC.
    let ny = in_zone("America/New_York");
    let csv = "event_time_ms,proc_time_ms,key\n2013-01-01 00:15:00,2013-01-01T00:17,EWR\n";
    let s = ok("ny.csv", csv, &ny);
    assert_eq!(s.events[0].event_time, DEPARTURE as f64);
    assert_eq!(s.events[0].proc_time, (DEPARTURE + 120_000) as f64);
    assert_eq!(s.clock, Clock::Wall(ny.time_zone.clone().unwrap()));
    let jsonl =
        "{\"event_time_ms\":\"2013-01-01T00:15:00\",\"proc_time_ms\":\"2013-01-01T05:17:00Z\",\
                 \"key\":\"EWR\"}\n";
    let s = ok("ny.jsonl", jsonl, &ny);
    assert_eq!(s.events[0].event_time, DEPARTURE as f64);
    assert_eq!(
        s.events[0].proc_time,
        (DEPARTURE + 120_000) as f64,
        "an offset wins"
    );
    for (annotation, shifted) in [
        ("TIMESTAMP(MICROS,false)", true),
        ("TIMESTAMP(MILLIS,true)", false),
    ] {
        let scale = if annotation.contains("MICROS") {
            1000
        } else {
            1
        };
        let message = format!(
            "message m {{ required int64 event_time_ms ({annotation}); required int64 \
             proc_time_ms ({annotation}); required binary key (UTF8); }}"
        );
        // The civil time 05:15 as stored: read in New York unless adjusted to UTC.
        let bytes = parquet_file(
            &message,
            &[
                Column::Int64(vec![DEPARTURE * scale]),
                Column::Int64(vec![(DEPARTURE + 60_000) * scale]),
                Column::Text(vec!["EWR".into()]),
            ],
            parquet::basic::Compression::UNCOMPRESSED,
        );
        let (s, _) = read(&file("ny.parquet", &bytes), &ny).unwrap();
        let five_hours = if shifted { 5 * HOUR } else { 0 };
        assert_eq!(
            s.events[0].event_time,
            (DEPARTURE + five_hours) as f64,
            "{annotation}"
        );
    }
    // A Parquet timestamp in nanoseconds is read as one.
    let bytes = parquet_file(
        "message m { required int64 event_time_ms (TIMESTAMP(NANOS,true)); required int64 \
         proc_time_ms (TIMESTAMP(NANOS,true)); required binary key (UTF8); }",
        &[
            Column::Int64(vec![DEPARTURE * 1_000_000 + 250_000]),
            Column::Int64(vec![DEPARTURE * 1_000_000]),
            Column::Text(vec!["EWR".into()]),
        ],
        parquet::basic::Compression::UNCOMPRESSED,
    );
    let (s, _) = read(&file("nanos.parquet", &bytes), &SourceOptions::default()).unwrap();
    assert_eq!(s.events[0].event_time, DEPARTURE as f64 + 0.25);
    assert_eq!(s.clock, Clock::wall_utc());
}

#[test]
fn the_notes_on_times_are_said_by_every_reader_once() {
    let utc_note = |name: &str| {
        format!("{name}: times without an offset are read in UTC (--time-zone names another zone)")
    };
    let local = "event_time_ms,proc_time_ms,key\n2013-01-01 05:15:00,2013-01-01 05:17:00,EWR\n\
                 2013-01-01 05:29:00,2013-01-01 05:33:00,LGA\n";
    let (_, report) = crate::logs::text("local.csv", local, &SourceOptions::default()).unwrap();
    assert_eq!(report.notes(), [utc_note("local.csv")]);
    // Spooled, the same.
    let spool = SourceOptions {
        spool: true,
        ..SourceOptions::default()
    };
    let path = file("local.csv", local.as_bytes());
    let (events, report) = read_source_events_with(&path, &spool, |r| r).unwrap();
    assert!(matches!(events, Events::Spooled(_)));
    assert_eq!(report.notes().len(), 1);
    assert!(report.notes()[0].ends_with(&utc_note("local.csv")));
    // A zone named, or every date with its offset: nothing to say.
    let (_, report) = crate::logs::text("local.csv", local, &in_zone("UTC")).unwrap();
    assert!(report.notes().is_empty());
    let offsets = "event_time_ms,proc_time_ms,key\n2013-01-01T05:15:00Z,2013-01-01T05:17:00Z,a\n";
    let (_, report) = crate::logs::text("z.csv", offsets, &SourceOptions::default()).unwrap();
    assert!(report.notes().is_empty());
    // Epoch seconds as JSON Lines.
    let seconds = "{\"event_time_ms\":1357017300,\"proc_time_ms\":1357017420,\"key\":\"EWR\"}\n";
    let (s, report) = crate::logs::text("s.jsonl", seconds, &SourceOptions::default()).unwrap();
    assert_eq!(s.clock, Clock::Relative);
    assert_eq!(
        report.notes(),
        [
            "s.jsonl: the times look like epoch seconds, not milliseconds (1357017300 read as \
          seconds is 2013-01-01 05:15 UTC); --time-format s reads them so"
        ]
    );
}
