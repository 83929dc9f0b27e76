//! The engine of twoclocks: a pure, deterministic stream processor in the Dataflow model. No
//! I/O, no terminal, no clock: everything it answers is a function of the stream and the dials.
//!
//! # Its parts
//!
//! - **Streams** ([`Stream`], [`Event`], [`Stream::generate`]): events with two clocks, the time
//!   each happened (event time) and the time the engine saw it (processing time), in processing
//!   order.
//! - **Windows** ([`WindowFn`], [`window`]): tumbling, sliding, session and global windows; a
//!   window and a key make a cell ([`CellId`]).
//! - **Watermarks** ([`WatermarkKind`], [`Watermark`]): how far event time is taken to be
//!   complete; the fate of each event ([`Fate`]: on time, late within grace, or dropped).
//! - **Triggers** ([`trigger`], [`Pane`], [`Accumulation`]): when a window's value is emitted
//!   (early, on time, late) and what each pane carries; Beam's trigger algebra.
//! - **Conventions** ([`Conventions`]): whose rules decide where the engines differ (Beam
//!   Java's, Beam Python's, Flink's, Kafka Streams').
//! - **The processor** ([`Processor`], [`Processor::run`], [`EngineConfig`]): the blocks assembled,
//!   fed one event at a time.
//! - **The pipeline and checkpoints** ([`pipeline`], [`checkpoint`]): partitions, keyed
//!   operators and a sink over FIFO channels, with barriers, checkpoints, crashes and replay;
//!   [`Job`] is the pipeline at width one.
//! - **Scripts** ([`script`], [`triggered`]): streams moved step by step as Beam's `TestStream`
//!   moves them, and a whole log under any trigger expression.
//! - **The frontier and advice** ([`frontier`], [`advice`]): accuracy against latency over the
//!   dials, and the cheapest setting that meets an accuracy target.
//! - **The steered run** ([`steered`], [`timeline`], [`job_timeline`], [`rerun`], [`trace`]):
//!   a run driven to a playhead as a user steers it, and its read model ([`trace::Trace`]).
//! - **Scenarios** ([`scenario`]): the built-in streams with their dials; [`clock`] and
//!   [`scale`] say how a stream's times read and how far its delays reach.
//!
//! # Example: windows, a watermark and each event's fate
//!
//! ```
//! use twoclocks_engine::{
//!     EngineConfig, Event, Fate, Output, Processor, Stream, Timing, WatermarkKind, WindowFn,
//! };
//!
//! // Three readings of one sensor; the third happened at 4 s but arrives at 15 s.
//! let event = |event_time: f64, proc_time: f64| Event { event_time, proc_time, key: 0 };
//! let stream = Stream::from_unordered(
//!     vec![event(1_000.0, 1_500.0), event(12_000.0, 12_500.0), event(4_000.0, 15_000.0)],
//!     vec!["sensor".to_string()],
//! );
//! // 10 s tumbling windows; the watermark trails the latest event time by 2 s; no grace.
//! let cfg = EngineConfig {
//!     window: WindowFn::tumbling(10_000).expect("a positive size"),
//!     watermark: WatermarkKind::Fixed { lag: 2_000.0 },
//!     ..EngineConfig::fixed(2_000.0, 0.0)
//! };
//!
//! let mut processor = Processor::for_stream(cfg, &stream);
//! let mut out = Output::default();
//! let fates: Vec<Fate> = stream
//!     .events
//!     .iter()
//!     .map(|e| processor.step(e, &mut out).fate)
//!     .collect();
//! processor.finish(&mut out);
//!
//! // The watermark passed 10 s at the second event: the window [0 s, 10 s) fired on time
//! // with one event, and the third event, for that window, came too late to count.
//! assert_eq!(fates, [Fate::OnTime, Fate::OnTime, Fate::Dropped]);
//! let first = &out.panes[0];
//! assert_eq!((first.window_start, first.window_end), (0.0, 10_000.0));
//! assert_eq!((first.timing, first.value), (Timing::OnTime, 1));
//! assert_eq!(out.dropped.len(), 1);
//! ```
//!
//! # Example: a checkpointed job that crashes
//!
//! ```
//! use twoclocks_engine::{EngineConfig, Job, ScheduleStep, SinkKind, Stream, StreamParams};
//!
//! let stream = Stream::generate(&StreamParams { events: 2_000, ..Default::default() })?;
//! let cfg = EngineConfig::fixed(5_000.0, 10_000.0);
//!
//! let mut clean = Job::new(&stream, cfg, &SinkKind::ALL);
//! clean.finish();
//! // A checkpoint after 800 events, a crash after 1 300: the job restores the checkpoint and
//! // reads the 500 events after it again.
//! let mut crashed = Job::new(&stream, cfg, &SinkKind::ALL);
//! crashed.run_schedule(&[
//!     ScheduleStep::Checkpoint { at: 800 },
//!     ScheduleStep::Crash { at: 1_300 },
//! ]);
//! assert_eq!(crashed.crashes()[0].replayed, 500);
//!
//! // The engine's state is restored exactly; an idempotent sink ends as if nothing happened,
//! // an additive one counts the replayed panes twice.
//! let sink = |job: &Job, kind| job.sink(kind).map(|s| s.output());
//! assert_eq!(crashed.finals(), clean.finals());
//! assert_eq!(sink(&crashed, SinkKind::Idempotent), sink(&clean, SinkKind::Idempotent));
//! assert_ne!(sink(&crashed, SinkKind::Additive), sink(&clean, SinkKind::Additive));
//! # Ok::<(), twoclocks_engine::ParamsError>(())
//! ```

#![deny(missing_docs)]
#![warn(unnameable_types)]

pub mod advice;
mod channel;
pub mod checkpoint;
pub mod clock;
mod conventions;
pub mod duration;
pub mod frontier;
pub mod job_timeline;
mod lateness;
mod oracle;
pub mod pipeline;
mod processor;
pub mod quote;
pub mod rerun;
pub mod scale;
pub mod scenario;
pub mod script;
mod state_bound;
pub mod steered;
mod stream;
pub mod timeline;
pub mod trace;
pub mod trigger;
pub mod triggered;
mod watermark;
pub mod window;
mod window_row;

pub use checkpoint::{Checkpoint, Job, ScheduleStep, Sink, SinkKind};
pub use clock::Clock;
pub use conventions::Conventions;
pub use frontier::{FrontierPoint, Policy, Score};
pub use lateness::{Dropped, Fate};
pub use oracle::Oracle;
pub use processor::{
    Arrival, Counters, EngineConfig, Expiry, FinalValue, Output, Processor, RunResult,
    SessionChange,
};
pub use state_bound::{StateBound, StateCosts};
pub use stream::{DelayStats, Event, KeyId, ParamsError, Stream, StreamParams};
pub use trigger::{Accumulation, CellState, Pane, PaneInfo, TimestampCombiner, Timing, Trigger};
pub use watermark::{Watermark, WatermarkFamily, WatermarkKind};
pub use window::{CellId, WindowFn, WindowId};
