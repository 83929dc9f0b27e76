//! A number as a log writes it (`1500`, `-17.64144236466869`), read to the float Rust's
//! parser gives it, bit for bit, without its general machinery when the number is plain: a
//! sign, at most 19 digits around an optional point, and no exponent. Every time field of a
//! CSV or JSON Lines log is such a number, and reading them was the largest part of a read.

/// The powers of ten a float holds exactly.
const EXACT_POWERS: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The largest integer below which every integer is a float exactly (2^53).
const EXACT_INTEGERS: u64 = 1 << 53;

/// The float `text` reads as, exactly as `text.parse::<f64>()` reads it, or `None` when it
/// is not a number.
#[inline]
pub(crate) fn read_number(text: &str) -> Option<f64> {
    match plain(text.as_bytes()) {
        Some(v) => Some(v),
        None => text.parse().ok(),
    }
}

/// A plain number: its digits as an integer `m` and `k` digits after the point, `m / 10^k`.
/// With `m` up to 2^53, by Clinger's fast path: both are floats exactly, so the one division
/// rounds once, to the float nearest the number, which is what a correct parser gives (a
/// whole number needs no division); with more, by [`quotient`]. `None` for any other text
/// (an exponent, more digits, `inf`, a space), which the general parser reads.
#[inline]
fn plain(b: &[u8]) -> Option<f64> {
    let (negative, digits) = match b.first()? {
        b'-' => (true, &b[1..]),
        b'+' => (false, &b[1..]),
        _ => (false, b),
    };
    let mut mantissa = 0u64;
    let whole = take_digits(digits, &mut mantissa);
    let (after_point, end) = match digits.get(whole) {
        Some(b'.') => {
            let fraction = take_digits(&digits[whole + 1..], &mut mantissa);
            (fraction, whole + 1 + fraction)
        }
        _ => (0, whole),
    };
    // Any other byte, no digit at all, or more digits than a u64 surely holds.
    let count = whole + after_point;
    if end != digits.len() || count == 0 || count > 19 {
        return None;
    }
    let v = match after_point {
        0 if mantissa <= EXACT_INTEGERS => mantissa as f64,
        k if mantissa <= EXACT_INTEGERS => mantissa as f64 / EXACT_POWERS[k],
        k => quotient(mantissa, k),
    };
    Some(if negative { -v } else { v })
}

/// How many ASCII digits `b` starts with, each taken into `mantissa` (`mantissa * 10 +
/// digit`, wrapping past a u64: the caller refuses more than 19 digits), eight at a time where
/// eight follow.
#[inline]
fn take_digits(b: &[u8], mantissa: &mut u64) -> usize {
    let mut i = 0;
    while let Some(eight) = b.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(eight);
        let v = u64::from_le_bytes(word);
        // Every byte a digit: none below b'0' once b'0' is taken off, none above b'9' once
        // 0x46 is added (each byte stays below 0x80 either way).
        let low = v.wrapping_sub(0x3030_3030_3030_3030);
        if (v.wrapping_add(0x4646_4646_4646_4646) | low) & 0x8080_8080_8080_8080 != 0 {
            break;
        }
        *mantissa = mantissa
            .wrapping_mul(100_000_000)
            .wrapping_add(eight_digits(low));
        i += 8;
    }
    while let Some(&c) = b.get(i) {
        let d = c.wrapping_sub(b'0');
        if d >= 10 {
            break;
        }
        *mantissa = mantissa.wrapping_mul(10).wrapping_add(u64::from(d));
        i += 1;
    }
    i
}

/// The number eight digit values (each byte 0 to 9, the first digit in the lowest byte) are,
/// by three multiplications: pairs, then fours, then the eight.
#[inline]
fn eight_digits(v: u64) -> u64 {
    const MASK: u64 = 0x0000_00ff_0000_00ff;
    const HUNDRED_MILLION: u64 = 100 + (1_000_000 << 32);
    const TEN_THOUSAND: u64 = 1 + (10_000 << 32);
    let pairs = v.wrapping_mul(10).wrapping_add(v >> 8);
    let fours = (pairs & MASK).wrapping_mul(HUNDRED_MILLION);
    let rest = ((pairs >> 16) & MASK).wrapping_mul(TEN_THOUSAND);
    (fours.wrapping_add(rest) >> 32) & 0xffff_ffff
}

/// The float nearest `m / 10^k` (ties to even) for `2^53 < m < 10^19` and `k <= 19`: the
/// quotient's first 54 bits and whether anything is left decide the rounding, as a correct
/// parser rounds. The quotient is found by [`by_reciprocal`], or by [`divided`] where that
/// cannot tell.
#[inline]
fn quotient(m: u64, k: usize) -> f64 {
    let bits = |x: u64| 64 - x.leading_zeros() as i32;
    // `q = floor(m * 2^s / 10^k)` lies in [2^53, 2^55).
    let s = 54 - (bits(m) - bits(U64_POWERS[k]));
    let (q, left) = by_reciprocal(m, k, s).unwrap_or_else(|| divided(m, k, s));
    rounded(q, left, s)
}

/// The float nearest `q * 2^-s`, where `q` (in [2^53, 2^55)) is the quotient's first bits
/// and `left` whether anything is left past them.
#[inline]
fn rounded(mut q: u128, mut left: bool, mut s: i32) -> f64 {
    if q >= 1 << 54 {
        left |= q & 1 != 0;
        q >>= 1;
        s -= 1;
    }
    // 53 bits kept, the next one rounds: up past half, and at half to an even last bit.
    let mut kept = (q >> 1) as u64;
    if q & 1 != 0 && (left || kept & 1 != 0) {
        kept += 1;
    }
    // The value is `kept * 2^(1 - s)`, with `1 - s` within a float's exponents.
    let scale = f64::from_bits(((1023 + 1 - s) as u64) << 52);
    kept as f64 * scale
}

/// `floor(m * 2^s / 10^k)` and whether the division leaves something, by integer division
/// (at most 118 bits are divided).
#[cold]
fn divided(m: u64, k: usize, s: i32) -> (u128, bool) {
    let (num, den) = (u128::from(m), u128::from(U64_POWERS[k]));
    if s >= 0 {
        let n = num << s;
        (n / den, !n.is_multiple_of(den))
    } else {
        let d = den << -s;
        (num / d, !num.is_multiple_of(d))
    }
}

/// `floor(m * 2^s / 10^k)` and `true` (something is left), for `1 <= k <= 19` and
/// `s` as [`quotient`] takes it, by one multiplication by 10^-k scaled to 128 bits instead
/// of a division; `None` where that cannot tell (the caller divides).
///
/// `m` is first shifted to fill 64 bits (`s` less as much), which puts the quotient's bits
/// above the product's last 137. With `R = floor(2^T / 10^k)` ([`RECIPROCALS`]), the exact
/// `X = m * 2^T / 10^k` lies in `[m * R, m * R + m)`, as `R` is short of `2^T / 10^k` by less
/// than one. So where the 73 bits of `m * R` between its last 64 and the quotient's are
/// neither all zero nor all one (`m` adds less than 2^64), `X / 2^(T - s)` lies strictly
/// between `q` and `q + 1`: the quotient is `q` and the division leaves something. One
/// quotient in about 2^72 falls elsewhere, and every one that leaves nothing.
#[inline]
fn by_reciprocal(m: u64, k: usize, s: i32) -> Option<(u128, bool)> {
    const BELOW: u32 = 137 - 64;
    const MASK: u128 = (1 << BELOW) - 1;
    let (r, t) = *RECIPROCALS.get(k.checked_sub(1)?)?;
    if m == 0 {
        return None;
    }
    let shift = m.leading_zeros();
    if t - (s - shift as i32) != 137 {
        return None;
    }
    let m = u128::from(m << shift);
    // `m * R` as its bits above the last 64 (at most 192 bits in all).
    let top = m * (r >> 64) + ((m * (r as u64 as u128)) >> 64);
    let rest = top & MASK;
    if rest == 0 || rest == MASK {
        return None;
    }
    Some((top >> BELOW, true))
}

/// For each `k` from 1 to 19, `(floor(2^T / 10^k), T)` with `T` such that the first lies in
/// `[2^127, 2^128)`, by long division one bit at a time.
const RECIPROCALS: [(u128, i32); 19] = {
    let mut table = [(0u128, 0i32); 19];
    let mut k = 1;
    while k <= 19 {
        let d = U64_POWERS[k] as u128;
        // 10^k has `b` bits, so 2^(b + 127) / 10^k lies in (2^127, 2^128).
        let b = 128 - d.leading_zeros() as i32;
        let t = b + 127;
        let (mut q, mut rem) = (0u128, 0u128);
        let mut i = t;
        while i >= 0 {
            rem = rem * 2 + (i == t) as u128;
            // No bit past the 128th is ever set: `q` is shifted out of nothing there.
            q <<= 1;
            if rem >= d {
                rem -= d;
                q |= 1;
            }
            i -= 1;
        }
        table[k - 1] = (q, t);
        k += 1;
    }
    table
};

/// The powers of ten a `u64` holds.
const U64_POWERS: [u64; 20] = {
    let mut powers = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        powers[i] = powers[i - 1] * 10;
        i += 1;
    }
    powers
};

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn same(text: &str) -> Result<(), TestCaseError> {
        let want = text.parse::<f64>().ok().map(f64::to_bits);
        prop_assert_eq!(read_number(text).map(f64::to_bits), want, "{:?}", text);
        Ok(())
    }

    #[test]
    fn plain_numbers_read_as_the_general_parser_reads_them() {
        for text in [
            "0",
            "-0",
            "+0",
            "-0.0",
            "1500",
            "8.258174958730713",
            "24.3274090916587",
            "17.64144236466869",
            "9007199254740992",
            "9007199254740993",
            "-9007199254740992.000",
            "900719925474099.3",
            "0.1",
            ".5",
            "5.",
            ".",
            "-",
            "+",
            "",
            "1.2.3",
            "--1",
            "1e5",
            "1E-5",
            " 1",
            "1 ",
            "inf",
            "NaN",
            "0000000000000000000001",
            "1234567890123456789",
            "12345678901234567890",
            "0.0000000000000000001",
            "18.973940423960833",
            "599737.9065844222",
            "9007199254740993.5",
            "9999999999999999999",
            "0.9999999999999999999",
            "1844674407370955161.5",
            "0.30000000000000004",
            "-0.30000000000000003",
            "16.509553092590020",
        ] {
            same(text).unwrap();
        }
    }

    /// The quotient's exponent for `m` and `k`, as [`quotient`] picks it.
    fn exponent(m: u64, k: usize) -> i32 {
        let bits = |x: u64| 64 - x.leading_zeros() as i32;
        54 - (bits(m) - bits(U64_POWERS[k]))
    }

    #[test]
    fn the_reciprocals_are_ten_to_the_minus_k_scaled_to_128_bits() {
        for (k, &(r, t)) in (1..).zip(RECIPROCALS.iter()) {
            assert!(r >> 127 == 1, "10^-{k}");
            // r * 10^k < 2^t < (r + 1) * 10^k, each side as its bits above the last 64 and
            // those (t > 128; 10^k is no power of two).
            let d = u128::from(U64_POWERS[k]);
            let low = (r as u64 as u128) * d;
            let below = ((r >> 64) * d + (low >> 64), low as u64);
            let low_next = u128::from(below.1) + d;
            let above = (below.0 + (low_next >> 64), low_next as u64);
            let power = (1u128 << (t - 64), 0u64);
            assert!(below < power && power < above, "10^-{k}");
        }
    }

    proptest! {
        /// The quotient by the reciprocal, where it gives one, is the quotient by division:
        /// the same bits and the same remainder, over the digits and points a log writes.
        #[test]
        fn the_reciprocal_divides_as_division_does(
            m in proptest::prop_oneof![
                1u64..10_000_000_000_000_000_000u64,
                1u64..1 << 20,
                (1u64 << 53) + 1..10_000_000_000_000_000_000u64,
            ],
            k in 1usize..=19,
        ) {
            let s = exponent(m, k);
            if let Some(fast) = by_reciprocal(m, k, s) {
                prop_assert_eq!(fast, divided(m, k, s), "{} / 10^{}", m, k);
            }
        }

        /// Quotients that leave nothing (`m` a multiple of 5^k, so that the reciprocal's
        /// product falls just short of a whole quotient) are left to the division.
        #[test]
        fn a_whole_quotient_is_left_to_the_division(j in 1u64..1 << 40, k in 1usize..=19) {
            let m = j
                .checked_mul(5u64.pow(k as u32))
                .and_then(|m| m.checked_mul(1 << (j % 8)));
            if let Some(m) = m.filter(|&m| m < 10_000_000_000_000_000_000) {
                let s = exponent(m, k);
                if let Some(fast) = by_reciprocal(m, k, s) {
                    prop_assert_eq!(fast, divided(m, k, s), "{} / 10^{}", m, k);
                }
            }
        }

        /// Any field a log may hold reads as the general parser reads it, to the bit: digits,
        /// signs, fractions, exponents, spaces and empty fields, long and short.
        #[test]
        fn any_field_reads_as_the_general_parser_reads_it(
            text in proptest::prop_oneof![
                4 => "[+-]?[0-9]{0,20}(\\.[0-9]{0,20})?",
                2 => "[+-]?[0-9]{0,20}(\\.[0-9]{0,20})?([eE][+-]?[0-9]{1,3})?",
                1 => "[ \t]?[+-]?[0-9.]{0,8}[ \t]?",
                1 => "[0-9a-zA-Z.+\\- ]{0,12}",
                // 14 to 19 digits, many past 2^53: the quotient's rounding.
                4 => "-?[1-9][0-9]{5,8}\\.[0-9]{8,10}",
                1 => "-?0?\\.[0-9]{15,19}",
                1 => "-?[0-9]{15,19}\\.?",
            ],
        ) {
            same(&text)?;
        }

        /// Every float written as Rust writes it reads back as itself, through the plain path
        /// where its digits allow.
        #[test]
        fn any_float_written_reads_back(bits in proptest::num::u64::ANY, scale in 0u32..20) {
            let v = f64::from_bits(bits);
            let shown = format!("{v}");
            same(&shown)?;
            let small = format!("{}", (bits >> 11) as f64 / 10f64.powi(scale as i32));
            same(&small)?;
        }
    }
}
