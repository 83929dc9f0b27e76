//! A drawn screen as SVG: ratatui's [`Buffer`] (each cell's symbol, colours and modifiers)
//! written as a picture that keeps its colours. One rectangle per run of cells with the same
//! background that is not the terminal's, one monospace `<text>` per run of cells with the same
//! glyph style; a wide glyph (two columns) is a run of its own, stretched to its two cells. The
//! theme's colours are resolved to RGB as an xterm draws them: `Reset` (what the dark and mono
//! themes leave to the terminal) is the dark terminal's, light grey on near-black
//! ([`contrast::DARK`]); the light theme paints its own background, so it is saved as it is
//! shown. Pure: the same buffer gives the same bytes.

use std::fmt::Write;

use ratatui::buffer::{Buffer, Cell};
use ratatui::style::{Modifier, Style};
use ratatui::text::Span;

use crate::theme::contrast::{self, Rgb};

/// One cell's width in the picture, px.
pub const CELL_W: u32 = 9;
/// One row's height in the picture, px.
pub const CELL_H: u32 = 18;
/// The font size, px (a monospace glyph is about 0.6 em wide: [`CELL_W`]).
const FONT_PX: u32 = 15;
/// The text's baseline below a row's top, px.
const BASELINE: u32 = 14;
/// The fonts asked for, the first one found used.
const FONTS: &str = "'DejaVu Sans Mono', 'Menlo', 'Consolas', 'Liberation Mono', monospace";

/// How one cell is painted: its glyph's colour and its background, resolved; its weight,
/// slant and lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Look {
    fg: Rgb,
    bg: Rgb,
    bold: bool,
    italic: bool,
    underline: bool,
    strike: bool,
    hidden: bool,
}

fn look(cell: &Cell) -> Look {
    let style = Style::default()
        .fg(cell.fg)
        .bg(cell.bg)
        .add_modifier(cell.modifier);
    let (fg, bg) = contrast::shown(style, Style::default(), &contrast::DARK);
    let m = cell.modifier;
    Look {
        fg,
        bg,
        bold: m.contains(Modifier::BOLD),
        italic: m.contains(Modifier::ITALIC),
        underline: m.contains(Modifier::UNDERLINED),
        strike: m.contains(Modifier::CROSSED_OUT),
        hidden: m.contains(Modifier::HIDDEN),
    }
}

/// The columns a cell's symbol takes: 1, or 2 for a wide glyph.
pub fn columns(symbol: &str) -> u16 {
    Span::raw(symbol).width().clamp(1, 2) as u16
}

fn hex(c: Rgb) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// `s` escaped for XML text and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // Control characters are not allowed in XML 1.0: a blank stands in.
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A run of cells drawn as one `<text>`: where it starts, how many columns, what it says.
struct Run {
    x: u16,
    cols: u16,
    text: String,
    look: Look,
}

/// The screen in `buf` as an SVG document.
pub fn svg(buf: &Buffer) -> String {
    let area = buf.area;
    let (w, h) = (u32::from(area.width), u32::from(area.height));
    let (pw, ph) = (w * CELL_W, h * CELL_H);
    // The backing is the screen's own background (the light theme paints its own): were it
    // another colour, a picture scaled on a slide would show it in thin seams between the
    // rows' rectangles.
    let back = dominant_background(buf);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{pw}\" height=\"{ph}\" \
         viewBox=\"0 0 {pw} {ph}\">"
    );
    let _ = writeln!(
        out,
        "<rect width=\"{pw}\" height=\"{ph}\" fill=\"{}\"/>",
        hex(back)
    );
    let rows: Vec<Vec<(&Cell, Look)>> = (0..area.height)
        .map(|row| {
            (0..area.width)
                .map(|col| {
                    let c = &buf[(area.x + col, area.y + row)];
                    (c, look(c))
                })
                .collect()
        })
        .collect();
    // Backgrounds with crisp edges, each run of cells widened to the rows below that have the
    // same run: no anti-aliased edge between two rows of one colour.
    out.push_str("<g shape-rendering=\"crispEdges\">\n");
    backgrounds(&mut out, &rows, back);
    out.push_str("</g>\n");
    let _ = writeln!(
        out,
        "<g font-family=\"{FONTS}\" font-size=\"{FONT_PX}px\" xml:space=\"preserve\">"
    );
    for (row, cells) in rows.iter().enumerate() {
        for run in runs(cells) {
            text(&mut out, &run, row as u32);
        }
    }
    out.push_str("</g>\n</svg>\n");
    out
}

/// The background most cells have (the dark terminal's when there is a tie or no cell).
fn dominant_background(buf: &Buffer) -> Rgb {
    let mut counts: Vec<(Rgb, usize)> = Vec::new();
    for cell in buf.content() {
        let bg = look(cell).bg;
        match counts.iter_mut().find(|(c, _)| *c == bg) {
            Some((_, n)) => *n += 1,
            None => counts.push((bg, 1)),
        }
    }
    let dark = contrast::DARK.bg;
    counts
        .into_iter()
        .max_by_key(|&(c, n)| (n, c == dark))
        .map_or(dark, |(c, _)| c)
}

/// The backgrounds that differ from the picture's: one rectangle per run of one colour in a
/// row, stretched down over the rows below that have the same run (same columns, same colour).
fn backgrounds(out: &mut String, rows: &[Vec<(&Cell, Look)>], back: Rgb) {
    let spans = |cells: &[(&Cell, Look)]| -> Vec<(usize, usize, Rgb)> {
        let mut v = Vec::new();
        let mut col = 0;
        while col < cells.len() {
            let bg = cells[col].1.bg;
            let start = col;
            while col < cells.len() && cells[col].1.bg == bg {
                col += 1;
            }
            if bg != back {
                v.push((start, col, bg));
            }
        }
        v
    };
    let all: Vec<Vec<(usize, usize, Rgb)>> = rows.iter().map(|r| spans(r)).collect();
    let mut drawn: Vec<Vec<bool>> = all.iter().map(|r| vec![false; r.len()]).collect();
    for row in 0..all.len() {
        for (i, &span) in all[row].iter().enumerate() {
            if drawn[row][i] {
                continue;
            }
            let mut height = 1;
            while let Some(j) = all
                .get(row + height)
                .and_then(|below| below.iter().position(|&s| s == span))
            {
                drawn[row + height][j] = true;
                height += 1;
            }
            let (start, end, bg) = span;
            let _ = writeln!(
                out,
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>",
                start as u32 * CELL_W,
                row as u32 * CELL_H,
                (end - start) as u32 * CELL_W,
                height as u32 * CELL_H,
                hex(bg)
            );
        }
    }
}

/// The row's glyphs in runs of one look; blanks alone are no run, a wide glyph is one of its
/// own and the cell it covers is skipped.
fn runs(cells: &[(&Cell, Look)]) -> Vec<Run> {
    let mut out: Vec<Run> = Vec::new();
    let mut col = 0usize;
    let mut open = false;
    while col < cells.len() {
        let (cell, look) = cells[col];
        let symbol = cell.symbol();
        let cols = columns(symbol);
        let wide = cols > 1;
        let glyph_look = |l: Look| Look { bg: (0, 0, 0), ..l };
        let joins = open
            && !wide
            && out
                .last()
                .is_some_and(|r| glyph_look(r.look) == glyph_look(look));
        if joins {
            let r = out.last_mut().expect("an open run");
            r.text.push_str(symbol);
            r.cols += 1;
        } else {
            out.push(Run {
                x: col as u16,
                cols,
                text: symbol.to_string(),
                look,
            });
        }
        open = !wide;
        col += usize::from(cols);
    }
    out.retain(|r| !r.look.hidden && !r.text.trim().is_empty());
    out
}

fn text(out: &mut String, run: &Run, row: u32) {
    let l = run.look;
    let mut attrs = format!(
        "x=\"{}\" y=\"{}\" fill=\"{}\"",
        u32::from(run.x) * CELL_W,
        row * CELL_H + BASELINE,
        hex(l.fg)
    );
    if run.cols > 1 {
        // Whatever the font's advance, the run ends where its cells do.
        let _ = write!(
            attrs,
            " textLength=\"{}\" lengthAdjust=\"spacingAndGlyphs\"",
            u32::from(run.cols) * CELL_W
        );
    }
    if l.bold {
        attrs.push_str(" font-weight=\"bold\"");
    }
    if l.italic {
        attrs.push_str(" font-style=\"italic\"");
    }
    match (l.underline, l.strike) {
        (true, true) => attrs.push_str(" text-decoration=\"underline line-through\""),
        (true, false) => attrs.push_str(" text-decoration=\"underline\""),
        (false, true) => attrs.push_str(" text-decoration=\"line-through\""),
        (false, false) => {}
    }
    let _ = writeln!(out, "<text {attrs}>{}</text>", escape(&run.text));
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;
    use ratatui::style::Color;

    #[test]
    fn escapes_what_xml_reserves() {
        assert_eq!(
            escape("a<b & \"c\" 'd'>"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;"
        );
        assert_eq!(escape("x\u{1b}y"), "x y");
    }

    #[test]
    fn a_wide_glyph_is_its_own_run_over_two_cells() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 6, 1));
        buf.set_string(0, 0, "a界b", Style::default().fg(Color::Red));
        let svg = svg(&buf);
        assert!(svg.contains(">a</text>"), "{svg}");
        assert!(svg.contains("textLength=\"18\" lengthAdjust=\"spacingAndGlyphs\">界</text>"));
        // b sits in the fourth column, after the two the wide glyph covers.
        assert!(svg.contains(&format!(
            "x=\"{}\" y=\"14\" fill=\"#cd0000\">b</text>",
            3 * CELL_W
        )));
    }
}
