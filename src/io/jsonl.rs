//! Event logs as JSON Lines: one object per line, its members named by the column flags
//! (other members are ignored). A time is a number (in the `--time-format` unit, ms by default)
//! or a text (a number, or an RFC 3339 time); a key is a text or an integer.

use std::borrow::Cow;
use std::io::Read;

use anyhow::{anyhow, bail, Result};
use serde_json::Value;

use crate::io::csv::LogLines;
use crate::io::quote::quoted;
use crate::io::source::{check_key, time_ms, RawTime, Rows, SourceOptions, SourceReport};
use crate::io::spool::Events;

/// Reads JSON Lines rows with the members named by `opts`.
pub fn read_rows<R: Read>(
    reader: R,
    name: &str,
    opts: &SourceOptions,
) -> Result<(Events, SourceReport)> {
    let mut lines = LogLines::new(reader, name);
    let mut rows = Rows::new(opts, name, "line");
    let reads_proc_time = rows.reads_proc_time();
    while let Some((line, text)) = lines.next_line()? {
        let parsed = text.and_then(|text| {
            parse_row(text, opts, reads_proc_time).map_err(|e| anyhow!("{name}, line {line}: {e}"))
        });
        match parsed {
            Ok((et, pt, key)) => rows.push(line, et, pt, &key)?,
            Err(e) => rows.bad(line, e)?,
        }
    }
    rows.finish("the input holds no events")
}

/// What a JSON value is, for an error.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a text",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A value as an error shows it: cut short.
fn shown(v: &Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(40) {
        Some((cut, _)) => quoted(&format!("{}…", &text[..cut])),
        None => quoted(&text),
    }
}

/// One row's event time, processing time (when read) and key.
pub(crate) fn parse_row(
    text: &str,
    opts: &SourceOptions,
    reads_proc_time: bool,
) -> Result<(f64, Option<f64>, String)> {
    let value: Value =
        serde_json::from_str(text).map_err(|e| anyhow!("not a JSON object ({e})"))?;
    let Value::Object(mut object) = value else {
        bail!("{} is {}, not a JSON object", shown(&value), kind(&value));
    };
    let time = |object: &serde_json::Map<String, Value>, column: &str| -> Result<f64> {
        match object.get(column) {
            None | Some(Value::Null) => bail!("{column} is missing"),
            Some(Value::Number(n)) => {
                let v = n
                    .as_f64()
                    .ok_or_else(|| anyhow!("{} {n} is not a number", quoted(column)))?;
                time_ms(RawTime::Number(v), opts.time_format, column)
            }
            Some(Value::String(s)) => time_ms(RawTime::Text(s), opts.time_format, column),
            Some(v) => bail!(
                "{} {} is {}, not a time (a number or an RFC 3339 text)",
                column,
                shown(v),
                kind(v)
            ),
        }
    };
    let et = time(&object, &opts.event_time_col)?;
    let pt = if reads_proc_time {
        Some(time(&object, &opts.proc_time_col)?)
    } else {
        None
    };
    let key: Cow<'_, str> = match object.remove(&opts.key_col) {
        None | Some(Value::Null) => bail!("{} is missing", opts.key_col),
        Some(Value::String(s)) => Cow::Owned(s),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Cow::Owned(n.to_string()),
        Some(v) => bail!(
            "{} {} is {}, not a key (a text or an integer)",
            opts.key_col,
            shown(&v),
            kind(&v)
        ),
    };
    check_key(&key, &opts.key_col)?;
    Ok((et, pt, key.into_owned()))
}
