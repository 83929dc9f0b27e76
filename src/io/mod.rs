//! Sources and sinks at the edge of the program: reading event logs from files, writing
//! streams and results out. The engine never touches them.

pub mod csv;
