//! How the UI opens a run: each built-in scenario's opening (paused or playing, at what speed,
//! the plot magnified or the whole stream) and how big an input is re-run at once. The
//! engine's scenarios say what a stream and its dials are; how the screen opens on them, and
//! when a re-run leaves the UI task, are the UI's choices.

use twoclocks_engine::scenario::{Scenario, ScenarioName};

/// Streams up to this many events are re-run at once (well under a frame); bigger ones as a
/// pending re-run for the event loop to run off its UI task.
pub const INLINE_EVENTS: usize = 250_000;

/// How the UI opens on a built-in scenario.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Opening {
    /// The UI opens paused.
    pub paused: bool,
    /// The playback speed, processing-time seconds per real second (else the UI's own).
    pub speed: Option<f64>,
    /// The plot opens following the playhead at this many ms of event time per column (else
    /// the whole stream).
    pub magnify: Option<f64>,
}

impl Opening {
    /// How the UI opens on `name`: the lesson paused, in real time, each event its own mark;
    /// the others playing at the UI's speed over the whole stream.
    pub fn of(name: ScenarioName) -> Opening {
        match name {
            ScenarioName::Lesson => Opening {
                paused: true,
                speed: Some(1.0),
                magnify: Some(1_000.0),
            },
            ScenarioName::Classroom
            | ScenarioName::Punctual
            | ScenarioName::Stormy
            | ScenarioName::Outage
            | ScenarioName::Sessions => Opening::default(),
        }
    }

    /// The scale the plot of `scenario` opens magnified at, ms a column: its built-in
    /// scenario's; None for a stream read from a file or a scenario that opens on the whole
    /// stream.
    pub fn magnify_of(scenario: &Scenario) -> Option<f64> {
        scenario.built_in.and_then(|n| Opening::of(n).magnify)
    }
}
