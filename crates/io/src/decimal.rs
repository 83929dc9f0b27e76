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
    let v = if mantissa <= EXACT_INTEGERS {
        let v = mantissa as f64;
        match after_point {
            0 => v,
            k => v / EXACT_POWERS[k],
        }
    } else {
        quotient(mantissa, after_point)
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

/// The float nearest `m / 10^k` (ties to even) for `2^53 < m < 10^19` and `k <= 19`, by
/// integer division: the quotient's first 54 bits and whether anything is left decide the
/// rounding, as a correct parser rounds.
#[inline]
fn quotient(m: u64, k: usize) -> f64 {
    let (num, den) = (u128::from(m), u128::from(U64_POWERS[k]));
    let bits = |x: u128| 128 - x.leading_zeros() as i32;
    // `q = floor(m * 2^s / 10^k)` lies in [2^53, 2^55): at most 118 bits are divided.
    let mut s = 54 - (bits(num) - bits(den));
    let (mut q, mut left) = if s >= 0 {
        let n = num << s;
        (n / den, n % den != 0)
    } else {
        let d = den << -s;
        (num / d, num % d != 0)
    };
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

    proptest! {
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
