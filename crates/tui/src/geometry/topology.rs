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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operator_rows_follow_the_sources_and_the_header() {
        // 2 sources (rows 1, 2), the header (row 3), 4 operators (rows 4 to 7).
        let area = Rect::new(0, 0, 40, 11);
        assert_eq!(hit(area, 2, 4, 5, 3), None, "the header");
        assert_eq!(hit(area, 2, 4, 5, 4), Some(0));
        assert_eq!(hit(area, 2, 4, 5, 7), Some(3));
        assert_eq!(hit(area, 2, 4, 5, 8), None, "below the operators");
        assert_eq!(hit(area, 2, 4, 0, 4), None, "the border");
    }
}
