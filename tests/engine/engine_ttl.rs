//! The global window and its state TTL. The boundary rule: a key last updated at `L` expires at
//! the first step whose time reaches `L + ttl`, before that step's event is placed; so an event
//! at `L + ttl − 1 ms` still counts on the old state and one at `L + ttl` starts from zero. In
//! processing time `L` is its last event's arrival; in event time, its latest event time, and
//! the step's time is the watermark after the step's event. Also: the global window never
//! drops, `ttl_expired` and `state_entries_max` on a hand-built stream, a checkpoint (a clone)
//! resumes exactly, the command line's errors, and as properties kept + dropped = seen and
//! each key's segments between expirations add up to its truth.

use std::collections::BTreeMap;

use proptest::prelude::*;
use twoclocks::engine::pipeline::{CrashTarget, Pipeline};
use twoclocks::engine::window::{Ttl, TtlTime, WindowId};
use twoclocks::engine::Oracle;
use twoclocks::engine::{
    Accumulation, EngineConfig, Event, Fate, Output, Processor, Timing, WatermarkKind, WindowFn,
};

use crate::cli_common::twoclocks;
use crate::common::{arb_pipeline_of, arb_stream, crash_and_compare};

/// An event of `key` at event time `et` ms, arriving at `pt` ms.
fn ev(et: f64, pt: f64, key: u32) -> Event {
    Event {
        event_time: et,
        proc_time: pt,
        key,
    }
}

/// The global window, its state under a `ttl` ms TTL on `time`, a watermark `lag` ms behind
/// the highest event time seen (`bounded:lag`).
fn global(ttl: Option<(i64, TtlTime)>, lag: f64) -> EngineConfig {
    EngineConfig {
        window: WindowFn::global(ttl.map(|(ms, time)| Ttl { ms, time })).unwrap(),
        watermark: WatermarkKind::Bounded { bound: lag },
        grace: 0.0,
        early: None,
        accumulation: Accumulation::Accumulating,
        conventions: Default::default(),
        empty_panes: Default::default(),
    }
}

/// Feeds `events` in order and finishes; the processor and everything it emitted.
fn feed(cfg: EngineConfig, events: &[Event]) -> (Processor, Output) {
    let mut p = Processor::new(cfg, 0.0);
    let mut out = Output::default();
    for e in events {
        p.step(e, &mut out);
    }
    p.finish(&mut out);
    (p, out)
}

/// The final values emitted for `key`, in order: its segments between expirations.
fn segments(out: &Output, key: u32) -> Vec<u64> {
    out.finals
        .iter()
        .filter(|f| f.cell.key == key)
        .map(|f| f.value)
        .collect()
}

#[test]
fn processing_time_expiry_is_exactly_at_the_ttl() {
    let cfg = global(Some((10, TtlTime::Processing)), 0.0);
    // Last update at 100: an arrival at 109 (= 100 + 10 − 1) keeps the state.
    let (p, out) = feed(cfg, &[ev(0.0, 100.0, 0), ev(1.0, 109.0, 0)]);
    assert_eq!(segments(&out, 0), vec![2]);
    assert_eq!(p.counters().ttl_expired, 0);
    // Last update at 100: an arrival at 110 (= 100 + 10) starts from zero.
    let (p, out) = feed(cfg, &[ev(0.0, 100.0, 0), ev(1.0, 110.0, 0)]);
    assert_eq!(segments(&out, 0), vec![1, 1]);
    assert_eq!(p.counters().ttl_expired, 1);
    // The deadline moves with every update: 100, 109, 118 keep; 128 = 118 + 10 resets.
    let events = [
        ev(0.0, 100.0, 0),
        ev(0.0, 109.0, 0),
        ev(0.0, 118.0, 0),
        ev(0.0, 128.0, 0),
    ];
    let (_, out) = feed(cfg, &events);
    assert_eq!(segments(&out, 0), vec![3, 1]);
    // Another key's arrival at the deadline expires it too, before that arrival is placed.
    let (p, out) = feed(cfg, &[ev(0.0, 100.0, 0), ev(0.0, 110.0, 1)]);
    assert_eq!(segments(&out, 0), vec![1]);
    assert_eq!(out.finals[0].proc_time, 110.0);
    assert_eq!(p.counters().ttl_expired, 1);
}

#[test]
fn event_time_expiry_is_when_the_watermark_reaches_the_ttl() {
    // Arrivals far apart in processing time: only the watermark (bound 0: the latest event
    // time) matters. Key 0 last at event time 100; key 1 raises the watermark.
    let cfg = global(Some((10, TtlTime::Event)), 0.0);
    let (p, out) = feed(
        cfg,
        &[ev(100.0, 0.0, 0), ev(109.0, 1e6, 1), ev(101.0, 2e6, 0)],
    );
    assert_eq!(segments(&out, 0), vec![2], "watermark 109 < 110 keeps it");
    assert_eq!(p.counters().ttl_expired, 0);
    let (p, out) = feed(
        cfg,
        &[ev(100.0, 0.0, 0), ev(110.0, 1.0, 1), ev(101.0, 2.0, 0)],
    );
    assert_eq!(
        segments(&out, 0),
        vec![1, 1],
        "watermark 110 ≥ 110 expires it"
    );
    assert_eq!(p.counters().ttl_expired, 1);
    // An older event does not move the deadline back: the latest event time counts.
    let (_, out) = feed(
        cfg,
        &[ev(100.0, 0.0, 0), ev(50.0, 1.0, 0), ev(109.0, 2.0, 1)],
    );
    assert_eq!(segments(&out, 0), vec![2]);
    // With a lag, the watermark trails: event time 115 under lag 10 is watermark 105.
    let cfg = global(Some((10, TtlTime::Event)), 10.0);
    let (p, _) = feed(cfg, &[ev(100.0, 0.0, 0), ev(115.0, 1.0, 1)]);
    assert_eq!(p.counters().ttl_expired, 0);
}

#[test]
fn the_two_clocks_expire_differently() {
    // Close in event time, far apart in arrival: processing time expires, event time does not.
    let events = [ev(0.0, 0.0, 0), ev(1.0, 5_000.0, 0)];
    let (p, out) = feed(global(Some((1_000, TtlTime::Processing)), 0.0), &events);
    assert_eq!(
        (p.counters().ttl_expired, segments(&out, 0)),
        (1, vec![1, 1])
    );
    let (p, out) = feed(global(Some((1_000, TtlTime::Event)), 0.0), &events);
    assert_eq!((p.counters().ttl_expired, segments(&out, 0)), (0, vec![2]));
}

#[test]
fn counters_on_a_hand_built_stream() {
    // TTL 10 ms in processing time. Keys 0, 1, 2 arrive at 0, 1, 2 (3 entries held); at 11
    // keys 0 and 1 have expired (deadlines 10, 11) before key 3 is placed; at 30 keys 2 and 3
    // have; key 0 comes back.
    let events = [
        ev(0.0, 0.0, 0),
        ev(0.0, 1.0, 1),
        ev(0.0, 2.0, 2),
        ev(0.0, 11.0, 3),
        ev(0.0, 30.0, 0),
    ];
    let (p, out) = feed(global(Some((10, TtlTime::Processing)), 0.0), &events);
    let c = p.counters();
    assert_eq!(c.ttl_expired, 4);
    assert_eq!(c.state_entries_max, 3);
    assert_eq!((c.on_time, c.late, c.dropped), (5, 0, 0));
    assert_eq!(segments(&out, 0), vec![1, 1]);
    assert_eq!(out.finals.len(), 5);
    // Without a TTL nothing expires and every key is held at once.
    let (p, _) = feed(global(None, 0.0), &events);
    assert_eq!(
        (p.counters().ttl_expired, p.counters().state_entries_max),
        (0, 4)
    );
}

#[test]
fn the_global_window_never_drops_and_has_no_on_time_pane() {
    // Events wildly out of order under a zero-lag watermark and no grace: in tumbling windows
    // many would drop; in the global window every one counts on time.
    let events: Vec<Event> = (0..200)
        .map(|i| ev(((i * 7919) % 1000) as f64 * 1e6, i as f64, (i % 3) as u32))
        .collect();
    let mut cfg = global(None, 0.0);
    cfg.early = Some(10.0);
    let (p, out) = feed(cfg, &events);
    let c = p.counters();
    assert_eq!((c.on_time, c.late, c.dropped), (200, 0, 0));
    assert!(out.dropped.is_empty());
    assert_eq!(c.on_time_panes, 0);
    assert!(c.early_panes > 0);
    assert!(out.panes.iter().all(|p| p.timing == Timing::Early));
    for f in &out.finals {
        assert_eq!(f.cell.window, WindowId::GLOBAL);
    }
    assert_eq!(out.finals.iter().map(|f| f.value).sum::<u64>(), 200);
    // Through the one fate rule: its end is beyond any watermark an event can raise.
    assert_eq!(
        Fate::decide(WindowId::GLOBAL.end(), 9.0e15, 0.0),
        Fate::OnTime
    );
    assert_eq!(cfg.window.number(WindowId::GLOBAL), None);
}

#[test]
fn a_checkpoint_resumes_exactly() {
    let events: Vec<Event> = (0..300)
        .map(|i| {
            ev(
                i as f64 * 3.0,
                (i * i % 997) as f64 + i as f64 * 5.0,
                (i % 4) as u32,
            )
        })
        .collect();
    let mut sorted = events.clone();
    sorted.sort_by(|a, b| a.proc_time.total_cmp(&b.proc_time));
    let cfg = global(Some((40, TtlTime::Processing)), 0.0);
    let (whole, whole_out) = feed(cfg, &sorted);
    let mut p = Processor::new(cfg, 0.0);
    let mut out = Output::default();
    for e in &sorted[..150] {
        p.step(e, &mut out);
    }
    let mut restored = p.clone();
    for e in &sorted[150..] {
        restored.step(e, &mut out);
    }
    restored.finish(&mut out);
    assert_eq!(restored.counters(), whole.counters());
    assert_eq!(out.finals, whole_out.finals);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Kept + dropped = seen (nothing dropped), and each key's segments between expirations
    /// add up to its truth; the expirations are the segments beyond each key's last.
    #[test]
    fn segments_add_up_to_the_truth(
        stream in arb_stream(400, 6),
        ttl in 1i64..20_000,
        event_time in any::<bool>(),
        lag in 0.0f64..10_000.0,
    ) {
        let time = if event_time { TtlTime::Event } else { TtlTime::Processing };
        let cfg = global(Some((ttl, time)), lag);
        let mut p = Processor::for_stream(cfg, &stream);
        let mut out = Output::default();
        for e in &stream.events {
            p.step(e, &mut out);
        }
        p.finish(&mut out);
        let c = *p.counters();
        prop_assert_eq!(c.on_time + c.late + c.dropped, stream.len() as u64);
        prop_assert_eq!(c.dropped, 0);
        let mut sums: BTreeMap<u32, u64> = BTreeMap::new();
        for f in &out.finals {
            prop_assert!(f.value > 0);
            *sums.entry(f.cell.key).or_default() += f.value;
        }
        let truth: BTreeMap<u32, u64> = Oracle::true_counts(&stream, &cfg.window)
            .into_iter()
            .map(|(cell, n)| (cell.key, n))
            .collect();
        prop_assert_eq!(&sums, &truth);
        // Every final is an expiry or a key's state at the end of input (if it was live).
        let expired = c.ttl_expired as usize;
        prop_assert!(expired <= out.finals.len());
        prop_assert!(expired >= out.finals.len() - truth.len());
        prop_assert!(c.state_entries_max as usize <= truth.len());
    }

    /// Through the parallel pipeline, an event-time TTL, with early panes or without, keeps
    /// the exactly-once sinks exact under any crash schedule: the expiry deadlines are part of
    /// the checkpoint, and a replay expires the same keys at the same watermarks.
    #[test]
    fn ttl_state_is_exactly_once_under_any_crash_schedule(
        s in arb_stream(400, 5),
        cfg in arb_pipeline_of(
            (1i64..20_000, 0.0f64..10_000.0, prop::option::of(1_000.0f64..20_000.0))
                .prop_map(|(ttl, lag, early)| {
                    EngineConfig { early, ..global(Some((ttl, TtlTime::Event)), lag) }
                }),
            4,
        ),
        crashes in prop::collection::vec((0.0f64..1.1, prop::option::of(0usize..3)), 1..4),
    ) {
        crash_and_compare(&s, cfg, &crashes)?;
    }
}

/// An empty stream is fine too.
#[test]
fn an_empty_stream_holds_nothing() {
    let (p, out) = feed(global(Some((5, TtlTime::Event)), 0.0), &[]);
    assert_eq!(p.counters().state_entries_max, 0);
    assert!(out.finals.is_empty());
}

#[test]
fn the_command_line_refuses_a_ttl_it_cannot_honour() {
    for (args, says) in [
        (&["run", "--ttl", "2s"][..], "--ttl needs --window global"),
        (
            &["run", "--window", "60s", "--ttl", "2s"],
            "--ttl needs --window global",
        ),
        (
            &["run", "--session", "5s", "--ttl", "2s"],
            "--ttl needs --window global",
        ),
        (
            &["run", "--window", "global", "--ttl", "0s"],
            "is not a TTL",
        ),
        (
            &["run", "--window", "global", "--ttl", "inf"],
            "is not a TTL",
        ),
        (
            &["run", "--window", "global", "--ttl", "1.5ms"],
            "is not a TTL",
        ),
        (
            &["run", "--window", "global", "--ttl", "-1s"],
            "cannot be negative",
        ),
        (
            &["run", "--window", "global", "--ttl-time", "event"],
            "--ttl-time needs --ttl",
        ),
        (
            &["run", "--window", "global", "--slide", "1s"],
            "--slide does not apply",
        ),
    ] {
        let o = twoclocks(args);
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn run_shows_the_resets() {
    let base = [
        "run", "--window", "global", "--keys", "abcd", "--events", "400",
    ];
    let o = twoclocks(&[&base[..], &["--ttl", "1s", "--format", "json"]].concat());
    assert!(o.status.success());
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(j["ttl_expired"].as_u64().unwrap() > 0);
    assert!(j["state_entries_max"].as_u64().unwrap() <= 4);
    assert!(j["wrong_windows"].as_u64().unwrap() > 0);
    assert_eq!(j["dropped"], 0);
    let o = twoclocks(&[&base[..], &["--format", "json"]].concat());
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (j["ttl_expired"].as_u64(), j["wrong_windows"].as_u64()),
        (Some(0), Some(0))
    );
    let o = twoclocks(&[&base[..], &["--ttl", "1s", "--ttl-time", "event"]].concat());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("global, 1s event-time TTL"), "{text}");
    assert!(text.contains("ttl expired "), "{text}");
    assert!(text.contains("    global "), "{text}");
}

#[test]
fn state_entries_max_counts_sessions_too() {
    // Key 0's two events merge into one session (one entry), then key 1's opens a second.
    let cfg = EngineConfig {
        window: WindowFn::session(10).unwrap(),
        ..global(None, 0.0)
    };
    let events = [ev(0.0, 0.0, 0), ev(5.0, 5.0, 0), ev(6.0, 6.0, 1)];
    let (p, _) = feed(cfg, &events);
    assert_eq!(p.counters().state_entries_max, 2);
}

/// A processing-time TTL runs on the clock the records reach the operator by. This schedule
/// (a stream with long gaps, two crashes) once replayed key 0's two events close together
/// where the first run had them over the TTL apart, and kept counting where the clean run
/// expired: the checkpoint trigger skipped its ticks across the gaps by what was in flight,
/// which a crash loses, so the replay injected fewer barriers, drew other transit times and
/// reached the operator on another clock. The trigger follows the sources alone now, the
/// replay takes the first run's course, and the crashed run's values are the clean run's
/// under either clock.
#[test]
fn a_replay_reaches_the_operator_on_the_first_runs_clock_and_expires_alike() {
    let s = twoclocks::engine::Stream::from_unordered(
        vec![
            ev(3_921.9, 3_922.1, 1),
            ev(28_594.6, 28_595.5, 1),
            ev(19_664.8, 45_243.9, 0),
            ev(46_866.6, 46_867.8, 0),
        ],
        vec!["a".into(), "b".into()],
    );
    let mut cfg = twoclocks::engine::pipeline::PipelineConfig::new(global(
        Some((902, TtlTime::Processing)),
        0.0,
    ));
    cfg.partitions = 2;
    cfg.checkpoint_every = Some(2_119.0);
    cfg.seed = 5_176_416_315_914_062_497;
    cfg.transit = 1_914.1;
    let key0 = |p: &Pipeline<&twoclocks::engine::Stream>| {
        p.finals().iter().find(|(c, _)| c.key == 0).map(|(_, &v)| v)
    };
    let mut clean = Pipeline::new(&s, cfg).unwrap();
    clean.run_to_end();
    let mut crashed = Pipeline::new(&s, cfg).unwrap();
    let (t0, t1) = (3_922.1, 46_867.8);
    for f in [0.7396685632114219, 0.2594518722823821] {
        crashed
            .schedule_crash(t0 + f * (t1 - t0), CrashTarget::Job)
            .unwrap();
    }
    crashed.run_to_end();
    assert!(key0(&clean).is_some());
    assert_eq!(
        key0(&crashed),
        key0(&clean),
        "the replay reached the operator when the first run did, and expired alike"
    );
    assert_eq!(clean.finals(), crashed.finals());
    // The same schedule under an event-time TTL gives the clean run's values.
    let mut cfg_et = cfg;
    cfg_et.engine = global(Some((902, TtlTime::Event)), 0.0);
    let mut clean = Pipeline::new(&s, cfg_et).unwrap();
    clean.run_to_end();
    let mut crashed = Pipeline::new(&s, cfg_et).unwrap();
    for f in [0.7396685632114219, 0.2594518722823821] {
        crashed
            .schedule_crash(t0 + f * (t1 - t0), CrashTarget::Job)
            .unwrap();
    }
    crashed.run_to_end();
    assert_eq!(clean.finals(), crashed.finals());
}
