//! The `sessions` scenario's stream: a few hundred users (`u001`, `u002`, …), each active in
//! bursts of a few events seconds apart, idle for a minute or two between bursts, and about
//! one time in four returning only after a long silence of five to ten minutes. Most events
//! arrive within a few seconds; a few are held back for up to a minute and a half, so with
//! 30 s sessions, `fixed:10s` and a minute's grace some of them reach a session that has
//! already fired and extend it: a late merge. One user in ten pauses in one burst for a little
//! more than the gap, and an event it sent in the pause arrives after both halves have fired,
//! within the grace: it bridges two fired sessions into one.
//!
//! Drawn from Python's `random.Random(seed)` ([`PyRandom`]) with uniform draws only (no
//! logarithm, whose last bit may differ between platforms), times rounded to whole
//! milliseconds: the same seed gives the same stream everywhere.

use crate::stream::{Event, PyRandom, Stream};

/// The seed the scenario is drawn with unless `--seed` says otherwise.
pub(crate) const SESSIONS_SEED: u64 = 2024;

/// How many users.
const USERS: u32 = 300;
/// Users start within the first 15 minutes of event time, ms.
const START_SPAN: f64 = 900_000.0;
/// No event after 20 minutes of event time, ms.
const END: f64 = 1_200_000.0;

/// The preset's session gap, ms: a user silent this long has ended a session.
const GAP: f64 = 30_000.0;
/// The preset's watermark lag (`fixed:10s`), ms, and a little more: how far the watermark
/// trails the time an event arrives.
const TRAIL: f64 = 11_000.0;
/// The preset's grace, ms.
const GRACE: f64 = 60_000.0;
/// Of the users, the share whose one burst is split by a pause with a late event in it.
const BRIDGE_SHARE: f64 = 0.1;

/// The stream of `USERS` users' bursts, drawn with `seed`.
pub(crate) fn sessions(seed: u64) -> Stream {
    let mut rng = PyRandom::new(seed);
    // Bridges are drawn apart, so that they leave every other draw as it was.
    let mut bridging = PyRandom::new(seed ^ 0xB_81D6E);
    let keys: Vec<String> = (1..=USERS).map(|u| format!("u{u:03}")).collect();
    let mut events = Vec::new();
    for user in 0..USERS {
        let from = events.len();
        let bursts = 1 + rng.randbelow(4);
        let mut t = rng.uniform(0.0, START_SPAN);
        for b in 0..bursts {
            if b > 0 {
                // Idle between bursts: past the 30 s gap, so a new session, or a long silence.
                t += if rng.random() < 0.25 {
                    rng.uniform(300_000.0, 600_000.0)
                } else {
                    rng.uniform(45_000.0, 150_000.0)
                };
            }
            let n = 3 + rng.randbelow(10);
            for i in 0..n {
                if i > 0 {
                    // Seconds apart, skewed short: a product of two uniforms, at most 16 s.
                    t += 500.0 + rng.uniform(0.0, 15_500.0) * rng.random();
                }
                if t >= END {
                    break;
                }
                let delay = if rng.random() < 0.04 {
                    rng.uniform(15_000.0, 90_000.0)
                } else {
                    200.0 + rng.uniform(0.0, 4_800.0) * rng.random()
                };
                let et = t.round();
                events.push(Event {
                    event_time: et,
                    proc_time: et + delay.round(),
                    key: user,
                });
            }
        }
        bridge(&mut events, from, &mut bridging);
    }
    Stream::from_unordered(events, keys)
}

/// For one user in ten: one of its bursts of three events or more paused for a little more
/// than the gap before its last event (the user's later events move with it), which makes that
/// event a session of its own, and an event sent in the pause, held back until the watermark
/// has passed both sessions' ends (both have fired) but neither's end plus the grace (both
/// are still kept, and so is it). When it arrives it bridges the two fired sessions into one:
/// a late merge. `events[from..]` are the user's, in event-time order.
fn bridge(events: &mut Vec<Event>, from: usize, rng: &mut PyRandom) {
    let (pick, which, pause) = (
        rng.random(),
        rng.random(),
        rng.uniform(GAP + 2_000.0, GAP + 6_000.0).round(),
    );
    if pick >= BRIDGE_SHARE {
        return;
    }
    let mine = &events[from..];
    // The last event of each burst of three or more (a burst: events less than a gap apart).
    let lasts: Vec<usize> = (2..mine.len())
        .filter(|&i| {
            mine.get(i + 1)
                .is_none_or(|n| n.event_time - mine[i].event_time >= GAP)
        })
        .filter(|&i| {
            mine[i].event_time - mine[i - 1].event_time < GAP
                && mine[i - 1].event_time - mine[i - 2].event_time < GAP
        })
        .collect();
    let Some(&last) = lasts.get((which * lasts.len() as f64) as usize) else {
        return;
    };
    let before = mine[last - 1].event_time;
    let shift = before + pause - mine[last].event_time;
    // The watermark halfway between the later session's end and the earlier one's end plus
    // the grace (the later one is the last event alone, `pause` after `before`).
    let watermark = before + (pause + GAP + GAP + GRACE) / 2.0;
    let arrive = (watermark + TRAIL).round();
    // Everything else of the two sessions has arrived by then.
    let (i, j) = (from + last, events.len());
    let burst = (from..=i)
        .rev()
        .take_while(|&k| k == i || events[k + 1].event_time - events[k].event_time < GAP);
    let latest = burst
        .map(|k| events[k].proc_time + if k == i { shift } else { 0.0 })
        .fold(0.0, f64::max);
    if latest > arrive - 5_000.0 {
        return;
    }
    for e in &mut events[i..j] {
        e.event_time += shift;
        e.proc_time += shift;
    }
    events.retain(|e| e.event_time < END);
    events.push(Event {
        event_time: (before + pause / 2.0).round(),
        proc_time: arrive,
        key: events[from].key,
    });
}
