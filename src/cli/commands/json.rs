//! How the commands write numbers in JSON: a time or duration that is not finite (a grace of
//! `inf`, the watermark at the end of input) has no JSON number, and is written `null`; so are
//! the global window's bounds, which lie beyond every time an event can have.

/// `x` when it is finite, else `None` (written `null`).
pub(super) fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// The largest time an event can carry, ms (2^53: where whole milliseconds stop being exact).
const TIME_MAX: f64 = 9_007_199_254_740_992.0;

/// A window bound, `None` (written `null`) for the global window's, which are unbounded.
pub(super) fn bound(ms: f64) -> Option<f64> {
    (ms.abs() <= TIME_MAX).then_some(ms)
}
