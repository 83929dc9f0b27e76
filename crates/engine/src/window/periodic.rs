//! Windows of one length laid at a fixed period, as tumbling and sliding windows are: window
//! number `i` is `[i·slide + offset, i·slide + offset + size)` on whole milliseconds, so windows
//! end in the order they start. The offset (`0 ≤ offset < slide`) moves the grid off the epoch,
//! as Flink's and Beam's window offsets do: a day window on New York's midnights is the UTC day
//! moved by 5 h. Their numbering, their neighbours and which of them a time has completed.

use super::floor::{floor_index_with, py_floor_div};
use super::{Assignment, WindowId};

/// How far [`last_ended_by`] and [`floor_index`] correct their estimate either way.
const SETTLE_STEPS: usize = 4;

/// Window number `index`, its bounds saturating at the ends of the millisecond range (exact
/// for the ±2^53 ms the engine accepts).
#[inline]
pub(super) fn window(size: i64, slide: i64, offset: i64, index: i64) -> WindowId {
    let start = index.saturating_mul(slide).saturating_add(offset);
    WindowId::new(start, start.saturating_add(size))
}

/// The number of window `id` (its start less the offset, over the slide).
pub(super) fn index(slide: i64, offset: i64, id: WindowId) -> i64 {
    match id {
        WindowId::MIN => i64::MIN,
        WindowId::MAX => i64::MAX,
        _ => id.start_ms().saturating_sub(offset).div_euclid(slide),
    }
}

/// Start of window number `index`, ms.
#[inline]
fn start(slide: i64, offset: i64, index: i64) -> f64 {
    index.saturating_mul(slide).saturating_add(offset) as f64
}

/// End of window number `index` (exclusive), ms.
#[inline]
pub(super) fn end(size: i64, slide: i64, offset: i64, index: i64) -> f64 {
    index
        .saturating_mul(slide)
        .saturating_add(offset)
        .saturating_add(size) as f64
}

/// The number of the last window starting at or before `t`: `⌊(t − offset) / slide⌋`. Without
/// an offset it is exactly the reference's `int(t // slide)`; with one, the estimate from the
/// shifted time (which may round) is settled on the windows' exact starts.
#[inline(always)]
pub(super) fn floor_index(t: f64, slide: i64, offset: i64, inv_slide: f64) -> i64 {
    if offset == 0 {
        return floor_index_with(t, slide, inv_slide);
    }
    let mut i = floor_index_with(t - offset as f64, slide, inv_slide);
    for _ in 0..SETTLE_STEPS {
        if i > i64::MIN && start(slide, offset, i) > t {
            i -= 1;
        }
    }
    for _ in 0..SETTLE_STEPS {
        if i < i64::MAX && start(slide, offset, i + 1) <= t {
            i += 1;
        }
    }
    i
}

/// The windows numbered `first..=last`, earliest first (none when `last < first`).
#[inline]
pub(super) fn windows(size: i64, slide: i64, offset: i64, first: i64, last: i64) -> Assignment {
    let count = last
        .wrapping_sub(first)
        .wrapping_add(1)
        .clamp(0, u32::MAX as i64);
    Assignment::new(window(size, slide, offset, first), count as u32, slide)
}

/// The window whose end is ≤ `t` and latest (windows up to it are complete at `t`).
pub(super) fn last_ended_by(size: i64, slide: i64, offset: i64, t: f64) -> Option<WindowId> {
    if t.is_nan() || t == f64::NEG_INFINITY {
        return None;
    }
    if t == f64::INFINITY {
        return Some(WindowId::MAX);
    }
    // `end(k) = k·slide + offset + size ≤ t` ⇔ `k ≤ (t − offset − size) / slide`: computed at
    // once (the cast saturates at the ends of the id range), then settled exactly where the
    // division rounded. Within the times the engine accepts (±2^53 ms, less the largest lag)
    // one step each way suffices; the steps are bounded so no time, however far out, can spin.
    let mut k = py_floor_div(t - size as f64 - offset as f64, slide as f64) as i64;
    for _ in 0..SETTLE_STEPS {
        if k < i64::MAX && end(size, slide, offset, k + 1) <= t {
            k += 1;
        }
    }
    for _ in 0..SETTLE_STEPS {
        if k > i64::MIN && end(size, slide, offset, k) > t {
            k -= 1;
        }
    }
    Some(match k {
        i64::MIN => WindowId::MIN,
        _ => window(size, slide, offset, k),
    })
}
