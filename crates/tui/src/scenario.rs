//! Scenarios: the stream the UI animates, its name, and what is known about it once: its
//! oracle (the engine's: the true counts, the windows it touches, the extent of both clocks). The built-in ones are the engine's
//! catalogue (`engine::scenario`); the classroom stream (the reference's seed-7 stream) is the
//! default.

use std::sync::Arc;

pub use twoclocks_engine::oracle::Oracle;
pub use twoclocks_engine::scenario::ScenarioName;
use twoclocks_engine::stream::{KeyId, Stream};
use twoclocks_engine::{WindowFn, WindowId};

/// The stream on screen and what is known about it in advance (the engine's [`Oracle`]).
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The name shown on screen: a built-in scenario's (`(custom)` added when its dials were
    /// changed), or the path of the file the stream was read from.
    pub name: String,
    /// The events, shared with the engine runs that replay them.
    pub stream: Arc<Stream>,
    /// What is true of the stream as a whole: the true count per cell, the windows it
    /// touches, each key's sessions, the extent of both clocks.
    pub oracle: Oracle,
    /// Bad rows of the input file skipped under `--on-bad-row skip` (0 for a generated stream).
    pub skipped_rows: u64,
    /// The plot opens following the playhead at this many ms of event time per column (a
    /// scenario's preset: the lesson's, each event its own mark); None: the whole stream.
    pub magnify: Option<f64>,
    /// The input is still open: a live producer may send more events (`app::live`).
    pub open: bool,
}

impl Scenario {
    /// A stream measured once for the UI: its oracle under `window` (the engine's).
    pub fn new(name: impl Into<String>, stream: Stream, window: &WindowFn) -> Scenario {
        Scenario {
            name: name.into(),
            oracle: Oracle::new(&stream, window),
            stream: Arc::new(stream),
            skipped_rows: 0,
            magnify: None,
            open: false,
        }
    }

    /// The classroom stream with 60 s tumbling windows.
    pub fn classroom() -> Scenario {
        Scenario::new(
            "classroom",
            twoclocks_engine::stream::classroom(),
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

    /// The windows table's rows for a key selection, in order ([`Oracle::windows_of`]).
    pub fn windows_of(&self, key: Option<KeyId>) -> &[WindowId] {
        self.oracle.windows_of(key)
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
