//! Floor division of event times by a window length, exactly as Python computes it, so window
//! numbers match the reference's `int(et // w)` bit for bit, including at the edges of a window.

/// Python's `float // float` (CPython's `float_floor_div`), so window indices match the
/// reference's `int(et // w)` bit for bit, including at the edges of a window.
pub(crate) fn py_floor_div(vx: f64, wx: f64) -> f64 {
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

#[cfg(test)]
/// `int(t // w)` for a whole-millisecond `w ≥ 1`, as Python computes it. Where `t` and the
/// products below are exact (|t| < 2^52) the exact floor is found with one division and
/// exact checks; elsewhere it falls back to [`py_floor_div`]. Both give the exact floor there.
#[inline]
pub(crate) fn floor_index(t: f64, w: i64) -> i64 {
    floor_index_with(t, w, 1.0 / w as f64)
}

/// [`floor_index`] with `inv = 1 / w` computed once by the caller: the estimate `t · inv` is
/// within one of the floor, and the exact checks correct it.
#[inline]
pub(crate) fn floor_index_with(t: f64, w: i64, inv: f64) -> i64 {
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

/// `x.floor() as i64`, saturating at the ends of the range and taking NaN to 0, without a
/// libm call: truncation is one instruction on baseline x86-64, where `floor` is a call, and
/// one step down corrects it below zero.
#[inline]
pub(crate) fn floor_to_i64(x: f64) -> i64 {
    let t = x as i64;
    if (t as f64) > x {
        t.saturating_sub(1)
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn floor_to_i64_is_floor_then_the_cast() {
        let edges = [
            0.0,
            -0.0,
            0.5,
            -0.5,
            -1.0,
            2.5,
            -2.5,
            9_223_372_036_854_775_807.0,
            -9_223_372_036_854_775_808.0,
            9.3e18,
            -9.3e18,
            1e300,
            -1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            4_503_599_627_370_495.5,
            -4_503_599_627_370_495.5,
        ];
        for x in edges {
            assert_eq!(floor_to_i64(x), x.floor() as i64, "{x:?}");
        }
    }

    proptest! {
        #[test]
        fn floor_to_i64_matches_on_any_float(bits in any::<u64>(), small in -1e7f64..1e7) {
            let x = f64::from_bits(bits);
            prop_assert_eq!(floor_to_i64(x), x.floor() as i64);
            prop_assert_eq!(floor_to_i64(small), small.floor() as i64);
        }
    }

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
}
