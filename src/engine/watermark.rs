//! Block 3, watermarks: the engine's claim that no more events older than some event time will
//! arrive. Four generators, all held monotone (a new estimate below the current watermark
//! leaves it where it is): `perfect` (knows the stream's largest delay), `fixed:LAG` (processing
//! time − LAG), `heuristic:Q:N` (processing time − a quantile of the last N delays) and
//! `bounded:B` (highest event time seen − B, Flink's and Beam's bounded out-of-orderness).

use std::collections::{BTreeMap, VecDeque};
use std::fmt;

use super::stream::Event;
use super::window::fmt_ms;

/// Which watermark generator to run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WatermarkKind {
    /// Processing time − the stream's largest delay: never wrong, always slow.
    Perfect,
    /// Processing time − `lag` ms.
    Fixed { lag: f64 },
    /// Processing time − `sorted(last n delays)[int(q·(len−1))]`, the arriving event included.
    Heuristic { q: f64, n: usize },
    /// Highest event time seen − `bound` ms.
    Bounded { bound: f64 },
}

impl WatermarkKind {
    pub const DEFAULT_Q: f64 = 0.95;
    pub const DEFAULT_N: usize = 2000;

    /// The lag this generator is built on, where it has one (fixed lag, bounded bound).
    pub fn lag(&self) -> Option<f64> {
        match *self {
            WatermarkKind::Fixed { lag } => Some(lag),
            WatermarkKind::Bounded { bound } => Some(bound),
            _ => None,
        }
    }

    /// How far behind processing time the watermark is by construction, as the frontier's
    /// emit delay counts it: the lag of `fixed`, the bound of `bounded`, the stream's largest
    /// delay for `perfect`; NaN for `heuristic`, whose lag moves with the data.
    pub fn nominal_lag(&self, max_delay: f64) -> f64 {
        match *self {
            WatermarkKind::Perfect => max_delay,
            WatermarkKind::Heuristic { .. } => f64::NAN,
            other => other.lag().unwrap_or(f64::NAN),
        }
    }

    /// The same generator with another lag (fixed and bounded; the others are unchanged).
    pub fn with_lag(&self, lag: f64) -> WatermarkKind {
        match *self {
            WatermarkKind::Fixed { .. } => WatermarkKind::Fixed { lag },
            WatermarkKind::Bounded { .. } => WatermarkKind::Bounded { bound: lag },
            other => other,
        }
    }

    /// The short name used on the command line and on screen.
    pub fn family(&self) -> &'static str {
        match self {
            WatermarkKind::Perfect => "perfect",
            WatermarkKind::Fixed { .. } => "fixed",
            WatermarkKind::Heuristic { .. } => "heuristic",
            WatermarkKind::Bounded { .. } => "bounded",
        }
    }
}

impl fmt::Display for WatermarkKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            WatermarkKind::Perfect => write!(f, "perfect"),
            WatermarkKind::Fixed { lag } => write!(f, "fixed:{}", fmt_ms(lag)),
            WatermarkKind::Heuristic { q, n } => write!(f, "heuristic:{q}:{n}"),
            WatermarkKind::Bounded { bound } => write!(f, "bounded:{}", fmt_ms(bound)),
        }
    }
}

/// A running watermark generator: fed each arriving event, answers the watermark after it.
#[derive(Debug, Clone)]
pub struct Watermark {
    kind: WatermarkKind,
    /// The lag of `perfect`, resolved from the stream before the run.
    perfect_lag: f64,
    current: f64,
    max_event_time: f64,
    quantile: Option<SlidingQuantile>,
}

impl Watermark {
    /// A generator before any event: the watermark is −∞. `max_delay` is the stream's largest
    /// delay, used only by `perfect`.
    pub fn new(kind: WatermarkKind, max_delay: f64) -> Self {
        let quantile = match kind {
            WatermarkKind::Heuristic { q, n } => Some(SlidingQuantile::new(q, n.max(1))),
            _ => None,
        };
        Watermark {
            kind,
            perfect_lag: max_delay,
            current: f64::NEG_INFINITY,
            max_event_time: f64::NEG_INFINITY,
            quantile,
        }
    }

    pub fn kind(&self) -> WatermarkKind {
        self.kind
    }

    /// The watermark now.
    pub fn current(&self) -> f64 {
        self.current
    }

    /// Takes in an arriving event and returns the watermark after it (never lower than before).
    #[inline]
    pub fn observe(&mut self, e: &Event) -> f64 {
        let estimate = match self.kind {
            WatermarkKind::Perfect => e.proc_time - self.perfect_lag,
            WatermarkKind::Fixed { lag } => e.proc_time - lag,
            WatermarkKind::Heuristic { .. } => {
                let q = self.quantile.as_mut().expect("heuristic keeps a quantile");
                q.push(e.delay());
                e.proc_time - q.value().unwrap_or(0.0)
            }
            WatermarkKind::Bounded { bound } => {
                self.max_event_time = self.max_event_time.max(e.event_time);
                self.max_event_time - bound
            }
        };
        if estimate > self.current {
            self.current = estimate;
        }
        self.current
    }

    /// Raises the watermark to `wm` if that is higher (a watermark given from outside).
    pub fn raise(&mut self, wm: f64) -> f64 {
        if wm > self.current {
            self.current = wm;
        }
        self.current
    }

    /// The end of input: every window is complete.
    pub fn close(&mut self) -> f64 {
        self.current = f64::INFINITY;
        self.current
    }
}

/// Total order on f64 as a map key (inputs are never NaN).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct OrdKey(u64);

impl OrdKey {
    fn of(x: f64) -> Self {
        let b = x.to_bits();
        OrdKey(if b >> 63 == 1 { !b } else { b | (1 << 63) })
    }
    fn value(self) -> f64 {
        let b = self.0;
        f64::from_bits(if b >> 63 == 1 { b & !(1 << 63) } else { !b })
    }
}

/// A multiset of f64 with its size.
#[derive(Debug, Clone, Default)]
struct Multiset {
    counts: BTreeMap<OrdKey, u32>,
    len: usize,
}

impl Multiset {
    fn insert(&mut self, k: OrdKey) {
        *self.counts.entry(k).or_insert(0) += 1;
        self.len += 1;
    }
    fn remove(&mut self, k: OrdKey) -> bool {
        match self.counts.get_mut(&k) {
            Some(c) => {
                *c -= 1;
                if *c == 0 {
                    self.counts.remove(&k);
                }
                self.len -= 1;
                true
            }
            None => false,
        }
    }
    fn max(&self) -> Option<OrdKey> {
        self.counts.last_key_value().map(|(k, _)| *k)
    }
    fn min(&self) -> Option<OrdKey> {
        self.counts.first_key_value().map(|(k, _)| *k)
    }
}

/// `sorted(last n values)[int(q·(len−1))]`, kept incrementally: the `rank + 1` smallest values
/// in one ordered multiset, the rest in another, rebalanced on each push (O(log n), no re-sort).
#[derive(Debug, Clone)]
pub struct SlidingQuantile {
    q: f64,
    n: usize,
    recent: VecDeque<f64>,
    low: Multiset,
    high: Multiset,
}

impl SlidingQuantile {
    pub fn new(q: f64, n: usize) -> Self {
        SlidingQuantile {
            q,
            n: n.max(1),
            // Grown as values come: a long history on a short stream costs nothing.
            recent: VecDeque::new(),
            low: Multiset::default(),
            high: Multiset::default(),
        }
    }

    pub fn len(&self) -> usize {
        self.recent.len()
    }

    pub fn is_empty(&self) -> bool {
        self.recent.is_empty()
    }

    /// Adds a value, evicting the oldest beyond `n`.
    pub fn push(&mut self, x: f64) {
        let k = OrdKey::of(x);
        match self.low.max() {
            Some(m) if k <= m => self.low.insert(k),
            _ => self.high.insert(k),
        }
        self.recent.push_back(x);
        if self.recent.len() > self.n {
            let old = OrdKey::of(self.recent.pop_front().expect("non-empty"));
            if !self.low.remove(old) {
                self.high.remove(old);
            }
        }
        self.rebalance();
    }

    fn rank(&self) -> usize {
        let len = self.recent.len();
        if len == 0 {
            return 0;
        }
        ((self.q * (len - 1) as f64) as usize).min(len - 1)
    }

    fn rebalance(&mut self) {
        let want = if self.recent.is_empty() {
            0
        } else {
            self.rank() + 1
        };
        // Keep every value of `low` ≤ every value of `high`.
        while let (Some(a), Some(b)) = (self.low.max(), self.high.min()) {
            if a <= b {
                break;
            }
            self.low.remove(a);
            self.high.insert(a);
            self.high.remove(b);
            self.low.insert(b);
        }
        while self.low.len > want {
            let m = self.low.max().expect("non-empty");
            self.low.remove(m);
            self.high.insert(m);
        }
        while self.low.len < want {
            let m = self.high.min().expect("enough values");
            self.high.remove(m);
            self.low.insert(m);
        }
    }

    /// The quantile now, `None` before the first value.
    pub fn value(&self) -> Option<f64> {
        self.low.max().map(OrdKey::value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(hist: &[f64], q: f64) -> f64 {
        let mut s = hist.to_vec();
        s.sort_by(f64::total_cmp);
        s[(q * (s.len() - 1) as f64) as usize]
    }

    #[test]
    fn sliding_quantile_matches_sorting() {
        let mut sq = SlidingQuantile::new(0.95, 7);
        let mut hist = Vec::new();
        let xs = [
            5.0, 1.0, 1.0, 9.0, -2.0, 3.5, 3.5, 0.0, 7.0, 8.0, 1.0, 2.0, 100.0, -0.5,
        ];
        for &x in xs.iter().chain(xs.iter().rev()) {
            sq.push(x);
            hist.push(x);
            if hist.len() > 7 {
                hist.remove(0);
            }
            assert_eq!(sq.value(), Some(naive(&hist, 0.95)));
        }
    }

    #[test]
    fn ordkey_round_trips() {
        for x in [-3.5, -0.0, 0.0, 1e-300, 7.25, f64::MAX, f64::MIN] {
            assert_eq!(OrdKey::of(x).value().to_bits(), x.to_bits());
        }
        assert!(OrdKey::of(-1.0) < OrdKey::of(0.5));
    }
}
