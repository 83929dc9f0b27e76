//! How a value the user wrote is shown back in a spec's error message: between quotes, with
//! control characters escaped, and cut after [`SHOWN_CHARS`] characters with an ellipsis and
//! the value's full length, so that a 1 MB value gives a one-line message.

use std::fmt::Write;

/// The most characters of a value an error message shows.
pub const SHOWN_CHARS: usize = 80;

/// `value` quoted for an error message: `'10x'`, `'\u{0}a'`, `'9999…' (100000 characters)`.
pub fn quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len().min(4 * SHOWN_CHARS) + 2);
    out.push('\'');
    let mut chars = value.chars();
    for c in chars.by_ref().take(SHOWN_CHARS) {
        if c.is_control() {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    if chars.next().is_some() {
        let _ = write!(out, "…' ({} characters)", value.chars().count());
    } else {
        out.push('\'');
    }
    out
}
