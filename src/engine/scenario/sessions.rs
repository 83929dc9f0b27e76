//! The `sessions` scenario's stream: a few hundred users (`u001`, `u002`, …), each active in
//! bursts of a few events seconds apart, idle for a minute or two between bursts, and about
//! one time in four returning only after a long silence of five to ten minutes. Most events
//! arrive within a few seconds; a few are held back for up to a minute and a half, so with
//! 30 s sessions, `fixed:10s` and a minute's grace some of them reach a session that has
//! already fired and extend it or bridge it with the next: a late merge.
//!
//! Drawn from Python's `random.Random(seed)` ([`PyRandom`]) with uniform draws only (no
//! logarithm, whose last bit may differ between platforms), times rounded to whole
//! milliseconds: the same seed gives the same stream everywhere.

use crate::engine::stream::{Event, PyRandom, Stream};

/// The seed the scenario is drawn with unless `--seed` says otherwise.
pub const SESSIONS_SEED: u64 = 2024;

/// How many users.
const USERS: u32 = 300;
/// Users start within the first 15 minutes of event time, ms.
const START_SPAN: f64 = 900_000.0;
/// No event after 20 minutes of event time, ms.
const END: f64 = 1_200_000.0;

/// The stream of `USERS` users' bursts, drawn with `seed`.
pub fn sessions(seed: u64) -> Stream {
    let mut rng = PyRandom::new(seed);
    let keys: Vec<String> = (1..=USERS).map(|u| format!("u{u:03}")).collect();
    let mut events = Vec::new();
    for user in 0..USERS {
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
    }
    Stream::from_unordered(events, keys)
}
