//! twoclocks: an engine for the Dataflow model (event time and processing time, windows,
//! watermarks, late data, triggers, checkpoints) and the shell around it: a command line, a
//! terminal UI that animates it, and the sources and sinks that read and write events.

#![deny(missing_docs)]

pub mod cli;
pub mod engine;
pub mod io;
pub mod tui;
