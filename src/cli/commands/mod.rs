//! The subcommands' flags and bodies, one file per command: each loads a stream, asks the
//! engine, and writes the answer as a table, CSV or JSON. `pipeline` holds the parallel
//! pipeline's flags and how it runs; `answer` what a run found, from either engine, and
//! `outputs` the `--output` sinks both feed (neither imports `run` or `pipeline`); `json` how
//! numbers are written in JSON.

mod advise;
mod answer;
mod export;
mod frontier;
mod json;
mod outputs;
mod pipeline;
mod report;
mod run;
mod script;
mod stats_query;
mod stream;
mod triggered;

pub use advise::{advice_plot, advise, AdviseArgs, FamilyList};
pub use export::{export, ExportArgs};
pub use frontier::{frontier, policy_marks, FrontierArgs, TableCsvJson, MAX_FRONTIER_POINTS};
pub use pipeline::{BarrierArg, PipelineArgs, SinkArg};
pub use report::{report, ReportArgs};
pub use run::{run, RunArgs, TableOrJson};
pub use script::{script, ScriptArgs, ScriptsFailed};
pub use stats_query::{Dialect, QuerySpec};
pub use stream::{stream, StreamArgs, StreamFormat};
pub use triggered::run_triggered;
