//! The inputs' and outputs' tests, one test binary for all of them: reading a user's log in
//! every format and compression with its errors and the clock it is on, a live input growing
//! batch by batch, and the sinks `run --output` writes (JSON Lines and SQLite, after clean
//! runs and crashes).
//! `cargo test --test io` runs them, and `cargo test --test io io_sinks::` one file's.

// Used in part: the sinks' tests run the binary on their output paths.
#[allow(dead_code)]
#[path = "../cli_common/mod.rs"]
mod cli_common;
// Used in part: the sinks' property test draws streams and jobs and carries out their writes.
#[allow(dead_code)]
#[path = "../common/mod.rs"]
mod common;
// Used in part: a live input is checked on the screen it draws.
#[allow(dead_code)]
#[path = "../ui_common/mod.rs"]
mod ui_common;

mod io_sinks;
mod io_source_errors;
mod io_sources;
mod live_input;
mod log_clocks;
mod logs;
mod transcripts;
