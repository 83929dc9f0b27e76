//! How a value the user gave is shown back in an error message: the engine's [`quoted`] and
//! [`escaped`] (between quotes, control characters escaped, cut after [`SHOWN_CHARS`]
//! characters with the value's full length), which the specs' errors use too, and here what
//! only files need: a path shown escaped and cut keeping its end, the file's name ([`path`]),
//! and a write past the file-size limit named ([`file_size_limit_named`]).

use std::path::Path;

pub use twoclocks_engine::quote::{escaped, quoted, SHOWN_CHARS};

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
    let tail: String = text
        .chars()
        .skip(count.saturating_sub(SHOWN_CHARS))
        .collect();
    out.push_str(&escaped(&tail));
    out
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
