//! Block 1, the two clocks: events carry an event time (when it happened) and a processing
//! time (when the engine saw it). This module holds the `Event` type, a key table, the
//! classroom stream generator (bit-for-bit the reference's `random.Random(seed)` stream) and
//! the delay statistics shown in the report.

use rand_mt::Mt;

use crate::clock::Clock;

/// Index of a key in a [`Stream`]'s key table.
pub type KeyId = u32;

/// One record: when it happened (event time), when it arrived (processing time), its key.
/// Times are milliseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Event {
    /// When it happened: event time, ms.
    pub event_time: f64,
    /// When the engine saw it: processing time, ms. `proc_time − event_time` is its delay, what a
    /// watermark must allow for; generated events never arrive before they happen, a user's log
    /// may.
    pub proc_time: f64,
    /// Which key it belongs to: an index into its stream's key table ([`Stream::keys`]).
    pub key: KeyId,
}

impl Event {
    /// How long the event took to arrive: processing time − event time.
    pub fn delay(&self) -> f64 {
        self.proc_time - self.event_time
    }
}

/// Events in processing-time order, with the names of their keys.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stream {
    /// The events, in processing-time order (equal times keep their input order).
    pub events: Vec<Event>,
    /// The key names, indexed by [`KeyId`].
    pub keys: Vec<String>,
    /// What the times count, and so how a person reads them: seconds from the start, or
    /// wall-clock dates in a zone.
    pub clock: Clock,
}

impl Stream {
    /// A stream made by the reference's generator from `params`: for each event, `et =
    /// uniform(0, span)`; then `random() > tail` picks an exponential delay of mean
    /// `mean_delay`, otherwise a tail delay `uniform(0, tail_max)`; then `choice(keys)`.
    /// Sorted stably by processing time = et + delay. An error names the parameter out of its
    /// range.
    pub fn generate(params: &StreamParams) -> Result<Stream, ParamsError> {
        params.validate()?;
        let keys: Vec<String> = params.keys.chars().map(|c| c.to_string()).collect();
        let nkeys = keys.len() as u32;
        let lambd = 1.0 / params.mean_delay;
        let mut rng = PyRandom::new(params.seed);
        let mut events = Vec::with_capacity(params.events);
        for _ in 0..params.events {
            let et = rng.uniform(0.0, params.span);
            let d = if rng.random() > params.tail {
                rng.expovariate(lambd)
            } else {
                rng.uniform(0.0, params.tail_max)
            };
            let key = rng.randbelow(nkeys);
            events.push(Event {
                event_time: et,
                proc_time: et + d,
                key,
            });
        }
        Ok(Stream::from_unordered(events, keys))
    }

    /// The classroom stream: seed 7, 20 000 events over 600 s.
    pub fn classroom() -> Stream {
        Stream::generate(&StreamParams::default()).expect("the default parameters are valid")
    }

    /// Builds a stream from unordered events, sorting them stably by processing time (ties keep
    /// their input order, as Python's `list.sort` does).
    pub fn from_unordered(mut events: Vec<Event>, keys: Vec<String>) -> Self {
        sort_by_processing_time(&mut events);
        Stream {
            events,
            keys,
            clock: Clock::Relative,
        }
    }

    /// How many events the stream holds.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether the stream holds no events.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// The name of a key id (or `?` for an id not in the table).
    pub fn key_name(&self, key: KeyId) -> &str {
        self.keys
            .get(key as usize)
            .map(String::as_str)
            .unwrap_or("?")
    }

    /// The id of a key name, if the stream has it.
    pub fn key_id(&self, name: &str) -> Option<KeyId> {
        self.keys.iter().position(|k| k == name).map(|i| i as KeyId)
    }

    /// The largest delay in the stream (0 for an empty stream): what the perfect watermark lags by.
    pub fn max_delay(&self) -> f64 {
        self.events
            .iter()
            .map(Event::delay)
            .fold(None, |m: Option<f64>, d| Some(m.map_or(d, |m| m.max(d))))
            .unwrap_or(0.0)
    }

    /// How many events arrive more than `lag` after they happened: those a fixed-lag
    /// watermark has already passed when they arrive (`proc_time − lag > event_time`).
    pub fn behind_fixed_lag(&self, lag: f64) -> usize {
        self.events
            .iter()
            .filter(|e| e.proc_time - lag > e.event_time)
            .count()
    }
}

/// Stable sort by processing time; equal times (including −0 and +0) keep their order.
pub(crate) fn sort_by_processing_time(events: &mut [Event]) {
    events.sort_by(|a, b| {
        a.proc_time
            .partial_cmp(&b.proc_time)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
}

/// CPython's `random.Random`, on the same MT19937 core, for the few methods the generator uses.
#[derive(Clone)]
pub(crate) struct PyRandom {
    mt: Mt,
}

impl PyRandom {
    /// `random.Random(seed)` for a non-negative integer seed: `init_by_array` over the seed's
    /// 32-bit words, least significant first (one word for seeds below 2^32, `[0]` for 0).
    pub fn new(seed: u64) -> Self {
        let lo = seed as u32;
        let hi = (seed >> 32) as u32;
        let mt = if hi == 0 {
            Mt::new_with_key([lo])
        } else {
            Mt::new_with_key([lo, hi])
        };
        PyRandom { mt }
    }

    fn next_u32(&mut self) -> u32 {
        self.mt.next_u32()
    }

    /// `random()`: 53 random bits, `(a >> 5, b >> 6)`, scaled to [0, 1).
    pub fn random(&mut self) -> f64 {
        let a = (self.next_u32() >> 5) as f64;
        let b = (self.next_u32() >> 6) as f64;
        (a * 67_108_864.0 + b) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// `uniform(a, b)` = `a + (b - a) * random()`.
    pub fn uniform(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.random()
    }

    /// `expovariate(lambd)` = `-log(1 - random()) / lambd`.
    pub fn expovariate(&mut self, lambd: f64) -> f64 {
        -(1.0 - self.random()).ln() / lambd
    }

    /// `getrandbits(k)` for 1 ≤ k ≤ 32.
    fn getrandbits(&mut self, k: u32) -> u32 {
        debug_assert!((1..=32).contains(&k));
        self.next_u32() >> (32 - k)
    }

    /// `_randbelow(n)` by rejection over `getrandbits(n.bit_length())`, for 1 ≤ n < 2^32.
    pub fn randbelow(&mut self, n: u32) -> u32 {
        if n <= 1 {
            return 0;
        }
        let k = 32 - n.leading_zeros();
        loop {
            let r = self.getrandbits(k);
            if r < n {
                return r;
            }
        }
    }
}

/// The generator's dials; the defaults are the classroom stream.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamParams {
    /// Seed of the generator: the same seed and dials give the same stream, bit for bit.
    pub seed: u64,
    /// How many events to generate.
    pub events: usize,
    /// Event times are uniform over [0, span) ms.
    pub span: f64,
    /// Fraction of events in the long tail.
    pub tail: f64,
    /// Mean of the exponential delay of the ordinary events, ms.
    pub mean_delay: f64,
    /// Tail delays are uniform over [0, tail_max) ms.
    pub tail_max: f64,
    /// One key per character.
    pub keys: String,
}

impl Default for StreamParams {
    fn default() -> Self {
        StreamParams {
            seed: 7,
            events: 20_000,
            span: 600_000.0,
            tail: 0.08,
            mean_delay: 2_000.0,
            tail_max: 90_000.0,
            keys: "abcd".to_string(),
        }
    }
}

/// Why generator parameters were refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParamsError {
    /// `--keys` is empty: every event needs a key.
    #[error("--keys must name at least one key")]
    NoKeys,
    /// A duration (`--span`, `--tail-max` or `--mean-delay`) is negative, infinite or NaN.
    #[error("{name} must be a finite number ≥ 0, got {value}")]
    Negative {
        /// The option's name, e.g. `--span`.
        name: &'static str,
        /// The value refused, ms.
        value: f64,
    },
    /// The tail fraction (`--tail`) is not in [0, 1].
    #[error("--tail must be between 0 and 1, got {0}")]
    Tail(f64),
    /// The mean delay is 0: an exponential delay needs a finite rate 1 / mean.
    #[error("--mean-delay must be greater than 0, got {0}")]
    MeanDelay(f64),
}

impl StreamParams {
    /// Checks the dials before generating: at least one key, finite durations ≥ 0, a tail
    /// fraction in [0, 1] and a mean delay above 0.
    pub fn validate(&self) -> Result<(), ParamsError> {
        if self.keys.chars().count() == 0 {
            return Err(ParamsError::NoKeys);
        }
        for (name, value) in [
            ("--span", self.span),
            ("--tail-max", self.tail_max),
            ("--mean-delay", self.mean_delay),
        ] {
            if !value.is_finite() || value < 0.0 {
                return Err(ParamsError::Negative { name, value });
            }
        }
        if !(0.0..=1.0).contains(&self.tail) {
            return Err(ParamsError::Tail(self.tail));
        }
        if self.mean_delay <= 0.0 {
            return Err(ParamsError::MeanDelay(self.mean_delay));
        }
        Ok(())
    }
}

/// Delay statistics of a stream, as block 1 prints them.
#[derive(Debug, Clone, PartialEq)]
pub struct DelayStats {
    /// How many events the statistics cover (at least 1).
    pub events: usize,
    /// `statistics.median` of the delays.
    pub median: f64,
    /// `sorted(delays)[int(.99 * n)]`.
    pub p99: f64,
    /// The largest delay, ms: what a perfect watermark lags processing time by.
    pub max: f64,
    /// Adjacent pairs whose event times are out of order.
    pub out_of_order: usize,
}

impl DelayStats {
    /// The delay statistics (delay = processing time − event time, ms) of a stream; `None` for an
    /// empty one.
    pub fn of(stream: &Stream) -> Option<DelayStats> {
        let n = stream.len();
        if n == 0 {
            return None;
        }
        let mut delays: Vec<f64> = stream.events.iter().map(Event::delay).collect();
        delays.sort_by(f64::total_cmp);
        let median = if n % 2 == 1 {
            delays[n / 2]
        } else {
            (delays[n / 2 - 1] + delays[n / 2]) / 2.0
        };
        let p99 = delays[((0.99 * n as f64) as usize).min(n - 1)];
        let max = delays[n - 1];
        let out_of_order = stream
            .events
            .windows(2)
            .filter(|w| w[1].event_time < w[0].event_time)
            .count();
        Some(DelayStats {
            events: n,
            median,
            p99,
            max,
            out_of_order,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_random_seed_7_first_values() {
        // random.Random(7).random() == 0.32383276483316237 in CPython.
        let mut r = PyRandom::new(7);
        assert_eq!(r.random(), 0.32383276483316237);
    }

    #[test]
    fn randbelow_stays_in_range() {
        let mut r = PyRandom::new(1);
        for n in 1..50 {
            assert!(r.randbelow(n) < n);
        }
    }
}
