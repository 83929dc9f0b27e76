//! Event logs as CSV (`event_time_ms,proc_time_ms,key`) and JSON lines: reading a user's log
//! into a [`Stream`] (sorted into processing order, every bad row an error naming its line),
//! and writing a stream out with floats at full round-trip precision.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};

use crate::engine::{Event, Stream};
use crate::io::quote::{escaped, quoted};

/// The header an event log must start with.
pub const HEADER: [&str; 3] = ["event_time_ms", "proc_time_ms", "key"];

/// Times beyond ±2^53 ms lose integer precision and are refused.
const TIME_LIMIT: f64 = 9_007_199_254_740_992.0;

/// Reads an event log from a file.
pub fn read_events(path: &Path) -> Result<Stream> {
    let name = escaped(&path.display().to_string());
    let file = std::fs::File::open(path).with_context(|| format!("cannot open {name}"))?;
    read_events_from(file, &name)
}

/// Reads an event log; `name` is used in error messages.
pub fn read_events_from<R: Read>(reader: R, name: &str) -> Result<Stream> {
    let mut rdr = ::csv::ReaderBuilder::new()
        .has_headers(true)
        .trim(::csv::Trim::All)
        .flexible(true)
        .from_reader(reader);
    let header = rdr
        .headers()
        .map_err(|e| anyhow!("{name}: cannot read the header: {e}"))?
        .clone();
    let got: Vec<&str> = header.iter().collect();
    if got != HEADER {
        bail!(
            "{name}, line 1: the header must be `{}`, found {}",
            HEADER.join(","),
            quoted(&got.join(","))
        );
    }
    let mut keys: Vec<String> = Vec::new();
    let mut ids: HashMap<String, u32> = HashMap::new();
    let mut events = Vec::new();
    let mut record = ::csv::StringRecord::new();
    loop {
        let more = rdr.read_record(&mut record).map_err(|e| {
            let line = e.position().map_or(0, |p| p.line());
            anyhow!("{name}, line {line}: {e}")
        })?;
        if !more {
            break;
        }
        let line = record.position().map_or(0, |p| p.line());
        if record.len() != 3 {
            bail!(
                "{name}, line {line}: expected 3 fields (event_time_ms,proc_time_ms,key), found {}",
                record.len()
            );
        }
        let et = parse_time(&record[0], "event_time_ms", name, line)?;
        let pt = parse_time(&record[1], "proc_time_ms", name, line)?;
        let key = &record[2];
        if key.is_empty() {
            bail!("{name}, line {line}: the key is empty");
        }
        let id = match ids.get(key) {
            Some(&id) => id,
            None => {
                if keys.len() >= u32::MAX as usize {
                    bail!("{name}, line {line}: too many distinct keys");
                }
                let id = keys.len() as u32;
                keys.push(key.to_string());
                ids.insert(key.to_string(), id);
                id
            }
        };
        events.push(Event {
            event_time: et,
            proc_time: pt,
            key: id,
        });
    }
    // Key ids follow the names' order, so that output is ordered by key name whatever row a
    // key first appears on (a generated stream and its CSV give the same output).
    let mut order: Vec<u32> = (0..keys.len() as u32).collect();
    order.sort_by(|&a, &b| keys[a as usize].cmp(&keys[b as usize]));
    let mut new_id = vec![0u32; keys.len()];
    for (rank, &old) in order.iter().enumerate() {
        new_id[old as usize] = rank as u32;
    }
    for e in &mut events {
        e.key = new_id[e.key as usize];
    }
    let keys = order.iter().map(|&i| keys[i as usize].clone()).collect();
    Ok(Stream::from_unordered(events, keys))
}

fn parse_time(field: &str, column: &str, name: &str, line: u64) -> Result<f64> {
    let v: f64 = field.parse().map_err(|_| {
        anyhow!(
            "{name}, line {line}: {column} {} is not a number of milliseconds",
            quoted(field)
        )
    })?;
    if !v.is_finite() || v.abs() > TIME_LIMIT {
        bail!(
            "{name}, line {line}: {column} {} is out of range (finite, within ±2^53 ms)",
            quoted(field)
        );
    }
    Ok(v)
}

/// Writes a stream as CSV with the standard header.
pub fn write_csv<W: Write>(stream: &Stream, out: W) -> Result<()> {
    let mut w = ::csv::Writer::from_writer(out);
    w.write_record(HEADER)?;
    for e in &stream.events {
        w.write_record([
            e.event_time.to_string(),
            e.proc_time.to_string(),
            stream.key_name(e.key).to_string(),
        ])?;
    }
    w.flush()?;
    Ok(())
}

/// Writes a stream as JSON lines: `{"event_time_ms":…,"proc_time_ms":…,"key":"a"}`.
pub fn write_jsonl<W: Write>(stream: &Stream, mut out: W) -> Result<()> {
    for e in &stream.events {
        let row = serde_json::json!({
            "event_time_ms": e.event_time,
            "proc_time_ms": e.proc_time,
            "key": stream.key_name(e.key),
        });
        serde_json::to_writer(&mut out, &row)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_sorts_and_interns() {
        let s = read_events_from(
            "event_time_ms,proc_time_ms,key\n10,30,x\n5,20,y\n7,30,x\n".as_bytes(),
            "t.csv",
        )
        .unwrap();
        assert_eq!(s.keys, vec!["x", "y"]);
        let named = read_events_from(
            "event_time_ms,proc_time_ms,key\n1,2,zed\n1,3,amy\n".as_bytes(),
            "t.csv",
        )
        .unwrap();
        assert_eq!(named.keys, vec!["amy", "zed"]);
        assert_eq!(named.key_name(named.events[0].key), "zed");
        let pts: Vec<f64> = s.events.iter().map(|e| e.proc_time).collect();
        assert_eq!(pts, vec![20.0, 30.0, 30.0]);
        assert_eq!(s.events[1].event_time, 10.0); // stable for equal processing times
    }

    #[test]
    fn bad_rows_name_file_line_and_value() {
        let err = read_events_from(
            "event_time_ms,proc_time_ms,key\n1,2,a\n3,oops,b\n".as_bytes(),
            "t.csv",
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            err,
            "t.csv, line 3: proc_time_ms 'oops' is not a number of milliseconds"
        );
        let err = read_events_from("a,b,c\n".as_bytes(), "t.csv")
            .unwrap_err()
            .to_string();
        assert!(err.contains("line 1"), "{err}");
        let err = read_events_from("event_time_ms,proc_time_ms,key\n1,2\n".as_bytes(), "t.csv")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("t.csv, line 2:"), "{err}");
        let err = read_events_from(
            "event_time_ms,proc_time_ms,key\nNaN,2,a\n".as_bytes(),
            "t.csv",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("out of range"), "{err}");
    }

    #[test]
    fn csv_round_trips_exactly() {
        let s = crate::engine::stream::generate(&crate::engine::StreamParams {
            events: 300,
            ..Default::default()
        })
        .unwrap();
        let mut buf = Vec::new();
        write_csv(&s, &mut buf).unwrap();
        let back = read_events_from(buf.as_slice(), "mem").unwrap();
        assert_eq!(back, s);
        assert_eq!(back.len(), s.len());
        for (a, b) in back.events.iter().zip(&s.events) {
            assert_eq!(a.event_time.to_bits(), b.event_time.to_bits());
            assert_eq!(a.proc_time.to_bits(), b.proc_time.to_bits());
            assert_eq!(back.key_name(a.key), s.key_name(b.key));
        }
    }
}
