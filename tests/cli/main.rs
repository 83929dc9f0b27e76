//! The command line's tests, one test binary for all of them: the real binary's outputs, JSON
//! and CSV, its errors and limits, `advise` and `export`, `--output` left whole or absent,
//! the UI's flags, fuzzed inputs and argument vectors, the binary in a pseudo-terminal (keys,
//! signals, demos, a live producer), and the README and the guide checked against what the
//! program prints and draws. `cargo test --test cli` runs them, and
//! `cargo test --test cli cli_errors::` one file's.

#[path = "../cli_common/mod.rs"]
mod cli_common;
#[path = "../kept_snapshots/mod.rs"]
mod kept_snapshots;
mod pty_common;
#[path = "../recordings_common/mod.rs"]
mod recordings_common;
// Used in part: the guide's pictures and quotes open the tour at a step.
#[allow(dead_code)]
#[path = "../tour_common/mod.rs"]
mod tour_common;
// Used in part, through tour_common's key press and drawing.
#[allow(dead_code)]
#[path = "../ui_common/mod.rs"]
mod ui_common;

mod advise_sql;
mod calendar_windows;
mod cli_advise;
mod cli_broken_pipe;
mod cli_commands;
mod cli_errors;
mod cli_input_times;
mod cli_limits;
mod cli_reference;
mod cli_sessions;
mod cli_ui_flags;
mod cli_wall_clock;
mod closing;
mod completions;
mod docs_figures;
mod docs_pictures;
mod e2e_demo;
mod e2e_live;
mod e2e_predict;
mod e2e_signals;
mod e2e_tui;
mod export_engines;
mod export_golden;
mod fuzz_inputs;
mod guide;
mod input_limits;
mod nothing_lost;
mod performance_page;
mod pipeline_cli;
mod run_outputs;
mod run_streaming;
mod run_trigger;
mod scenario_table;
mod script;
