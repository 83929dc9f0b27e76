//! How the commands write numbers in JSON: a time or duration that is not finite (a grace of
//! `inf`, the watermark at the end of input) has no JSON number, and is written `null`.

/// `x` when it is finite, else `None` (written `null`).
pub(super) fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}
