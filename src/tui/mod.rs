//! The terminal UI (to be filled in).
