//! What the property tests share: random generator streams.

use proptest::prelude::*;
use twoclocks::engine::stream::{generate, StreamParams};
use twoclocks::engine::Stream;

/// Streams from the generator with random dials: up to `max_events` events, `max_keys` keys.
pub fn arb_stream(max_events: usize, max_keys: usize) -> impl Strategy<Value = Stream> {
    (
        0u64..10_000,
        1usize..max_events,
        1_000.0f64..200_000.0,
        0.0f64..0.5,
        1.0f64..5_000.0,
        0.0f64..60_000.0,
        1usize..max_keys + 1,
    )
        .prop_map(|(seed, events, span, tail, mean_delay, tail_max, nkeys)| {
            generate(&StreamParams {
                seed,
                events,
                span,
                tail,
                mean_delay,
                tail_max,
                keys: "abcdefgh"[..nkeys.min(8)].to_string(),
            })
            .expect("valid parameters")
        })
}
