//! Scenarios: the stream the UI animates, with what it needs to know about it once (the oracle,
//! the windows it touches, the extent of both clocks). The built-in ones are the engine's
//! catalogue (`engine::scenario`); the classroom stream (the reference's seed-7 stream) is the
//! default.

use std::collections::BTreeMap;
use std::sync::Arc;

pub use crate::engine::scenario::ScenarioName;
use crate::engine::stream::{KeyId, Stream};
use crate::engine::timeline::{stream_windows, truth};
use crate::engine::{CellId, WindowFn, WindowId};

/// The stream on screen and what is known about it in advance.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The name shown on screen: a built-in scenario's (`(custom)` added when its dials were
    /// changed), or the path of the file the stream was read from.
    pub name: String,
    /// The events, shared with the engine runs that replay them.
    pub stream: Arc<Stream>,
    /// The true count per (window, key), from the whole stream.
    pub truth: Arc<BTreeMap<CellId, u64>>,
    /// The windows the stream touches, in order. Sessions: every key's oracle sessions, by
    /// start (the rows with all keys selected); the global window: the one window.
    pub windows: Vec<WindowId>,
    /// Sessions only: each key's oracle sessions, by start (the rows with that key selected).
    /// Empty for other windows, whose rows are the same for every key.
    pub sessions: Vec<Vec<WindowId>>,
    /// The windows are sessions (they merge, and differ from key to key).
    pub merging: bool,
    /// The window is the global one: one window per key that never closes.
    pub global: bool,
    /// Event-time extent (ms): from min(0, earliest) to the latest.
    pub event_time: (f64, f64),
    /// Processing-time extent (ms): from min(0, earliest) to the latest.
    pub proc_time: (f64, f64),
    /// Bad rows of the input file skipped under `--on-bad-row skip` (0 for a generated stream).
    pub skipped_rows: u64,
    /// The plot opens following the playhead at this many ms of event time per column (a
    /// scenario's preset: the lesson's, each event its own mark); None: the whole stream.
    pub magnify: Option<f64>,
    /// The input is still open: a live producer may send more events (`app::live`).
    pub open: bool,
}

impl Scenario {
    /// Measures a stream once for the UI: its oracle under `window`, the windows it touches and
    /// the extent of both clocks (from min(0, earliest) to max(1, latest), ms).
    pub fn new(name: impl Into<String>, stream: Stream, window: &WindowFn) -> Scenario {
        let t = truth(&stream, window);
        let mut windows = stream_windows(&t);
        let mut sessions = Vec::new();
        if window.is_merging() {
            // A key's sessions are disjoint; different keys' may share a span (one row).
            windows.sort_unstable();
            windows.dedup();
            sessions = vec![Vec::new(); stream.keys.len()];
            for c in t.keys() {
                if let Some(v) = sessions.get_mut(c.key as usize) {
                    v.push(c.window);
                }
            }
            for v in &mut sessions {
                v.sort_unstable();
            }
        }
        let mut et = (0.0f64, 1.0f64);
        let mut pt = (0.0f64, 1.0f64);
        for e in &stream.events {
            et = (et.0.min(e.event_time), et.1.max(e.event_time));
            pt = (pt.0.min(e.proc_time), pt.1.max(e.proc_time));
        }
        Scenario {
            name: name.into(),
            stream: Arc::new(stream),
            truth: Arc::new(t),
            windows,
            sessions,
            merging: window.is_merging(),
            global: window.is_global(),
            event_time: et,
            proc_time: pt,
            skipped_rows: 0,
            magnify: None,
            open: false,
        }
    }

    /// The classroom stream with 60 s tumbling windows.
    pub fn classroom() -> Scenario {
        Scenario::new(
            "classroom",
            crate::engine::stream::classroom(),
            &WindowFn::Tumbling { size: 60_000 },
        )
    }

    /// A built-in scenario, its plot magnified as it presets.
    pub fn built_in(name: ScenarioName, window: &WindowFn) -> anyhow::Result<Scenario> {
        let preset = name.preset();
        let stream = preset.source.stream()?;
        let mut s = Scenario::new(name.label(), stream, window);
        s.magnify = preset.magnify;
        Ok(s)
    }

    /// The windows table's rows for a key selection, in order: for sessions, the selected
    /// key's oracle sessions (all keys': every key's); for other windows, every window.
    pub fn windows_of(&self, key: Option<KeyId>) -> &[WindowId] {
        match key.and_then(|k| self.sessions.get(k as usize)) {
            Some(v) => v,
            None => &self.windows,
        }
    }

    /// How many events the stream holds.
    pub fn len(&self) -> usize {
        self.stream.len()
    }

    /// Whether the stream holds no events.
    pub fn is_empty(&self) -> bool {
        self.stream.is_empty()
    }

    /// How many distinct keys the stream has.
    pub fn keys(&self) -> usize {
        self.stream.keys.len()
    }
}
