//! Sources and sinks at the edge of the program: reading event logs from files or standard
//! input (CSV, JSON Lines, Parquet, compressed or not), reading slack statistics back
//! (`stats`), each file read whole held to its kind's limit (`bounded`), writing streams and results out, and showing a user's values back in error
//! messages. The engine never touches them.

#![deny(missing_docs)]

pub mod bounded;
pub mod csv;
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
