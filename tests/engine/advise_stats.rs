//! Advice from slack statistics is the advice from the stream: for random streams with whole
//! millisecond times (ties, negative times, events arriving before they happen included),
//! tumbling and sliding windows and grids of whole-millisecond steps, `Advice::from_stats` over
//! the stream's own statistics equals `advise` over the stream for the fixed and bounded
//! watermarks: every candidate's score, the Pareto sets, the choices and the state they cost.

use proptest::prelude::*;
use twoclocks::engine::advice::{advise, Advice, Family, Request};
use twoclocks::engine::frontier::slack::{Clocked, SlackStats, StateCost};
use twoclocks::engine::Event;
use twoclocks::engine::{EngineConfig, Stream, WatermarkKind, WindowFn};

/// Streams with whole-millisecond times: event times from −5 s to 20 s, delays from −0.5 s
/// to 8 s, three keys, in processing order.
fn arb_stream() -> impl Strategy<Value = Stream> {
    prop::collection::vec((-50i64..200, -5i64..80, 0u32..3, 0i64..100), 1..200).prop_map(|v| {
        let events = v
            .into_iter()
            .map(|(et, d, key, ms)| Event {
                event_time: (et * 100 + ms) as f64,
                proc_time: ((et + d) * 100 + ms) as f64,
                key,
            })
            .collect();
        Stream::from_unordered(events, vec!["a".into(), "b".into(), "c".into()])
    })
}

fn arb_window() -> impl Strategy<Value = WindowFn> {
    prop_oneof![
        (1i64..30).prop_map(|s| WindowFn::tumbling(s * 500).unwrap()),
        (2i64..6_000, 1i64..5).prop_map(|(s, k)| WindowFn::sliding(s, (s / k).max(1)).unwrap()),
    ]
}

fn request(kinds: Vec<Family>, step: i64, target: f64) -> Request {
    Request {
        target,
        max_delay: (step * 24) as f64,
        kinds,
        heuristic_n: WatermarkKind::DEFAULT_N,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn advice_from_statistics_is_advice_from_the_stream(
        stream in arb_stream(),
        window in arb_window(),
        step in 1i64..600,
        target in prop_oneof![Just(100.0), 90.0f64..100.0],
    ) {
        let req = request(vec![Family::Fixed, Family::Bounded], step, target);
        let base = EngineConfig { window, ..EngineConfig::fixed(0.0, 0.0) };
        let stats = SlackStats::of(&stream, window, step as f64);
        let from_stream = advise(&stream, base, &req);
        let from_stats = Advice::from_stats(&stats, &req);
        prop_assert_eq!(from_stats, from_stream);
    }

    #[test]
    fn every_setting_costs_the_state_a_run_of_it_does(
        stream in arb_stream(),
        window in arb_window(),
        step in 1i64..600,
        lag in 0i64..=24,
        grace in 0i64..=24,
        bounded in any::<bool>(),
    ) {
        let kind = if bounded { Clocked::Bounded } else { Clocked::Fixed };
        let (lag, grace) = ((lag * step) as f64, (grace * step) as f64);
        let stats = SlackStats::of(&stream, window, step as f64);
        let cfg = EngineConfig {
            window,
            watermark: kind.watermark(lag),
            ..EngineConfig::fixed(0.0, grace)
        };
        prop_assert_eq!(stats.state_cost(kind, lag, grace), StateCost::of(&stream, cfg));
    }
}

#[test]
fn slack_bins_hold_negative_and_large_slacks() {
    assert_eq!(SlackStats::bin(-0.5, 5_000.0), SlackStats::BOTTOM_BIN);
    assert_eq!(SlackStats::bin(-1e9, 5_000.0), SlackStats::BOTTOM_BIN);
    assert_eq!(SlackStats::bin(0.0, 5_000.0), 0);
    assert_eq!(SlackStats::bin(4_999.0, 5_000.0), 0);
    assert_eq!(SlackStats::bin(5_000.0, 5_000.0), 1);
    assert_eq!(SlackStats::bin(1e12, 5_000.0), SlackStats::TOP_BIN);
    assert_eq!(SlackStats::bin(f64::NAN, 5_000.0), SlackStats::BOTTOM_BIN);
    assert_eq!(SlackStats::bin(f64::INFINITY, 5_000.0), SlackStats::TOP_BIN);
}

#[test]
fn the_classroom_stream_gets_the_same_advice_from_its_statistics() {
    let stream = twoclocks::engine::Stream::classroom();
    let req = request(vec![Family::Fixed, Family::Bounded], 5_000, 99.9);
    let base = EngineConfig::fixed(0.0, 0.0);
    let stats = SlackStats::of(&stream, base.window, 5_000.0);
    assert_eq!(stats.placements(Clocked::Fixed), stream.len() as u64);
    assert_eq!(
        Advice::from_stats(&stats, &req),
        advise(&stream, base, &req)
    );
}
