//! Sources and sinks at the edge of the program: reading event logs from files, writing
//! streams and results out, and showing a user's values back in error messages. The engine
//! never touches them.

pub mod csv;
pub mod quote;
pub mod sink;
