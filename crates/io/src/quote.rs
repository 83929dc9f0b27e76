//! How a value the user gave is shown back in an error message: between quotes, with control
//! characters escaped (a message never moves the cursor or changes colours), and cut after
//! [`SHOWN_CHARS`] characters with an ellipsis and the value's full length, so a 1 MB field
//! gives a one-line message. A file's path is shown escaped and cut too, keeping its end (the
//! file's name): [`path`]. A write past the file-size limit says so: [`file_size_limit_named`].

use std::fmt::Write;
use std::path::Path;

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

/// A file's path for an error message: control characters escaped and, past [`SHOWN_CHARS`]
/// characters, only its last ones after an ellipsis (`…/deep/dir/events.csv`), the end being
/// what names the file.
pub fn path(path: &Path) -> String {
    let text = path.display().to_string();
    let count = text.chars().count();
    let mut out = String::with_capacity(text.len().min(4 * SHOWN_CHARS) + 3);
    if count > SHOWN_CHARS {
        out.push('…');
    }
    for c in text.chars().skip(count.saturating_sub(SHOWN_CHARS)) {
        push_shown(&mut out, c);
    }
    out
}

fn push_shown(out: &mut String, c: char) {
    if c.is_control() {
        let _ = write!(out, "\\u{{{:x}}}", c as u32);
    } else {
        out.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_values_are_quoted_whole() {
        assert_eq!(quoted("10x"), "'10x'");
        assert_eq!(quoted(""), "''");
        assert_eq!(quoted(&"é".repeat(80)), format!("'{}'", "é".repeat(80)));
    }

    #[test]
    fn long_values_are_cut_with_their_length() {
        let q = quoted(&"é".repeat(1 << 20));
        assert_eq!(q, format!("'{}…' (1048576 characters)", "é".repeat(80)));
    }

    #[test]
    fn long_paths_keep_their_end() {
        assert_eq!(path(Path::new("/tmp/e.csv")), "/tmp/e.csv");
        let deep = format!("/{}/events.csv", "d/".repeat(200));
        let shown = path(Path::new(&deep));
        assert_eq!(shown.chars().count(), SHOWN_CHARS + 1);
        assert!(
            shown.starts_with('…') && shown.ends_with("d/d//events.csv"),
            "{shown}"
        );
        assert_eq!(path(Path::new("a\nb.csv")), "a\\u{a}b.csv");
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(quoted("a\0b\u{1b}[31m\n"), "'a\\u{0}b\\u{1b}[31m\\u{a}'");
        assert_eq!(escaped("\t"), "\\u{9}");
    }
}

/// `message` with the system's words for a write past the file-size limit (EFBIG: `File too
/// large (os error 27)`, which names no limit) saying which limit it met. The program ignores
/// SIGXFSZ, so such a write fails with this error rather than ending the program.
pub fn file_size_limit_named(message: &str) -> String {
    #[cfg(unix)]
    {
        let efbig = std::io::Error::from_raw_os_error(libc::EFBIG).to_string();
        if message.contains(&efbig) {
            return message.replace(&efbig, "the file-size limit (ulimit -f) was reached");
        }
    }
    message.to_string()
}

#[cfg(all(test, unix))]
mod file_size_limit {
    use super::file_size_limit_named;

    #[test]
    fn a_write_past_the_limit_names_it() {
        let e = std::io::Error::from_raw_os_error(libc::EFBIG);
        assert_eq!(
            file_size_limit_named(&format!("cannot write 'x.jsonl': {e}")),
            "cannot write 'x.jsonl': the file-size limit (ulimit -f) was reached"
        );
        assert_eq!(file_size_limit_named("disk full"), "disk full");
    }
}
