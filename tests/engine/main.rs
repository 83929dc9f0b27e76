//! The engine's tests, one test binary for all of them: windows, watermarks, triggers and
//! state TTLs against the reference program and the oracle, the frontier and the advisor, the
//! parallel pipeline's barriers, checkpoints and crashes, the built-in scenarios, and the
//! job's read model. `cargo test --test engine` runs them, and
//! `cargo test --test engine engine_ttl::` one file's. Proptest keeps the failure cases it has
//! found for each of these files in `tests/proptest-regressions/<file>.txt`, and runs them
//! first.

// Used in part: the engine's tests run the binary only for a few flags' answers and errors.
#[allow(dead_code)]
#[path = "../cli_common/mod.rs"]
mod cli_common;
#[path = "../common/mod.rs"]
mod common;
#[path = "../recordings_common/mod.rs"]
mod recordings_common;
// Used in part: the job's read model and the scenarios are read on the screen.
#[allow(dead_code)]
#[path = "../ui_common/mod.rs"]
mod ui_common;

mod advise_stats;
mod barrier_promises;
mod engine_baseline;
mod engine_differential;
mod engine_golden;
mod engine_properties;
mod engine_sessions;
mod engine_ttl;
mod exactly_once_short_intervals;
mod frontier_exact;
mod job_read_model;
mod lesson_marks;
mod pipeline_partitions;
mod pipeline_properties;
mod pipeline_view;
mod real_engines;
mod routes_agree;
mod scenario_catalogue;
mod script_properties;
