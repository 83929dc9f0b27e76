//! A log of wall-clock times in the UI: the New York departures of 1–3 January 2013
//! (`assets/samples/nyc-departures.csv`, scheduled departure as event time, actual departure
//! as processing time, origin as key) read as epoch milliseconds on a UTC wall clock. The
//! screens read dates, times of day and durations in hours and minutes, never epoch numbers;
//! playback starts at the first departure; the delay dials step in the log's units (30
//! minutes, up to 6h 30m).

use std::sync::OnceLock;

use twoclocks::engine::clock::Clock;
use twoclocks::engine::scale::Scale;
use twoclocks::engine::{EngineConfig, WatermarkKind, WindowFn};
use twoclocks::engine::{Event, Stream};
use twoclocks::tui::app::{Action, App, Dial};
use twoclocks::tui::dials::Ranges;
use twoclocks::tui::scenario::Scenario;
use twoclocks::tui::theme::Theme;
use twoclocks::tui::{app_for, Options};

use crate::kept_snapshots::assert_snapshot;
use crate::ui_common::{act, act_settled, drawn_text, play, terminal};

/// Days from 1970-01-01 to the civil date `y-m-d` (proleptic Gregorian).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `2013-01-01T05:15:00` as epoch milliseconds, read as UTC.
fn epoch_ms(text: &str) -> f64 {
    let n = |r: std::ops::Range<usize>| text[r].parse::<i64>().unwrap();
    let days = days_from_civil(n(0..4), n(5..7), n(8..10));
    let secs = days * 86_400 + n(11..13) * 3_600 + n(14..16) * 60 + n(17..19);
    (secs * 1000) as f64
}

/// The sample's departures as a wall-clock stream in UTC.
pub fn departures() -> Stream {
    let text = include_str!("../../assets/samples/nyc-departures.csv");
    let mut keys: Vec<String> = Vec::new();
    let events = text
        .lines()
        .skip(1)
        .map(|line| {
            let mut cols = line.split(',');
            let (scheduled, departed, origin) = (
                cols.next().unwrap(),
                cols.next().unwrap(),
                cols.next().unwrap(),
            );
            let key = keys.iter().position(|k| k == origin).unwrap_or_else(|| {
                keys.push(origin.to_string());
                keys.len() - 1
            });
            Event {
                event_time: epoch_ms(scheduled),
                proc_time: epoch_ms(departed),
                key: key as u32,
            }
        })
        .collect();
    let mut stream = Stream::from_unordered(events, keys);
    stream.clock = Clock::wall_utc();
    stream
}

/// The departures in the UI with one-hour tumbling windows, as the command line opens a log
/// (fixed watermark, 20 s lag, no grace; speed as the command line leaves it), settled.
pub fn departures_app() -> App {
    static BASE: OnceLock<App> = OnceLock::new();
    BASE.get_or_init(|| {
        let window = WindowFn::Tumbling {
            size: 3_600_000,
            offset: 0,
        };
        let mut config = EngineConfig::fixed(20_000.0, 0.0);
        config.window = window;
        let mut a = app_for(Options {
            scenario: Scenario::new("nyc-departures.csv", departures(), &window),
            config,
            speed: 10.0,
            theme: Theme::mono(),
            play: false,
        });
        a.settle();
        a
    })
    .clone()
}

const MINUTE: f64 = 60_000.0;
const HOUR: f64 = 60.0 * MINUTE;

/// The departures played for `hours` of processing time from the first departure.
fn played(hours: f64) -> App {
    let mut a = departures_app();
    let speed = a.dials().speed;
    play(&mut a, hours * HOUR / speed);
    a
}

/// The first early departure arrived by the playhead (it left before its scheduled time).
fn early_arrived(a: &App) -> usize {
    let events = &a.scenario().stream.events;
    (0..a.playhead().arrived)
        .rev()
        .find(|&i| events[i].proc_time < events[i].event_time - 10.0 * MINUTE)
        .expect("an early departure has arrived")
}

/// Runs of ten or more digits on a screen: epoch seconds or milliseconds, never a count here.
fn epoch_numbers(screen: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut run = String::new();
    for c in screen.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_digit() {
            run.push(c);
        } else {
            if run.len() >= 10 {
                found.push(run.clone());
            }
            run.clear();
        }
    }
    found
}

#[test]
fn the_departures_open_at_the_first_departure_with_the_plot_around_them() {
    let mut a = departures_app();
    let stream = a.scenario().stream.clone();
    let first = stream.events[0].proc_time;
    assert_eq!(
        a.playhead().now,
        first,
        "the playhead starts at the first arrival"
    );
    // Nothing has arrived yet; one step brings the first departure in at that time.
    assert_eq!(a.playhead().arrived, 0);
    let mut stepped = a.clone();
    act(&mut stepped, Action::Step);
    assert_eq!(
        (stepped.playhead().arrived, stepped.playhead().now),
        (1, first)
    );
    terminal(&mut a, 120, 40);
    let area = a.areas((120, 40)).unwrap().plot;
    let f = a.plot_frame(area).unwrap();
    let (lo, hi) = stream
        .events
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), e| {
            (lo.min(e.event_time), hi.max(e.event_time))
        });
    // Both axes span the log, give or take the hours around it: not 1970 onwards.
    assert!(f.x.0 <= lo && lo - f.x.0 <= 6.0 * HOUR, "{:?} {lo}", f.x);
    assert!(f.x.1 >= hi && f.x.1 - hi <= 6.0 * HOUR, "{:?} {hi}", f.x);
    assert_eq!(f.y.0, first);
    assert_eq!(f.y.1, stream.events.last().unwrap().proc_time);
    // Home goes back to the first departure, not to 1970.
    play(&mut a, 10.0);
    act(&mut a, Action::Restart);
    assert_eq!(a.playhead().now, first);
}

#[test]
fn the_delay_dials_step_by_half_hours_up_to_six_and_a_half_hours_and_play_it_in_minutes() {
    let mut a = departures_app();
    let r = a.dials().ranges;
    // The sample's delays: the 99.9th percentile (the 2 675th of 2 677) is 6h 19m, covered in
    // 24 steps of 30 minutes at most: 0 to 6h 30m.
    let scale = Scale::of(&*a.scenario().stream);
    assert_eq!(scale.delay_reach, 379.0 * MINUTE);
    assert_eq!(r.lag, (6.5 * HOUR, 30.0 * MINUTE));
    assert_eq!(r.grace, (6.5 * HOUR, 30.0 * MINUTE));
    assert_eq!(r.early, (6.5 * HOUR, 30.0 * MINUTE));
    // Three days in about three minutes: 1000× (the command line's 10× is not a log's speed).
    assert_eq!(a.dials().speed, 1_000.0);
    assert_eq!(r.speeds, scale.speeds());
    assert_eq!(r.speeds[0], 100.0);
    // The lag, preset at 20 s, moves to the next half hour, then by half hours.
    a.selection.focus = Dial::Lag;
    act_settled(&mut a, Action::DialUp);
    assert_eq!(a.dials().lag, 30.0 * MINUTE);
    act_settled(&mut a, Action::DialUp);
    assert_eq!(a.dials().lag, HOUR);
    act_settled(&mut a, Action::DialDown);
    act_settled(&mut a, Action::DialDown);
    assert_eq!(a.dials().lag, 0.0);
    for _ in 0..30 {
        act(&mut a, Action::DialUp);
    }
    a.settle();
    assert_eq!(a.dials().lag, 6.5 * HOUR, "the lag stops at the reach");
    a.selection.focus = Dial::Grace;
    act_settled(&mut a, Action::DialUp);
    assert_eq!(a.dials().grace, 30.0 * MINUTE);
    a.selection.focus = Dial::Speed;
    act(&mut a, Action::DialUp);
    assert_eq!(a.dials().speed, 2_000.0);
    let dials = drawn_text(&mut a, (120, 40));
    assert!(dials.contains("6h 30m "), "{dials}");
    assert!(dials.contains("30m "), "{dials}");
    assert!(dials.contains("2000×"), "{dials}");
    // The help names the log's steps.
    act(&mut a, Action::Help);
    let help = drawn_text(&mut a, (120, 40));
    assert!(help.contains("watermark lag − / + 30m"), "{help}");
    assert!(!help.contains("+ 1 s"), "{help}");
}

#[test]
fn the_classroom_dials_keep_their_seconds() {
    let a = crate::ui_common::app();
    assert_eq!(a.dials().ranges, Ranges::CLASSROOM);
    assert_eq!(a.dials().ranges.lag, (120_000.0, 1_000.0));
    assert_eq!(a.dials().speed, 10.0);
    assert_eq!(a.playhead().now, 0.0);
}

#[test]
fn no_screen_of_the_departures_writes_an_epoch_number() {
    let mut screens: Vec<(String, App)> = vec![
        ("start".into(), departures_app()),
        ("played".into(), played(20.0)),
    ];
    let mut a = played(30.0);
    act(&mut a, Action::WindowNext);
    let i = early_arrived(&a);
    act(&mut a, Action::InspectEvent(i));
    screens.push(("inspected".into(), a.clone()));
    act(&mut a, Action::Help);
    screens.push(("help".into(), a.clone()));
    let mut a = played(30.0);
    act(&mut a, Action::BigNumbers);
    screens.push(("big numbers".into(), a.clone()));
    let mut a = played(30.0);
    act(&mut a, Action::Magnify);
    screens.push(("magnified".into(), a.clone()));
    let mut a = played(30.0);
    act(&mut a, Action::SideBySide);
    a.settle();
    screens.push(("side by side".into(), a.clone()));
    let mut a = played(30.0);
    act_settled(&mut a, Action::ToggleJob);
    screens.push(("job".into(), a.clone()));
    let mut a = played(30.0);
    act_settled(&mut a, Action::JumpToEnd);
    screens.push(("end".into(), a));
    for (name, mut a) in screens {
        for size in [(80, 24), (120, 40)] {
            let screen = drawn_text(&mut a, size);
            let found = epoch_numbers(&screen);
            assert!(found.is_empty(), "{name} at {size:?}: {found:?}\n{screen}");
        }
    }
}

#[test]
fn an_early_departure_is_said_to_have_left_before_it_was_due() {
    let mut a = played(30.0);
    let i = early_arrived(&a);
    let e = a.scenario().stream.events[i];
    act(&mut a, Action::InspectEvent(i));
    let screen = drawn_text(&mut a, (120, 40));
    let early = twoclocks::engine::duration::Duration::human(e.event_time - e.proc_time);
    assert!(screen.contains(&format!("{early} early")), "{screen}");
    let said = screen
        .replace('│', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        said.contains(&format!(
            "It arrived {early} before it happened: an early event, or clock skew"
        )),
        "{said}"
    );
}

#[test]
fn a_watermark_ahead_of_the_clock_says_the_events_arrive_early() {
    let mut a = played(30.0);
    // The bounded watermark with no bound is the highest departure time scheduled so far:
    // ahead of the clock whenever a flight left early.
    let mut dials = a.dials();
    dials.family = twoclocks::tui::app::Family::Bounded;
    dials.kinds[twoclocks::tui::app::Family::Bounded.index()] =
        WatermarkKind::Bounded { bound: 0.0 };
    dials.lag = 0.0;
    a.set_dials(dials);
    a.settle();
    assert!(a.trace().watermark() > a.playhead().now);
    let screen = drawn_text(&mut a, (120, 40));
    assert!(screen.contains("events arrive early"), "{screen}");
    let screen = drawn_text(&mut a, (80, 24));
    assert!(screen.contains("ahead"), "{screen}");
}

#[test]
fn snapshot_departures_at_the_first_departure() {
    let mut a = departures_app();
    assert_snapshot!(
        "departures_120x40_start",
        terminal(&mut a, 120, 40).backend()
    );
    assert_snapshot!("departures_80x24_start", terminal(&mut a, 80, 24).backend());
}

#[test]
fn snapshot_departures_played_a_day() {
    let mut a = played(24.0);
    assert_snapshot!(
        "departures_120x40_a_day",
        terminal(&mut a, 120, 40).backend()
    );
    assert_snapshot!("departures_80x24_a_day", terminal(&mut a, 80, 24).backend());
}

#[test]
fn snapshot_departures_window_selected_and_an_early_one_inspected() {
    let mut a = played(30.0);
    act(&mut a, Action::WindowNext);
    act(&mut a, Action::WindowNext);
    let i = early_arrived(&a);
    act(&mut a, Action::InspectEvent(i));
    assert_snapshot!(
        "departures_120x40_inspected_early",
        terminal(&mut a, 120, 40).backend()
    );
    assert_snapshot!(
        "departures_80x24_inspected_early",
        terminal(&mut a, 80, 24).backend()
    );
}

#[test]
fn the_command_line_opens_the_departures_at_their_own_scale() {
    // The sample as epoch milliseconds (JSON Lines), which the reader takes for a wall clock.
    let path = std::env::temp_dir().join(format!("departures-{}.jsonl", std::process::id()));
    let stream = departures();
    let lines: String = stream
        .events
        .iter()
        .map(|e| {
            format!(
                "{{\"event_time_ms\":{},\"proc_time_ms\":{},\"key\":\"{}\"}}\n",
                e.event_time,
                e.proc_time,
                stream.key_name(e.key)
            )
        })
        .collect();
    std::fs::write(&path, lines).unwrap();
    let opened = crate::ui_common::ui_of(&["--input", path.to_str().unwrap(), "--window", "1h"]);
    std::fs::remove_file(&path).unwrap();
    let mut a = opened.unwrap().0;
    assert!(a.clock().is_wall());
    let first = a.scenario().stream.events[0].proc_time;
    assert_eq!(a.playhead().now, first);
    assert_eq!(a.dials().speed, 1_000.0);
    assert_eq!(a.dials().ranges.lag, (6.5 * HOUR, 30.0 * MINUTE));
    let speed = a.dials().speed;
    a.playing = false;
    play(&mut a, 30.0 * HOUR / speed);
    for size in [(80, 24), (120, 40)] {
        let screen = drawn_text(&mut a, size);
        assert!(epoch_numbers(&screen).is_empty(), "{screen}");
        assert!(screen.contains("01-01 08:00–09:00"), "{screen}");
    }
}

#[test]
fn a_year_of_departures_is_framed_on_its_own_days_and_ticked_by_months() {
    // A departure every six hours through 2013, each five minutes late.
    let jan = 1_356_998_400_000.0; // 2013-01-01T00:00:00Z
    let events = (0..365 * 4)
        .map(|i| {
            let event_time = jan + f64::from(i) * 6.0 * HOUR + 5.0 * HOUR;
            Event {
                event_time,
                proc_time: event_time + 5.0 * MINUTE,
                key: 0,
            }
        })
        .collect();
    let mut stream = Stream::from_unordered(events, vec!["JFK".into()]);
    stream.clock = Clock::wall_utc();
    let window = WindowFn::Tumbling {
        size: 86_400_000,
        offset: 0,
    };
    let mut config = EngineConfig::fixed(20_000.0, 0.0);
    config.window = window;
    let mut a = app_for(Options {
        scenario: Scenario::new("year.jsonl", stream, &window),
        config,
        speed: 10.0,
        theme: Theme::mono(),
        play: false,
    });
    a.settle();
    terminal(&mut a, 120, 40);
    let f = a.plot_frame(a.areas((120, 40)).unwrap().plot).unwrap();
    // The first and last midnights of the year's events, not whole years since 1970.
    assert_eq!(f.x.0, jan);
    assert_eq!(f.x.1, jan + 365.0 * 24.0 * HOUR);
    let speed = a.dials().speed;
    play(&mut a, 200.0 * 24.0 * HOUR / speed);
    let screen = drawn_text(&mut a, (120, 40));
    for month in ["Mar", "May", "Jul", "Sep", "Nov"] {
        assert!(screen.contains(month), "{month}\n{screen}");
    }
    assert!(epoch_numbers(&screen).is_empty(), "{screen}");
}
