//! The engine: a pure, deterministic stream processor in the Dataflow model. No I/O, no
//! terminal, no clock: everything it answers is a function of the stream and the dials.
//! One module per block of the model, and `processor`, which assembles them.

#![deny(missing_docs)]

pub mod advice;
pub mod channel;
pub mod checkpoint;
pub mod clock;
pub mod conventions;
pub mod duration;
pub mod frontier;
pub mod job_timeline;
pub mod lateness;
pub mod oracle;
pub mod pipeline;
pub mod predict;
pub mod processor;
mod quote;
pub mod rerun;
pub mod scale;
pub mod scenario;
pub mod script;
pub mod session;
pub mod state_bound;
pub mod stream;
pub mod timeline;
pub mod trace;
pub mod trigger;
pub mod triggered;
pub mod watermark;
pub mod window;
pub mod window_row;

pub use checkpoint::{Checkpoint, CheckpointLog, Job, ScheduleStep, Sink, SinkKind, Staging};
pub use clock::Clock;
pub use conventions::Conventions;
pub use frontier::{FrontierPoint, Policy, Score, POLICIES};
pub use lateness::{Dropped, Fate};
pub use processor::{
    run, Arrival, Counters, EngineConfig, FinalValue, Output, Processor, RunResult,
};
pub use stream::{Event, KeyId, Stream, StreamParams};
pub use trigger::{Accumulation, CellState, Pane, PaneInfo, TimestampCombiner, Timing, Trigger};
pub use watermark::{Watermark, WatermarkKind};
pub use window::{CellId, WindowFn, WindowId};
