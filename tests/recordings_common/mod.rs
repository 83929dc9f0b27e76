//! The real engines' recordings (`tests/real_engines/`, made by hand with Beam's Python SDK and
//! Flink: see its README) as the engine's and the command line's tests read them: a file of
//! the folder as JSON, the cases, a case's log and allowed lateness, how many windows a row of
//! it falls in, and a recording's drops.

use serde_json::Value;

/// The recordings' folder.
pub const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/real_engines");

/// The folder's file `path` (`cases.json`, `results/flink/CASE.json`) read as JSON; a failure
/// names the file.
pub fn read(path: &str) -> Value {
    let text =
        std::fs::read_to_string(format!("{DIR}/{path}")).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Every case of `cases.json`, in its order.
pub fn cases() -> Vec<Value> {
    read("cases.json")["cases"].as_array().unwrap().clone()
}

/// The path of the case's log.
pub fn log_path(case: &Value) -> String {
    format!("{DIR}/{}", case["log"].as_str().unwrap())
}

/// The case's allowed lateness, ms.
pub fn lateness(case: &Value) -> i64 {
    case["allowed_lateness_ms"].as_i64().unwrap()
}

/// How many windows a row of the case falls in: size / slide for sliding windows, else one.
pub fn windows_per_row(case: &Value) -> usize {
    match case["window"]
        .as_str()
        .unwrap()
        .split(':')
        .collect::<Vec<_>>()[..]
    {
        ["sliding", size, slide] => {
            (size.parse::<usize>().unwrap() / slide.parse::<usize>().unwrap()).max(1)
        }
        _ => 1,
    }
}

/// A recording's dropped event times (`dropped_event_times_ms`), sorted, in whole ms.
pub fn recorded_drops(recording: &Value) -> Vec<i64> {
    let mut dropped: Vec<i64> = recording["dropped_event_times_ms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_f64().unwrap() as i64)
        .collect();
    dropped.sort();
    dropped
}
