//! A live input (`--input -` from a producer) at the level of the UI's state: the stream grown
//! batch by batch gives the same screen and the same counters as the same rows taken in one
//! batch, whatever the batches, while the input is open and after it has ended; the playhead
//! follows the live edge while playing and stays while paused; rows out of processing-time
//! order and a perfect watermark make the run again, to the same answer; side by side, B
//! grows with A.

use std::time::Duration;

use twoclocks::engine::window::WindowFn;
use twoclocks::engine::Stream;
use twoclocks::engine::WatermarkKind;
use twoclocks::engine::{EngineConfig, Event};
use twoclocks::io::live::{Batch, Feed};
use twoclocks::tui::app::{update, Action, App, Msg};
use twoclocks::tui::scenario::Scenario;
use twoclocks::tui::theme::Theme;
use twoclocks::tui::{app_for, Options};

use crate::ui_common::screen;

const WINDOW: WindowFn = WindowFn::Tumbling {
    size: 60_000,
    offset: 0,
};

fn live_app(cfg: EngineConfig, play: bool) -> App {
    let mut a = app_for(Options {
        scenario: Scenario::live("standard input", &WINDOW),
        config: cfg,
        speed: 10.0,
        theme: Theme::dark(),
        play,
    });
    update(&mut a, Msg::Resize(120, 40), Duration::ZERO);
    a.settle();
    a
}

/// The rows a producer sends: the classroom stream's first `n` events, keys numbered in order
/// of first appearance, as the live reader numbers them.
fn rows(n: usize) -> (Vec<Event>, Vec<String>) {
    let s = Stream::classroom();
    let mut names: Vec<String> = Vec::new();
    let mut ids = std::collections::HashMap::new();
    let events = s.events[..n]
        .iter()
        .map(|e| {
            let name = s.key_name(e.key).to_string();
            let key = *ids.entry(name.clone()).or_insert_with(|| {
                names.push(name);
                names.len() as u32 - 1
            });
            Event { key, ..*e }
        })
        .collect();
    (events, names)
}

/// The rows cut into batches at `cuts`, each batch naming the keys it sees first.
fn batches(events: &[Event], names: &[String], cuts: &[usize]) -> Vec<Feed> {
    let mut seen = 0usize;
    let mut bounds = vec![0];
    bounds.extend(cuts.iter().copied().filter(|&c| c > 0 && c < events.len()));
    bounds.push(events.len());
    bounds
        .windows(2)
        .map(|w| {
            let part = events[w[0]..w[1]].to_vec();
            let upto = part
                .iter()
                .map(|e| e.key as usize + 1)
                .max()
                .unwrap_or(0)
                .max(seen);
            let new_keys = names[seen..upto].to_vec();
            seen = upto;
            Feed::Rows(Batch {
                events: part,
                new_keys,
                ..Batch::default()
            })
        })
        .collect()
}

fn send(a: &mut App, feeds: Vec<Feed>) {
    update(a, Msg::Live(feeds), Duration::ZERO);
    a.settle();
}

#[test]
fn batches_give_the_screen_and_counters_of_one_batch() {
    let n = 6_000;
    let (events, names) = rows(n);
    for cfg in [
        EngineConfig::fixed(20_000.0, 30_000.0),
        EngineConfig {
            early: Some(10_000.0),
            ..EngineConfig::fixed(5_000.0, 0.0)
        },
    ] {
        let mut whole = live_app(cfg, true);
        send(&mut whole, batches(&events, &names, &[]));
        for cuts in [
            vec![1, 2, 3, 500, 2_000, 2_001],
            (0..n).step_by(97).collect::<Vec<_>>(),
        ] {
            let mut parts = live_app(cfg, true);
            // One message per batch, as a slow producer's arrive.
            for b in batches(&events, &names, &cuts) {
                send(&mut parts, vec![b]);
            }
            assert_eq!(parts.trace().counters(), whole.trace().counters());
            assert_eq!(parts.playhead(), whole.playhead());
            assert_eq!(parts.scenario().oracle.truth, whole.scenario().oracle.truth);
            assert_eq!(screen(&parts), screen(&whole), "open, cuts {cuts:?}");
            assert!(screen(&parts).contains("● live"));
            // The end of input: both finish the same way.
            send(&mut parts, vec![Feed::Ended]);
            let mut ended = whole.clone();
            send(&mut ended, vec![Feed::Ended]);
            assert!(parts.playhead().finished && !parts.input_open());
            assert_eq!(parts.trace().counters(), ended.trace().counters());
            assert_eq!(screen(&parts), screen(&ended), "ended, cuts {cuts:?}");
            assert!(screen(&parts).contains("input ended"));
            assert!(
                parts.score().is_some(),
                "the whole input's score once it ended"
            );
        }
    }
}

#[test]
fn the_ended_input_answers_as_the_same_stream_read_whole() {
    let n = 4_000;
    let (events, names) = rows(n);
    let cfg = EngineConfig::fixed(20_000.0, 30_000.0);
    let mut live = live_app(cfg, true);
    send(&mut live, batches(&events, &names, &[100, 2_500]));
    send(&mut live, vec![Feed::Ended]);
    let stream = twoclocks::engine::Stream {
        events: events.clone(),
        keys: names.clone(),
        ..Default::default()
    };
    let whole = twoclocks::engine::timeline::Timeline::run_to(cfg, &stream, n, true);
    assert_eq!(live.trace().counters(), *whole.counters());
    assert_eq!(
        live.score(),
        whole.final_score(&twoclocks::engine::Oracle::true_counts(&stream, &WINDOW))
    );
}

#[test]
fn paused_the_playhead_stays_and_space_catches_up() {
    let (events, names) = rows(3_000);
    let mut a = live_app(EngineConfig::fixed(20_000.0, 0.0), false);
    let feeds = batches(&events, &names, &[1_000, 2_000]);
    let mut feeds = feeds.into_iter();
    send(&mut a, vec![feeds.next().unwrap()]);
    assert_eq!(
        a.playhead().arrived,
        0,
        "paused: nothing has arrived by the playhead"
    );
    update(&mut a, Msg::Action(Action::TogglePlay), Duration::ZERO);
    assert_eq!(
        a.playhead().arrived,
        1_000,
        "Space catches up with the live edge"
    );
    assert!(a.at_live_edge() && !a.clock_runs(), "no tick at the edge");
    send(&mut a, vec![feeds.next().unwrap()]);
    assert_eq!(a.playhead().arrived, 2_000, "playing follows the edge");
    update(&mut a, Msg::Action(Action::TogglePlay), Duration::ZERO);
    send(&mut a, vec![feeds.next().unwrap()]);
    assert_eq!(a.playhead().arrived, 2_000, "paused again: it stays");
    assert!(screen(&a).contains("live · paused"));
    update(&mut a, Msg::Action(Action::JumpToEnd), Duration::ZERO);
    assert_eq!(a.playhead().arrived, 3_000, "End catches up too");
    assert!(
        !a.playhead().finished,
        "the live edge is not the end of input"
    );
}

#[test]
fn the_stream_grows_in_place_while_the_run_goes_on() {
    // One stream in memory however many batches come: a batch after the events taken grows
    // the stream the scenario holds rather than a copy of it (two copies at once was 24 bytes
    // an event more at the peak, 2.4 GB at the live input's limit of 10^8 events).
    let (events, names) = rows(6_000);
    let mut a = live_app(EngineConfig::fixed(20_000.0, 0.0), true);
    let feeds = batches(
        &events,
        &names,
        &(0..6_000).step_by(500).collect::<Vec<_>>(),
    );
    let mut feeds = feeds.into_iter();
    send(&mut a, vec![feeds.next().unwrap()]);
    let stream = std::sync::Arc::as_ptr(&a.scenario().stream);
    for f in feeds {
        send(&mut a, vec![f]);
        assert!(
            std::ptr::eq(std::sync::Arc::as_ptr(&a.scenario().stream), stream),
            "the stream was copied at {} events",
            a.scenario().len()
        );
        assert_eq!(
            a.trace().stream().len(),
            a.scenario().len(),
            "the run reads it"
        );
    }
    assert_eq!(a.scenario().stream.events, events);
}

#[test]
fn a_big_inputs_sweep_waits_for_its_rerun_at_the_end() {
    // Off the UI task the re-run and the sweep ran at once, each beside the run drawn: the
    // sweep is asked for once the re-run's answer is taken.
    use twoclocks::tui::app::Work;
    let (events, names) = rows(3_000);
    let mut a = live_app(EngineConfig::fixed(20_000.0, 0.0), true);
    send(&mut a, batches(&events, &names, &[]));
    a.steered.set_inline_events(100);
    update(&mut a, Msg::Live(vec![Feed::Ended]), Duration::ZERO);
    let kinds = |work: &[Work]| -> Vec<&str> {
        work.iter()
            .map(|w| match w {
                Work::Rerun(_) => "re-run",
                Work::Frontier { .. } => "sweep",
                Work::RerunB { .. } => "B's re-run",
            })
            .collect()
    };
    let work = a.take_work();
    assert_eq!(kinds(&work), ["re-run"], "the re-run alone");
    for w in work {
        update(&mut a, Msg::Done(Box::new(w.perform())), Duration::ZERO);
    }
    assert_eq!(kinds(&a.take_work()), ["sweep"], "then the sweep");
}

#[test]
fn rows_out_of_order_and_a_growing_delay_give_the_run_of_the_sorted_stream() {
    let (mut events, names) = rows(3_000);
    // Shuffle a few rows' positions (their processing times stay): the stream sorts them.
    events.swap(100, 1_500);
    events.swap(2_000, 2_900);
    for cfg in [
        EngineConfig::fixed(20_000.0, 0.0),
        EngineConfig {
            watermark: WatermarkKind::Perfect,
            ..EngineConfig::fixed(0.0, 0.0)
        },
    ] {
        let mut a = live_app(cfg, true);
        for b in batches(&events, &names, &[1_000, 1_001, 2_000, 2_500]) {
            send(&mut a, vec![b]);
        }
        send(&mut a, vec![Feed::Ended]);
        let stream = twoclocks::engine::Stream::from_unordered(events.clone(), names.clone());
        let whole = twoclocks::engine::timeline::Timeline::run_to(cfg, &stream, 3_000, true);
        assert_eq!(a.trace().counters(), *whole.counters());
        assert_eq!(a.scenario().stream.events, stream.events);
    }
}

#[test]
fn a_bad_row_stops_the_input_and_the_footer_says_why() {
    let (events, names) = rows(500);
    let mut a = live_app(EngineConfig::fixed(20_000.0, 0.0), true);
    let why = "standard input, line 501: event_time_ms 'x' is not a number of milliseconds";
    let mut feeds = batches(&events, &names, &[]);
    feeds.push(Feed::Failed(why.into()));
    send(&mut a, feeds);
    assert!(!a.input_open());
    assert_eq!(a.trace().counters().events, 500);
    let s = screen(&a);
    assert!(s.contains("input stopped: standard input, line 501"), "{s}");
}

#[test]
fn an_empty_live_input_draws_at_every_size() {
    for (w, h) in [(80, 24), (120, 40), (40, 10)] {
        let mut a = live_app(EngineConfig::fixed(20_000.0, 0.0), true);
        update(&mut a, Msg::Resize(w, h), Duration::ZERO);
        update(&mut a, Msg::Tick, Duration::from_millis(500));
        let _ = screen(&a);
        for action in [
            Action::Step,
            Action::JumpToEnd,
            Action::TogglePlay,
            Action::CycleKey,
        ] {
            update(&mut a, Msg::Action(action), Duration::ZERO);
            let _ = screen(&a);
        }
    }
}

#[test]
fn side_by_side_b_grows_with_a() {
    let (events, names) = rows(2_000);
    let mut a = live_app(EngineConfig::fixed(20_000.0, 0.0), true);
    let mut feeds = batches(&events, &names, &[1_000]).into_iter();
    send(&mut a, vec![feeds.next().unwrap()]);
    update(&mut a, Msg::Action(Action::SideBySide), Duration::ZERO);
    update(&mut a, Msg::Action(Action::LagUp), Duration::ZERO);
    send(&mut a, vec![feeds.next().unwrap()]);
    let b = a.run_b().expect("side by side");
    assert_eq!(b.scenario().len(), 2_000);
    assert_eq!(b.playhead().arrived, a.playhead().arrived);
    assert_eq!(b.trace().counters().events, 2_000);
    send(&mut a, vec![Feed::Ended]);
    let b = a.run_b().expect("side by side");
    assert!(!b.input_open() && b.playhead().finished);
}

#[test]
fn a_live_log_of_wall_clock_times_is_written_as_dates() {
    // Rows whose times are epoch milliseconds of 2013: each batch carries the clock its rows
    // say (the reader's rule), and the screen writes the log's dates, never epoch seconds.
    let (events, names) = rows(600);
    let epoch = 1_357_017_300_000.0; // 2013-01-01 05:15 UTC
    let events: Vec<Event> = events
        .iter()
        .map(|e| Event {
            event_time: e.event_time + epoch,
            proc_time: e.proc_time + epoch,
            ..*e
        })
        .collect();
    let mut a = live_app(EngineConfig::fixed(20_000.0, 0.0), true);
    let feeds = batches(&events, &names, &[200, 400])
        .into_iter()
        .map(|f| match f {
            Feed::Rows(b) => Feed::Rows(Batch {
                clock: twoclocks::engine::Clock::wall_utc(),
                ..b
            }),
            other => other,
        })
        .collect();
    send(&mut a, feeds);
    assert!(a.scenario().stream.clock.is_wall());
    let shown = screen(&a);
    assert!(shown.contains("05:"), "{shown}");
    assert!(!shown.contains("1357017"), "{shown}");
}
