//! The topology panel's geometry: a row per source partition, a header, then a row per
//! operator instance.

use ratatui::layout::Rect;

use super::{inner, inside};

/// The operator instance (of `parallelism`, below `partitions` source rows and the header)
/// whose row is at screen (col, row) of the topology panel at `area`.
pub fn hit(area: Rect, partitions: usize, parallelism: usize, col: u16, row: u16) -> Option<usize> {
    let inner = inner(area);
    if !inside(inner, col, row) {
        return None;
    }
    let first = inner.y + partitions as u16 + 1;
    let i = usize::from(row.checked_sub(first)?);
    (i < parallelism).then_some(i)
}
