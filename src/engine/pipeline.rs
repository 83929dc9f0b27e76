//! Parallel operators with checkpoint barriers (to be filled in).
