//! A scenario opened for a run the user steers: the stream, its name, and what is known about
//! it once, its [`Oracle`] (the true counts, the windows it touches, each key's sessions, the
//! extent of both clocks). A live input's scenario starts empty and grows as rows arrive.

use std::sync::Arc;

use super::ScenarioName;
use crate::oracle::Oracle;
use crate::stream::{KeyId, ParamsError, Stream};
use crate::{WindowFn, WindowId};

/// The stream a session runs and what is known about it in advance (the [`Oracle`]).
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The name shown: a built-in scenario's (`(custom)` added when its dials were changed),
    /// or the path of the file the stream was read from.
    pub name: String,
    /// The events, shared with the runs that replay them.
    pub stream: Arc<Stream>,
    /// What is true of the stream as a whole: the true count per cell, the windows it
    /// touches, each key's sessions, the extent of both clocks.
    pub oracle: Oracle,
    /// Bad rows of the input file skipped under `--on-bad-row skip` (0 for a generated stream).
    pub skipped_rows: u64,
    /// The built-in scenario whose preset made the stream, if one did (its generator's dials
    /// may have been changed since).
    pub built_in: Option<ScenarioName>,
    /// The input is still open: a live producer may send more events.
    pub open: bool,
}

impl Scenario {
    /// A stream measured once: its oracle under `window`.
    pub fn new(name: impl Into<String>, stream: Stream, window: &WindowFn) -> Scenario {
        Scenario {
            name: name.into(),
            oracle: Oracle::new(&stream, window),
            stream: Arc::new(stream),
            skipped_rows: 0,
            built_in: None,
            open: false,
        }
    }

    /// The classroom stream with 60 s tumbling windows.
    pub fn classroom() -> Scenario {
        Scenario::new(
            "classroom",
            Stream::classroom(),
            &WindowFn::Tumbling {
                size: 60_000,
                offset: 0,
            },
        )
    }

    /// A built-in scenario, as it presets.
    pub fn built_in(name: ScenarioName, window: &WindowFn) -> Result<Scenario, ParamsError> {
        let stream = name.preset().source.stream()?;
        let mut s = Scenario::new(name.label(), stream, window);
        s.built_in = Some(name);
        Ok(s)
    }

    /// A live input's scenario before its first row: empty, and open.
    pub fn live(name: impl Into<String>, window: &WindowFn) -> Scenario {
        let mut s = Scenario::new(name, Stream::default(), window);
        s.open = true;
        s.oracle = Oracle::live(window);
        s
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
