//! The files the program reads whole (a script, a tour, a recording, slack statistics, a
//! Parquet log from a pipe), each kind with the most it may hold: at most that many bytes are
//! read, so an endless input (`/dev/zero`, `yes |`) is refused in one line naming the file, its
//! kind and the limit instead of filling memory. Logs read line by line (`run --input`) are
//! bounded by their longest line instead.

use std::io::Read;
use std::path::Path;

const MIB: u64 = 1 << 20;

/// A kind of file read whole and the most it may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    /// The kind of file, as a sentence names it ("a tour file").
    pub what: &'static str,
    /// The most bytes it may hold.
    pub bytes: u64,
}

/// `twoclocks script FILE`: Beam's whole file of trigger transcripts is 20 KB.
pub const SCRIPT: Limit = Limit {
    what: "a script file",
    bytes: 16 * MIB,
};

/// `tour --tour FILE`: the built-in tour is 40 KB.
pub const TOUR: Limit = Limit {
    what: "a tour file",
    bytes: 16 * MIB,
};

/// `--replay FILE`: a line of some 20 bytes a key press, click or drag; an hour of dragging
/// at 60 a second is 4 MB.
pub const RECORDING: Limit = Limit {
    what: "a recording",
    bytes: 64 * MIB,
};

/// `advise --stats`, a file or all the parts of a directory together: a row a (kind, window,
/// key, slack bin), some 63 bytes in CSV and 2.4 in Parquet as DuckDB writes them, so some 17
/// million rows in CSV.
pub const STATISTICS: Limit = Limit {
    what: "a statistics file (all its parts together)",
    bytes: 1024 * MIB,
};

/// `--input` in Parquet from a pipe or standard input, or compressed as a whole, which must be
/// held whole to be read (a plain Parquet file at a path is read a batch of rows at a time
/// from the pages its footer places and has no such limit).
pub const PIPED_PARQUET: Limit = Limit {
    what: "a Parquet log from a pipe or compressed whole (a plain Parquet file has no such limit)",
    bytes: 2048 * MIB,
};

impl Limit {
    /// The limit as a user reads it: `16 MiB`, `1 GiB`.
    pub fn shown(&self) -> String {
        if self.bytes >= 1024 * MIB && self.bytes.is_multiple_of(1024 * MIB) {
            format!("{} GiB", self.bytes / (1024 * MIB))
        } else if self.bytes >= MIB && self.bytes.is_multiple_of(MIB) {
            format!("{} MiB", self.bytes / MIB)
        } else {
            format!("{} bytes", self.bytes)
        }
    }

    /// The same limit with `bytes` left of it (a directory's later parts).
    pub fn leaving(&self, bytes: u64) -> Limit {
        Limit {
            what: self.what,
            bytes: self.bytes.saturating_sub(bytes),
        }
    }
}

/// Why a file was not read whole.
#[derive(Debug)]
pub enum Unread {
    /// The system's error reading it.
    Failed(std::io::Error),
    /// It holds more than its kind may (the limit, as the whole of its kind allows).
    TooLarge(Limit),
}

impl std::fmt::Display for Unread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unread::Failed(e) => write!(f, "cannot be read ({e})"),
            Unread::TooLarge(limit) => write!(
                f,
                "more than {}; {} is at most {}",
                limit.shown(),
                limit.what,
                limit.shown()
            ),
        }
    }
}

impl std::error::Error for Unread {}

/// Everything `input` holds, if it is at most `limit.bytes` (one byte more is read, to know).
pub fn read(input: impl Read, limit: Limit) -> Result<Vec<u8>, Unread> {
    let mut bytes = Vec::new();
    input
        .take(limit.bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(Unread::Failed)?;
    if bytes.len() as u64 > limit.bytes {
        return Err(Unread::TooLarge(limit));
    }
    Ok(bytes)
}

/// The file at `path`, whole, if it holds at most `limit.bytes` (a regular file larger than
/// that is refused by its size, unread).
pub fn read_file(path: &Path, limit: Limit) -> Result<Vec<u8>, Unread> {
    let file = std::fs::File::open(path).map_err(Unread::Failed)?;
    if file
        .metadata()
        .is_ok_and(|m| m.is_file() && m.len() > limit.bytes)
    {
        return Err(Unread::TooLarge(limit));
    }
    read(file, limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: Limit = Limit {
        what: "a small file",
        bytes: 4,
    };

    #[test]
    fn a_file_of_the_limit_is_read_and_one_byte_more_is_refused() {
        assert_eq!(read(&b"1234"[..], SMALL).unwrap(), b"1234");
        assert_eq!(read(&b""[..], SMALL).unwrap(), b"");
        let err = read(&b"12345"[..], SMALL).unwrap_err();
        assert_eq!(
            err.to_string(),
            "more than 4 bytes; a small file is at most 4 bytes"
        );
        // An endless input stops at the limit.
        let err = read(std::io::repeat(b'y'), SMALL).unwrap_err();
        assert!(matches!(err, Unread::TooLarge(_)), "{err}");
    }

    #[test]
    fn limits_are_shown_in_their_unit() {
        assert_eq!(SCRIPT.shown(), "16 MiB");
        assert_eq!(STATISTICS.shown(), "1 GiB");
        assert_eq!(PIPED_PARQUET.shown(), "2 GiB");
        assert_eq!(STATISTICS.leaving(STATISTICS.bytes + 1).bytes, 0);
    }
}
