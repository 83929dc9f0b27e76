//! Windows of one length laid at a fixed period, as tumbling and sliding windows are: window
//! `i` is `[i·slide, i·slide + size)` on whole milliseconds, so windows end in the order they
//! start. Their numbering, bounds and which of them a time has completed.

use super::floor::py_floor_div;
use super::WindowId;

/// How far [`last_ended_by`] corrects its estimate either way.
const SETTLE_STEPS: usize = 4;

/// Start of window `id`, ms (exact for the ±2^53 ms the engine accepts).
#[inline]
pub(super) fn start(slide: i64, id: WindowId) -> f64 {
    id.saturating_mul(slide) as f64
}

/// End of window `id` (exclusive), ms.
#[inline]
pub(super) fn end(size: i64, slide: i64, id: WindowId) -> f64 {
    id.saturating_mul(slide).saturating_add(size) as f64
}

/// The largest window index whose end is ≤ `t` (windows up to it are complete at `t`).
pub(super) fn last_ended_by(size: i64, slide: i64, t: f64) -> Option<WindowId> {
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
    let mut k = py_floor_div(t - size as f64, slide as f64) as i64;
    for _ in 0..SETTLE_STEPS {
        if k < WindowId::MAX && end(size, slide, k + 1) <= t {
            k += 1;
        }
    }
    for _ in 0..SETTLE_STEPS {
        if k > WindowId::MIN && end(size, slide, k) > t {
            k -= 1;
        }
    }
    Some(k)
}
