//! Block 2, windowing: which windows an event belongs to is a pure function of its event time,
//! never of its arrival. Tumbling and sliding windows are half-open `[start, end)` intervals on
//! whole milliseconds, named by their start index.
//!
//! Merging windows (sessions) are the planned extension: a merging assigner gives each event a
//! proto-window `[t, t + gap)` and the store merges overlapping ones per key. The assigner API
//! leaves room for that ([`WindowFn::is_merging`]); the window store in `processor` relies on
//! non-merging windows ending in index order, which a merging store would replace with an index
//! ordered by end.

use std::collections::BTreeMap;

use super::stream::{KeyId, Stream};

/// Window identity: the index of its start (`start = index × slide`).
pub type WindowId = i64;

/// How events are assigned to windows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowFn {
    /// Back-to-back windows of `size` ms: window `i` is `[i·size, (i+1)·size)`.
    Tumbling { size: i64 },
    /// Windows of `size` ms starting every `slide` ms: window `i` is `[i·slide, i·slide + size)`.
    Sliding { size: i64, slide: i64 },
}

/// Why a window definition was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WindowError {
    #[error("window size must be at least 1 ms, got {0} ms")]
    Size(i64),
    #[error("window slide must be at least 1 ms and at most the size ({size} ms), got {slide} ms")]
    Slide { size: i64, slide: i64 },
    #[error(
        "a {size} ms window sliding every {slide} ms puts each event in {per_event} windows; at most {} are allowed",
        WindowFn::MAX_WINDOWS_PER_EVENT
    )]
    TooManyWindows {
        size: i64,
        slide: i64,
        per_event: i64,
    },
}

/// Python's `float // float` (CPython's `float_floor_div`), so window indices match the
/// reference's `int(et // w)` bit for bit, including at the edges of a window.
pub fn py_floor_div(vx: f64, wx: f64) -> f64 {
    let m = vx % wx;
    let mut div = (vx - m) / wx;
    if m != 0.0 && (wx < 0.0) != (m < 0.0) {
        div -= 1.0;
    }
    if div != 0.0 {
        let mut floordiv = div.floor();
        if div - floordiv > 0.5 {
            floordiv += 1.0;
        }
        floordiv
    } else {
        0.0_f64.copysign(vx / wx)
    }
}

/// `int(t // w)` for a whole-millisecond `w ≥ 1`, as Python computes it. Where `t` and the
/// products below are exact (|t| < 2^52) the exact floor is found with one division and
/// exact checks; elsewhere it falls back to [`py_floor_div`]. Both give the exact floor there.
#[inline]
pub fn floor_index(t: f64, w: i64) -> i64 {
    floor_index_with(t, w, 1.0 / w as f64)
}

/// [`floor_index`] with `inv = 1 / w` computed once by the caller: the estimate `t · inv` is
/// within one of the floor, and the exact checks correct it.
#[inline]
pub fn floor_index_with(t: f64, w: i64, inv: f64) -> i64 {
    const EXACT: f64 = 4_503_599_627_370_496.0; // 2^52
    let wf = w as f64;
    if t.abs() < EXACT && w < (1 << 40) {
        // Truncation is a single instruction (floor is a libm call on baseline x86-64).
        let q = (t * inv) as i64;
        let qf = q as f64;
        if qf * wf > t {
            q - 1
        } else if (qf + 1.0) * wf <= t {
            q + 1
        } else {
            q
        }
    } else {
        py_floor_div(t, wf) as i64
    }
}

impl WindowFn {
    /// The most windows one event may belong to (size / slide).
    pub const MAX_WINDOWS_PER_EVENT: i64 = 1000;

    /// How far [`WindowFn::last_ended_by`] corrects its estimate either way.
    const SETTLE_STEPS: usize = 4;

    pub fn tumbling(size: i64) -> Result<Self, WindowError> {
        if size < 1 {
            return Err(WindowError::Size(size));
        }
        Ok(WindowFn::Tumbling { size })
    }

    pub fn sliding(size: i64, slide: i64) -> Result<Self, WindowError> {
        if size < 1 {
            return Err(WindowError::Size(size));
        }
        if slide < 1 || slide > size {
            return Err(WindowError::Slide { size, slide });
        }
        if slide == size {
            return Ok(WindowFn::Tumbling { size });
        }
        let per_event = (size + slide - 1) / slide;
        if per_event > WindowFn::MAX_WINDOWS_PER_EVENT {
            return Err(WindowError::TooManyWindows {
                size,
                slide,
                per_event,
            });
        }
        Ok(WindowFn::Sliding { size, slide })
    }

    /// Whether windows of this function merge (sessions). None of the current ones do.
    pub fn is_merging(&self) -> bool {
        false
    }

    pub fn size(&self) -> i64 {
        match *self {
            WindowFn::Tumbling { size } | WindowFn::Sliding { size, .. } => size,
        }
    }

    pub fn slide(&self) -> i64 {
        match *self {
            WindowFn::Tumbling { size } => size,
            WindowFn::Sliding { slide, .. } => slide,
        }
    }

    /// Start of window `id`, ms (exact for the ±2^53 ms the engine accepts).
    #[inline]
    pub fn start(&self, id: WindowId) -> f64 {
        id.saturating_mul(self.slide()) as f64
    }

    /// End of window `id` (exclusive), ms.
    #[inline]
    pub fn end(&self, id: WindowId) -> f64 {
        id.saturating_mul(self.slide()).saturating_add(self.size()) as f64
    }

    /// The windows that contain `event_time`, earliest first: `first..=last`.
    pub fn assign(&self, event_time: f64) -> std::ops::RangeInclusive<WindowId> {
        self.assign_with(event_time, 1.0 / self.slide() as f64)
    }

    /// [`WindowFn::assign`] with `inv_slide = 1 / slide` computed once by the caller.
    #[inline]
    pub fn assign_with(
        &self,
        event_time: f64,
        inv_slide: f64,
    ) -> std::ops::RangeInclusive<WindowId> {
        match *self {
            WindowFn::Tumbling { size } => {
                let i = floor_index_with(event_time, size, inv_slide);
                i..=i
            }
            WindowFn::Sliding { size, slide } => {
                let last = floor_index_with(event_time, slide, inv_slide);
                // The earliest window still covering the event: start + size > event_time.
                let mut first = floor_index_with(event_time - size as f64, slide, inv_slide) + 1;
                while first <= last && self.end(first) <= event_time {
                    first += 1;
                }
                while self.end(first - 1) > event_time {
                    first -= 1;
                }
                first..=last
            }
        }
    }

    /// The largest window index whose end is ≤ `t` (windows up to it are complete at `t`).
    pub fn last_ended_by(&self, t: f64) -> Option<WindowId> {
        if t.is_nan() || t == f64::NEG_INFINITY {
            return None;
        }
        if t == f64::INFINITY {
            return Some(WindowId::MAX);
        }
        // `end(k) = k·slide + size ≤ t` ⇔ `k ≤ (t − size) / slide`: computed at once (the cast
        // saturates at the ends of the id range), then settled exactly where the division
        // rounded. Within the times the engine accepts (±2^53 ms, less the largest lag) one
        // step each way suffices; the steps are bounded so no time, however far out, can spin.
        let mut k = py_floor_div(t - self.size() as f64, self.slide() as f64) as i64;
        for _ in 0..Self::SETTLE_STEPS {
            if k < WindowId::MAX && self.end(k + 1) <= t {
                k += 1;
            }
        }
        for _ in 0..Self::SETTLE_STEPS {
            if k > WindowId::MIN && self.end(k) > t {
                k -= 1;
            }
        }
        Some(k)
    }

    /// A short human name: `60s tumbling`, `60s/10s sliding`.
    pub fn describe(&self) -> String {
        match *self {
            WindowFn::Tumbling { size } => format!("{} tumbling", fmt_ms(size as f64)),
            WindowFn::Sliding { size, slide } => {
                format!("{}/{} sliding", fmt_ms(size as f64), fmt_ms(slide as f64))
            }
        }
    }
}

/// A duration for people: `60s`, `1500ms`, `2m`, `1.5s`.
pub fn fmt_ms(ms: f64) -> String {
    if ms.is_nan() {
        return "—".to_string();
    }
    if ms.is_infinite() {
        return "∞".to_string();
    }
    if ms != 0.0 && ms % 60_000.0 == 0.0 {
        format!("{}m", ms / 60_000.0)
    } else if ms % 1000.0 == 0.0 {
        format!("{}s", ms / 1000.0)
    } else if ms.abs() < 1000.0 {
        format!("{ms}ms")
    } else {
        format!("{}s", ms / 1000.0)
    }
}

/// A window and key: the unit that holds state and emits panes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CellId {
    pub window: WindowId,
    pub key: KeyId,
}

/// The oracle: the true count of every (window, key), from the whole stream at once.
pub fn oracle(stream: &Stream, windows: &WindowFn) -> BTreeMap<CellId, u64> {
    let mut truth = BTreeMap::new();
    for e in &stream.events {
        for window in windows.assign(e.event_time) {
            *truth.entry(CellId { window, key: e.key }).or_insert(0) += 1;
        }
    }
    truth
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_div_matches_python() {
        assert_eq!(py_floor_div(59_999.999, 60_000.0), 0.0);
        assert_eq!(py_floor_div(60_000.0, 60_000.0), 1.0);
        assert_eq!(py_floor_div(-1.0, 60_000.0), -1.0);
        assert_eq!(py_floor_div(-60_000.0, 60_000.0), -1.0);
    }

    #[test]
    fn fast_floor_agrees_with_python_floor() {
        let mut x = 0.123_456_789_f64;
        for w in [1, 7, 1000, 17_000, 60_000, 3_600_000] {
            for i in -2000..2000 {
                for t in [
                    (i * w) as f64,
                    (i * w) as f64 - 1e-9,
                    (i * w) as f64 + 0.5,
                    x * 1e6 - 5e5,
                ] {
                    assert_eq!(
                        floor_index(t, w),
                        py_floor_div(t, w as f64) as i64,
                        "t={t} w={w}"
                    );
                }
                x = (x * 9301.0 + 0.49297) % 1.0;
            }
        }
    }

    #[test]
    fn sliding_assignment_covers_the_event() {
        let w = WindowFn::sliding(60_000, 20_000).unwrap();
        for t in [
            0.0, 1.0, 19_999.0, 20_000.0, 59_999.5, 60_000.0, -5.0, 123_456.7,
        ] {
            let r = w.assign(t);
            assert_eq!(r.clone().count(), 3, "t={t}");
            for id in r {
                assert!(w.start(id) <= t && t < w.end(id), "t={t} id={id}");
            }
        }
        let w = WindowFn::sliding(50, 20).unwrap();
        for t in [0.0, 9.0, 10.0, 29.0, 30.0, 45.5] {
            let r = w.assign(t);
            for id in r.clone() {
                assert!(w.start(id) <= t && t < w.end(id), "t={t} id={id}");
            }
            assert!(w.end(*r.start() - 1) <= t);
            assert!(w.start(*r.end() + 1) > t);
        }
    }

    #[test]
    fn last_ended_by_is_exact() {
        let w = WindowFn::tumbling(60_000).unwrap();
        assert_eq!(w.last_ended_by(59_999.0), Some(-1));
        assert_eq!(w.last_ended_by(60_000.0), Some(0));
        assert_eq!(w.last_ended_by(f64::NEG_INFINITY), None);
        let s = WindowFn::sliding(60_000, 20_000).unwrap();
        assert_eq!(s.last_ended_by(59_999.0), Some(-1));
        assert_eq!(s.last_ended_by(60_000.0), Some(0));
        assert_eq!(s.last_ended_by(80_000.0), Some(1));
    }

    #[test]
    fn last_ended_by_ends_for_times_beyond_the_window_ids() {
        // A watermark far below any window (a huge lag) or far above: the answer saturates at
        // the ends of the id range instead of stepping one window at a time.
        for w in [
            WindowFn::tumbling(1).unwrap(),
            WindowFn::tumbling(60_000).unwrap(),
            WindowFn::sliding(60_000, 1_000).unwrap(),
        ] {
            let (low, high) = (w.last_ended_by(-1e16), w.last_ended_by(1e16));
            for t in [-1e19, -1e300, -f64::MAX] {
                assert!(w.last_ended_by(t) <= low, "{w:?} {t}");
            }
            assert_eq!(w.last_ended_by(-f64::MAX), Some(WindowId::MIN));
            for t in [1e19, 1e300, f64::MAX] {
                assert!(w.last_ended_by(t) >= high, "{w:?} {t}");
            }
            assert_eq!(w.last_ended_by(f64::MAX), Some(WindowId::MAX));
            for t in [
                -9.007_199_254_740e15,
                -1e15 - 0.5,
                1e15 + 0.5,
                9.007_199_254_740e15,
            ] {
                let k = w.last_ended_by(t).unwrap();
                assert!(w.end(k) <= t && w.end(k + 1) > t, "{w:?} {t} {k}");
            }
        }
    }
}
