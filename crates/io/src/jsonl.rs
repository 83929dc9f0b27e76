//! Event logs as JSON Lines: one object per line, its members named by the column flags
//! (other members are ignored). A time is a number (in the `--time-format` unit, ms by default)
//! or a text (a number, or an RFC 3339 time); a key is a text or an integer.

use std::borrow::Cow;
use std::fmt;
use std::io::Read;

use anyhow::{anyhow, bail, Result};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use crate::csv::{read_in_two, LineRow, LogLines, RowParser};
use crate::quote::quoted;
use crate::rows::{check_key, read_time, RawTime, Rows, SourceOptions, SourceReport};
use crate::spool::Events;
use crate::times::Spelling;

/// Reads JSON Lines rows with the members named by `opts`.
pub fn read_rows<R: Read>(
    reader: R,
    name: &str,
    opts: &SourceOptions,
) -> Result<(Events, SourceReport)> {
    let mut lines = LogLines::new(reader, name);
    let mut rows = Rows::new(opts, name, "line");
    let parser = JsonRows {
        name,
        opts,
        reads_proc_time: rows.reads_proc_time(),
    };
    read_in_two(&mut lines, &mut rows, name, &parser)?;
    rows.finish("the input holds no events")
}

/// A JSON Lines log's rows, for the two-thread reader.
struct JsonRows<'a> {
    name: &'a str,
    opts: &'a SourceOptions,
    reads_proc_time: bool,
}

impl RowParser for JsonRows<'_> {
    fn parse<'t>(
        &self,
        text: &'t str,
        line: u64,
        _scratch: &mut Vec<(usize, usize)>,
    ) -> Result<LineRow<'t>> {
        parse_row(text, self.opts, self.reads_proc_time)
            .map_err(|e| anyhow!("{}, line {line}: {e}", self.name))
    }
}

/// What a JSON value is, for an error, from its text as written.
fn kind(raw: &str) -> &'static str {
    match raw.trim_start().as_bytes().first() {
        Some(b'n') => "null",
        Some(b't' | b'f') => "a boolean",
        Some(b'"') => "a text",
        Some(b'[') => "an array",
        Some(b'{') => "an object",
        _ => "a number",
    }
}

/// Which of a row's columns (event time, processing time, key) a member's name is: more than
/// one when two column flags name the same member.
struct Name<'c>(&'c [&'c str; 3]);

impl<'de> DeserializeSeed<'de> for Name<'_> {
    type Value = [bool; 3];

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<[bool; 3], D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Name<'_> {
    type Value = [bool; 3];

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a member's name")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<[bool; 3], E> {
        Ok(self.0.map(|column| column == name))
    }
}

/// The members of a row's object that are read, each the JSON text of its value as written,
/// and the first column named twice; every other member is skipped unread.
struct Members<'de> {
    values: [Option<&'de RawValue>; 3],
    twice: Option<usize>,
}

/// Reads a row's object for the members named `columns`.
struct Object<'c>(&'c [&'c str; 3]);

impl<'de> DeserializeSeed<'de> for Object<'_> {
    type Value = Members<'de>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Members<'de>, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Object<'_> {
    type Value = Members<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Members<'de>, A::Error> {
        let mut members = Members {
            values: [None; 3],
            twice: None,
        };
        while let Some(is) = map.next_key_seed(Name(self.0))? {
            if is == [false; 3] {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            let value: &'de RawValue = map.next_value()?;
            for (i, _) in is.iter().enumerate().filter(|(_, &is)| is) {
                if members.values[i].is_some() {
                    members.twice.get_or_insert(i);
                }
                members.values[i] = Some(value);
            }
        }
        Ok(members)
    }
}

/// One row's event time, processing time (when read), key and how its times were spelled.
/// Numbers are read from their text as written, by the parser CSV fields go through, so a time
/// reads the same to the last bit from either format; a member read (a column) given twice is
/// refused.
pub(crate) fn parse_row<'t>(
    text: &'t str,
    opts: &SourceOptions,
    reads_proc_time: bool,
) -> Result<LineRow<'t>> {
    let columns = [
        opts.event_time_col.as_str(),
        opts.proc_time_col.as_str(),
        opts.key_col.as_str(),
    ];
    let mut de = serde_json::Deserializer::from_str(text);
    let members = Object(&columns)
        .deserialize(&mut de)
        .and_then(|m| de.end().map(|()| m))
        .map_err(|e| match serde_json::from_str::<IgnoredAny>(text) {
            // Valid JSON, but not an object.
            Ok(_) if !text.trim_start().starts_with('{') => {
                let value = text.trim();
                anyhow!("{} is {}, not a JSON object", quoted(value), kind(value))
            }
            _ => anyhow!("not a JSON object ({e})"),
        })?;
    if let Some(i) = members.twice {
        bail!(
            "the member {} appears twice in the object; each column is named once",
            quoted(columns[i])
        );
    }
    let member = |i: usize| {
        members.values[i]
            .map(RawValue::get)
            .filter(|v| *v != "null")
    };
    let time = |i: usize| -> Result<(f64, Spelling)> {
        let column = columns[i];
        let Some(raw) = member(i) else {
            bail!("{column} is missing");
        };
        match raw.as_bytes().first() {
            Some(b'"') => {
                let text: Cow<'_, str> = serde_json::from_str(raw)
                    .map_err(|e| anyhow!("{column} {} is not a text ({e})", quoted(raw)))?;
                read_time(RawTime::Text(&text), opts.time_format, column)
            }
            Some(b'-' | b'0'..=b'9') => read_time(RawTime::Written(raw), opts.time_format, column),
            _ => bail!(
                "{column} {} is {}, not a time (a number or an RFC 3339 text)",
                quoted(raw),
                kind(raw)
            ),
        }
    };
    let (et, mut spelling) = time(0)?;
    let pt = if reads_proc_time {
        let (pt, spelled) = time(1)?;
        spelling = spelling.or(spelled);
        Some(pt)
    } else {
        None
    };
    let key_col = columns[2];
    let Some(raw) = member(2) else {
        bail!("{key_col} is missing");
    };
    let key: Cow<'t, str> = match raw.as_bytes().first() {
        // A text without escapes is its own bytes between the quotes: the parser has already
        // checked it is a JSON string, so nothing in it needs decoding.
        Some(b'"') if raw.len() >= 2 && raw.ends_with('"') && !raw.contains('\\') => {
            Cow::Borrowed(&raw[1..raw.len() - 1])
        }
        Some(b'"') => Cow::Owned(
            serde_json::from_str::<String>(raw)
                .map_err(|e| anyhow!("{key_col} {} is not a text ({e})", quoted(raw)))?,
        ),
        // An integer as written: its digits are the key, as in a CSV field.
        Some(b'-' | b'0'..=b'9') if !raw.contains(['.', 'e', 'E']) => Cow::Borrowed(raw),
        _ => bail!(
            "{key_col} {} is {}, not a key (a text or an integer)",
            quoted(raw),
            kind(raw)
        ),
    };
    check_key(&key, key_col)?;
    Ok((et, pt, key, spelling))
}

#[cfg(test)]
mod tests {
    //! The two-thread reading against one thread's, line by line, on JSON Lines.
    use super::*;
    use crate::rows::{outcome, OnBadRow};

    fn one_thread(input: &[u8], opts: &SourceOptions) -> String {
        let name = "t.jsonl";
        let result = (|| -> Result<(Events, SourceReport)> {
            let mut lines = LogLines::new(input, name);
            let mut rows = Rows::new(opts, name, "line");
            let reads_proc_time = rows.reads_proc_time();
            while let Some((line, text)) = lines.next_line()? {
                let parsed = text.and_then(|text| {
                    parse_row(text, opts, reads_proc_time)
                        .map_err(|e| anyhow!("{name}, line {line}: {e}"))
                });
                match parsed {
                    Ok((et, pt, key, spelling)) => {
                        rows.spelled(spelling);
                        rows.push(line, et, pt, &key)?
                    }
                    Err(e) => rows.bad(line, e)?,
                }
            }
            rows.finish("the input holds no events")
        })();
        outcome(result)
    }

    #[test]
    fn two_threads_read_what_one_does() {
        let mut log = String::new();
        for i in 0..30_000u32 {
            match i {
                7 => {
                    log.push_str("{\"event_time_ms\":\"soon\",\"proc_time_ms\":1,\"key\":\"a\"}\n")
                }
                5_000 => log.push_str("[1,2,3]\n"),
                9_001 => log.push_str("   \n"),
                17_000 => {
                    log.push_str("{\"event_time_ms\":1,\"proc_time_ms\":2,\"key\":\"a\\tb\"}\n")
                }
                29_999 => log.push_str("{\"event_time_ms\":1,\"proc_time_ms\":2}\n"),
                _ => log.push_str(&format!(
                    "{{\"event_time_ms\":{i}.25,\"proc_time_ms\":{},\"key\":\"k{}\"}}\n",
                    i + 9,
                    i % 13
                )),
            }
        }
        let skip = SourceOptions {
            on_bad_row: OnBadRow::Skip,
            ..SourceOptions::default()
        };
        let few = SourceOptions {
            max_rows: 10_000,
            on_bad_row: OnBadRow::Skip,
            ..SourceOptions::default()
        };
        for opts in [&SourceOptions::default(), &skip, &few] {
            let one = one_thread(log.as_bytes(), opts);
            let two = outcome(read_rows(log.as_bytes(), "t.jsonl", opts));
            assert!(
                one == two,
                "{:?}: {} / {}",
                opts.on_bad_row,
                &one[..one.len().min(200)],
                &two[..two.len().min(200)]
            );
        }
        let skipped = outcome(read_rows(log.as_bytes(), "t.jsonl", &skip));
        assert!(
            skipped.contains("skipped_rows: 5,"),
            "{}",
            &skipped[skipped.len() - 300..]
        );
    }

    #[test]
    fn a_time_past_the_range_is_refused_not_rounded_into_it() {
        use crate::rows::TimeFormat;
        let read = |format: Option<TimeFormat>, line: &str| {
            let opts = SourceOptions {
                time_format: format,
                ..SourceOptions::default()
            };
            outcome(read_rows(line.as_bytes(), "t.jsonl", &opts))
        };
        let line = |et: &str, pt: &str| {
            format!("{{\"event_time_ms\":{et},\"proc_time_ms\":{pt},\"key\":\"a\"}}\n")
        };
        // 2^53 + 1 ms was read as 2^53, as a number and as a text.
        for (format, et, pt, error) in [
            (
                None,
                "9007199254740993",
                "1",
                "event_time_ms '9007199254740993'",
            ),
            (
                None,
                "\"9007199254740993\"",
                "1",
                "event_time_ms '9007199254740993'",
            ),
            (
                None,
                "1",
                "-9007199254740992.5",
                "proc_time_ms '-9007199254740992.5'",
            ),
            (
                Some(TimeFormat::Us),
                "9007199254740992001",
                "1",
                "event_time_ms '9007199254740992001'",
            ),
            (
                Some(TimeFormat::Us),
                "\"9007199254740992001\"",
                "1",
                "event_time_ms '9007199254740992001'",
            ),
        ] {
            let got = read(format, &line(et, pt));
            let want = format!("error: t.jsonl, line 1: {error} is out of range");
            assert!(got.starts_with(&want), "{et} {pt}: {got}");
        }
        let got = read(None, &line("9007199254740992", "\"-9.007199254740992e15\""));
        assert!(got.contains("event_time: 9007199254740992.0"), "{got}");
        let got = read(
            Some(TimeFormat::Ns),
            &line("1700000000123456789", "\"1700000000223456789\""),
        );
        let ms = 1_700_000_000_123_456_789u64 as f64 / 1e6;
        assert!(got.contains(&format!("event_time: {ms:?}")), "{got}");
    }
}
