//! A drawn screen as plain text: each row's symbols, the cell a wide glyph covers skipped,
//! trailing blanks trimmed, one line per row. Pure.

use ratatui::buffer::Buffer;

use super::svg::columns;

/// The screen in `buf` as text, ending with a newline.
pub fn text(buf: &Buffer) -> String {
    let area = buf.area;
    let mut out = String::new();
    for y in area.top()..area.bottom() {
        let mut line = String::new();
        let mut x = area.left();
        while x < area.right() {
            let symbol = buf[(x, y)].symbol();
            line.push_str(symbol);
            x = x.saturating_add(columns(symbol));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}
