//! The `lesson` scenario's stream, small enough that each event is its own mark on the plot:
//! about 200 events over 5 minutes of event time on 2 keys, meant for 30 s tumbling windows
//! with `fixed:5s`, a 20 s grace and an early trigger every 10 s. Most events arrive within
//! 3 s and are on time; six are held back 12–20 s from just before a window's end, so they
//! arrive after its on-time pane but within grace (late, each a LATE pane); four are held back
//! 40–55 s, past any grace, and are dropped.
//!
//! The ordinary events are spread evenly over the five minutes with a little jitter drawn
//! from Python's `random.Random(seed)` ([`PyRandom`], uniform draws only), never closer than
//! the spacing less the most jitter (1 026 ms) in event time, so that on a plot of one second
//! a column (the UI's `m`) each is a column of its own; the late ones are placed by hand.
//! Times are whole milliseconds: the same seed gives the same stream everywhere.

use crate::stream::{Event, PyRandom, Stream};

/// The seed the scenario is drawn with unless `--seed` says otherwise.
pub(crate) const LESSON_SEED: u64 = 7;

/// Events that arrive in time.
const ORDINARY: u32 = 190;
/// How much of the spacing an ordinary event may move by.
const JITTER: f64 = 0.35;
/// Event-time span, ms.
const SPAN: f64 = 300_000.0;
/// The windows' length the late events are placed against, ms.
const WINDOW: f64 = 30_000.0;

/// Late within grace: (window, ms before its end, delay ms).
const LATE: [(u32, f64, f64); 6] = [
    (0, 2_000.0, 15_000.0),
    (2, 1_000.0, 18_000.0),
    (3, 3_000.0, 13_000.0),
    (5, 1_500.0, 20_000.0),
    (7, 2_500.0, 16_000.0),
    (8, 1_000.0, 12_000.0),
];

/// Dropped, past grace: (window, ms before its end, delay ms).
const VERY_LATE: [(u32, f64, f64); 4] = [
    (1, 8_000.0, 45_000.0),
    (4, 4_000.0, 50_000.0),
    (6, 10_000.0, 40_000.0),
    (9, 6_000.0, 55_000.0),
];

/// The lesson's stream, its jitter drawn with `seed`.
pub(crate) fn lesson(seed: u64) -> Stream {
    let mut rng = PyRandom::new(seed);
    let keys = vec!["a".to_string(), "b".to_string()];
    let step = SPAN / f64::from(ORDINARY);
    let mut events = Vec::new();
    for i in 0..ORDINARY {
        let et = (f64::from(i) * step + rng.uniform(0.0, step * JITTER)).round();
        let delay = rng.uniform(300.0, 3_000.0).round();
        events.push(Event {
            event_time: et,
            proc_time: et + delay,
            key: rng.randbelow(2),
        });
    }
    for (n, &(window, before, delay)) in LATE.iter().chain(VERY_LATE.iter()).enumerate() {
        let et = (f64::from(window) + 1.0) * WINDOW - before;
        events.push(Event {
            event_time: et,
            proc_time: et + delay,
            key: (n % 2) as u32,
        });
    }
    Stream::from_unordered(events, keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plot of one second a column (the UI's `m` on the lesson) shows each ordinary event
    /// in a column of its own.
    #[test]
    fn the_ordinary_events_are_farther_apart_than_a_second() {
        /// The least event time between two ordinary events, ms: the spacing less the most
        /// jitter.
        const MIN_SPACING: f64 = SPAN / ORDINARY as f64 * (1.0 - JITTER);
        const { assert!(MIN_SPACING > 1_000.0) };
    }
}
