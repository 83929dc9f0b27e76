//! How a value the user wrote is shown back in an error message: between quotes, with control
//! characters escaped (a message never moves the cursor or changes colours), and cut after
//! [`SHOWN_CHARS`] characters with an ellipsis and the value's full length, so that a 1 MB
//! value gives a one-line message. The specs' errors here and the inputs' errors in io both
//! show values so.

use std::fmt::Write;

/// The most characters of a value an error message shows.
pub const SHOWN_CHARS: usize = 80;

/// `value` quoted for an error message: `'10x'`, `'\u{0}a'`, `'9999…' (100000 characters)`.
pub fn quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len().min(4 * SHOWN_CHARS) + 2);
    out.push('\'');
    let mut chars = value.chars();
    for c in chars.by_ref().take(SHOWN_CHARS) {
        push_shown(&mut out, c);
    }
    if chars.next().is_some() {
        let _ = write!(out, "…' ({} characters)", value.chars().count());
    } else {
        out.push('\'');
    }
    out
}

/// `value` with control characters escaped, not cut (for values known to be short).
pub fn escaped(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        push_shown(&mut out, c);
    }
    out
}

/// `c` onto `out`, a control character as its `\u{…}` escape.
fn push_shown(out: &mut String, c: char) {
    if c.is_control() {
        let _ = write!(out, "\\u{{{:x}}}", c as u32);
    } else {
        out.push(c);
    }
}
