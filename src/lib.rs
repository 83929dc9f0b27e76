//! twoclocks: an engine for the Dataflow model (event time and processing time, windows,
//! watermarks, late data, triggers, checkpoints) and the shell around it: a command line, a
//! terminal UI that animates it, and the sources and sinks that read and write events.
//!
//! The layers are crates, so the compiler holds them to running one way, cli → tui → io →
//! engine: [`engine`] (`twoclocks-engine`: pure, no I/O, no terminal, no clock), [`io`]
//! (`twoclocks-io`: sources and sinks), [`tui`] (`twoclocks-tui`: the terminal UI), and
//! [`cli`], this crate's own, with the binary's commands and exports.

#![deny(missing_docs)]

pub mod cli;
pub use twoclocks_engine as engine;
pub use twoclocks_io as io;
pub use twoclocks_tui as tui;
