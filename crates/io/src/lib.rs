//! Sources and sinks at the edge of the program: reading event logs from files or standard
//! input (CSV, JSON Lines, Parquet, compressed or not; `source`), or live as they arrive
//! (`live`); reading scripts (`transcript`) and slack statistics (`stats`) back, each file
//! read whole held to its kind's limit (`bounded`); writing streams out as CSV or JSON Lines
//! (`csv`) and a run's panes to JSON Lines and SQLite (`sink`), every file through one door
//! that writes it whole or not at all (`staged`); and showing a user's values back in error
//! messages (`quote`). The engine never touches them.

#![deny(missing_docs)]

pub mod bounded;
pub mod csv;
mod decimal;
pub mod jsonl;
pub mod live;
pub mod parquet;
pub mod quote;
pub mod rows;
pub mod sink;
pub mod source;
pub mod spool;
pub mod staged;
pub mod stats;
pub mod times;
pub mod transcript;
