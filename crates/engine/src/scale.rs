//! A stream's scale: how far its delays reach and how long it lasts, in nice units. What the
//! delay dials span and step by, how far `advise` and `frontier` sweep by default, and how fast
//! playback runs, all come from here, so that a log whose delays are hours is explored in
//! hours and the classroom stream in the seconds it has always had.

use crate::frontier::Replay;

/// Durations a person counts in, ms: the steps a dial or a sweep may take.
pub(crate) const NICE: [f64; 25] = [
    1.0,
    10.0,
    100.0,
    1_000.0,
    2_000.0,
    5_000.0,
    10_000.0,
    15_000.0,
    30_000.0,
    60_000.0,
    2.0 * 60_000.0,
    5.0 * 60_000.0,
    10.0 * 60_000.0,
    15.0 * 60_000.0,
    30.0 * 60_000.0,
    3_600_000.0,
    2.0 * 3_600_000.0,
    3.0 * 3_600_000.0,
    6.0 * 3_600_000.0,
    12.0 * 3_600_000.0,
    86_400_000.0,
    2.0 * 86_400_000.0,
    7.0 * 86_400_000.0,
    30.0 * 86_400_000.0,
    365.0 * 86_400_000.0,
];

/// How many steps a delay dial takes from zero to its reach, at most.
pub(crate) const DIAL_STEPS: f64 = 24.0;

/// How long the default playback of a wall-clock log lasts, ms of real time.
pub(crate) const PLAYBACK: f64 = 180_000.0;

/// The speeds the speed dial offers, as multiples of a scale's default (1×, 2×, 5× a power of
/// ten around it).
pub(crate) const SPEED_FACTORS: [f64; 9] = [0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0];

/// A stream's scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    /// The delay almost every event is within: the 99.9th percentile of the delays (0 when
    /// every event arrives before it happens), ms.
    pub delay_reach: f64,
    /// A delay dial's step: the smallest nice duration that covers `delay_reach` in at most
    /// `DIAL_STEPS` (24) steps, ms.
    pub step: f64,
    /// Where a delay dial and a default sweep end: `delay_reach` rounded up to a whole step, ms.
    pub reach: f64,
    /// The first arrival, ms (processing time).
    pub start: f64,
    /// From the first arrival to the last, ms.
    pub span: f64,
    /// The default playback speed: simulated ms per real ms, a nice number that plays the
    /// whole stream in about `PLAYBACK` (180 s).
    pub speed: f64,
}

impl Scale {
    /// The scale of `stream`'s delays and extent. An empty stream has the scale of one second.
    pub fn of(events: &dyn Replay) -> Scale {
        let n = events.len();
        let delay_reach = match events.in_memory() {
            _ if n == 0 => 0.0,
            Some(stream) => {
                let mut delays: Vec<f64> = stream.events.iter().map(|e| e.delay()).collect();
                let i = ((0.999 * n as f64) as usize).min(n - 1);
                let (_, nth, _) = delays.select_nth_unstable_by(i, f64::total_cmp);
                nth.max(0.0)
            }
            None => delay_reach(events),
        };
        let step = Scale::nice_at_least(delay_reach / DIAL_STEPS);
        let reach = ((delay_reach / step).ceil() * step).max(step);
        let (mut start, mut end) = (f64::INFINITY, f64::NEG_INFINITY);
        events.replay(&mut |part| {
            for e in part {
                start = start.min(e.proc_time);
                end = end.max(e.proc_time);
            }
            true
        });
        let (start, span) = if n == 0 {
            (0.0, 0.0)
        } else {
            (start, end - start)
        };
        let speed = nice_speed(span / PLAYBACK);
        Scale {
            delay_reach,
            step,
            reach,
            start,
            span,
            speed,
        }
    }

    /// The speeds the speed dial offers around this scale's default, slowest first.
    pub fn speeds(&self) -> [f64; SPEED_FACTORS.len()] {
        SPEED_FACTORS.map(|f| nice_speed(self.speed * f))
    }

    /// The smallest nice duration at least `ms` (the largest one for anything past it).
    pub fn nice_at_least(ms: f64) -> f64 {
        NICE.iter()
            .copied()
            .find(|&d| d >= ms)
            .unwrap_or(NICE[NICE.len() - 1])
    }
}

/// A speed rounded to 1, 2 or 5 times a power of ten, at least 1.
pub(crate) fn nice_speed(speed: f64) -> f64 {
    if !speed.is_finite() || speed <= 1.0 {
        return 1.0;
    }
    let power = 10f64.powi(speed.log10().floor() as i32);
    let lead = speed / power;
    let nice = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .min_by(|a, b| (a - lead).abs().total_cmp(&(b - lead).abs()))
        .unwrap_or(1.0);
    nice * power
}

/// The 99.9th percentile of a stream's delays, as [`Scale::of`] finds
/// it (its `delay_reach`), without holding the delays: the delay at that rank in `total_cmp`
/// order is found a 16-bit digit of its order at a time, each pass counting the delays that
/// share the digits found so far by their next digit, until few enough share them to be held
/// and the rank taken among them.
pub(crate) fn delay_reach(events: &dyn Replay) -> f64 {
    delay_reach_holding(events, 1 << 16)
}

/// [`delay_reach`], holding at most `most` delays.
pub(crate) fn delay_reach_holding(events: &dyn Replay, most: usize) -> f64 {
    let n = events.len();
    if n == 0 {
        return 0.0;
    }
    // A delay's place in `total_cmp` order, as an unsigned number.
    let order = |d: f64| {
        let b = d.to_bits();
        if b >> 63 == 1 {
            !b
        } else {
            b | 1 << 63
        }
    };
    let mut rank = ((0.999 * n as f64) as usize).min(n - 1);
    // The digits found, and how many bits they make; how many delays share them.
    let (mut prefix, mut bits, mut sharing) = (0u64, 0u32, n);
    let shares = |o: u64, prefix: u64, bits: u32| bits == 0 || o >> (64 - bits) == prefix;
    while bits < 64 && sharing > most {
        let mut counts = vec![0usize; 1 << 16];
        events.replay(&mut |part| {
            for e in part {
                let o = order(e.delay());
                if shares(o, prefix, bits) {
                    counts[((o << bits) >> 48) as usize] += 1;
                }
            }
            true
        });
        let mut digit = 0;
        while rank >= counts[digit] {
            rank -= counts[digit];
            digit += 1;
        }
        prefix = prefix << 16 | digit as u64;
        bits += 16;
        sharing = counts[digit];
    }
    if bits == 64 {
        // Every delay sharing all 64 bits is the one sought.
        let b = if prefix >> 63 == 1 {
            prefix & !(1 << 63)
        } else {
            !prefix
        };
        return f64::from_bits(b).max(0.0);
    }
    let mut held = Vec::with_capacity(sharing);
    events.replay(&mut |part| {
        held.extend(
            part.iter()
                .map(|e| e.delay())
                .filter(|&d| shares(order(d), prefix, bits)),
        );
        true
    });
    let (_, nth, _) = held.select_nth_unstable_by(rank, f64::total_cmp);
    nth.max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream::{Event, Stream};

    fn stream(delays_min: &[f64]) -> Stream {
        let events = delays_min
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let event_time = i as f64 * 60_000.0;
                Event {
                    event_time,
                    proc_time: event_time + d * 60_000.0,
                    key: 0,
                }
            })
            .collect();
        Stream::from_unordered(events, vec!["k".into()])
    }

    #[test]
    fn delays_of_hours_are_stepped_in_a_nice_unit() {
        // 1000 events delayed 0..=999 minutes: the 99.9th percentile is 999 min (16h 39m).
        let delays: Vec<f64> = (0..1000).map(f64::from).collect();
        let scale = Scale::of(&stream(&delays));
        assert_eq!(scale.delay_reach, 999.0 * 60_000.0);
        assert_eq!(scale.step, 3_600_000.0); // 999 min / 24 ≈ 42 min → 1 h
        assert_eq!(scale.reach, 17.0 * 3_600_000.0);
    }

    #[test]
    fn early_events_alone_give_the_smallest_reach() {
        let scale = Scale::of(&stream(&[-5.0, -3.0, -1.0]));
        assert_eq!(scale.delay_reach, 0.0);
        assert_eq!(scale.reach, scale.step);
    }

    #[test]
    fn speeds_are_one_two_five() {
        assert_eq!(nice_speed(1440.0), 1000.0);
        assert_eq!(nice_speed(1600.0), 2000.0);
        assert_eq!(nice_speed(0.3), 1.0);
        // Three days play in about three minutes at the default.
        let scale = Scale {
            span: 3.0 * 86_400_000.0,
            ..Scale::of(&stream(&[1.0]))
        };
        assert_eq!(nice_speed(scale.span / PLAYBACK), 1000.0);
    }
}
