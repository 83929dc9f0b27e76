//! A block font for big numbers: digits, the signs a counter needs and the few letters of its
//! units (`s`, `KiB`, `MiB`, `B`, `∞`), each a bitmap 5 pixels high, drawn at four sizes. A pure
//! function of the text: no terminal, no theme.

/// How big the glyphs are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Size {
    /// Two half-block pixels per row: 3 rows high, a pixel one column wide.
    Small,
    /// One pixel per cell: 5 rows high, a pixel one column wide.
    Medium,
    /// One pixel per two cells side by side: 5 rows high, a pixel two columns wide (square on
    /// most terminals' cells).
    Large,
    /// One pixel per four cells by two rows: 10 rows high, a pixel four columns wide.
    Huge,
}

impl Size {
    /// Every size, largest first.
    pub const ALL: [Size; 4] = [Size::Huge, Size::Large, Size::Medium, Size::Small];

    /// Rows a line of text takes.
    pub fn height(self) -> u16 {
        match self {
            Size::Small => 3,
            Size::Medium | Size::Large => 5,
            Size::Huge => 10,
        }
    }

    /// Columns per pixel.
    fn scale(self) -> usize {
        match self {
            Size::Large => 2,
            Size::Huge => 4,
            Size::Medium | Size::Small => 1,
        }
    }

    /// Rows per pixel (half a row for the small size).
    fn rows(self) -> usize {
        match self {
            Size::Huge => 2,
            _ => 1,
        }
    }
}

/// A glyph's bitmap: 5 rows of `#` (ink) and `.` (none), all of one width.
fn bitmap(c: char) -> [&'static str; 5] {
    match c {
        '0' => ["###", "#.#", "#.#", "#.#", "###"],
        '1' => [".#.", "##.", ".#.", ".#.", "###"],
        '2' => ["###", "..#", "###", "#..", "###"],
        '3' => ["###", "..#", ".##", "..#", "###"],
        '4' => ["#.#", "#.#", "###", "..#", "..#"],
        '5' => ["###", "#..", "###", "..#", "###"],
        '6' => ["###", "#..", "###", "#.#", "###"],
        '7' => ["###", "..#", ".#.", ".#.", ".#."],
        '8' => ["###", "#.#", "###", "#.#", "###"],
        '9' => ["###", "#.#", "###", "..#", "###"],
        '.' | ',' => [".", ".", ".", ".", "#"],
        ':' => [".", "#", ".", "#", "."],
        '-' | '−' | '—' => ["...", "...", "###", "...", "..."],
        '+' => ["...", ".#.", "###", ".#.", "..."],
        '/' => ["..#", "..#", ".#.", "#..", "#.."],
        '%' => ["#.#", "..#", ".#.", "#..", "#.#"],
        ' ' => ["..", "..", "..", "..", ".."],
        's' => ["...", ".##", "##.", "..#", "##."],
        'i' => ["#", ".", "#", "#", "#"],
        'B' => ["##.", "#.#", "##.", "#.#", "##."],
        'K' => ["#.#", "#.#", "##.", "#.#", "#.#"],
        'M' => ["#.#", "###", "###", "#.#", "#.#"],
        '∞' => [".....", ".#.#.", "#.#.#", ".#.#.", "....."],
        _ => ["###", "..#", ".##", "...", ".#."],
    }
}

/// Columns `text` takes at `size`: each glyph's pixels, one blank pixel between glyphs.
pub fn width(text: &str, size: Size) -> usize {
    let px: usize = text.chars().map(|c| bitmap(c)[0].len()).sum();
    let gaps = text.chars().count().saturating_sub(1);
    (px + gaps) * size.scale()
}

/// The pixel rows of `text`: 5 rows of booleans (ink or none), glyphs one blank pixel apart.
fn pixels(text: &str) -> [Vec<bool>; 5] {
    let mut rows: [Vec<bool>; 5] = Default::default();
    for (i, c) in text.chars().enumerate() {
        for (r, line) in bitmap(c).iter().enumerate() {
            if i > 0 {
                rows[r].push(false);
            }
            rows[r].extend(line.chars().map(|p| p == '#'));
        }
    }
    rows
}

/// `text` drawn in the block font at `size`: [`Size::height`] lines, each [`width`] columns
/// wide (blank pixels are spaces).
pub fn render(text: &str, size: Size) -> Vec<String> {
    let rows = pixels(text);
    let cell = |on: bool| if on { '█' } else { ' ' };
    match size {
        Size::Small => (0..3)
            .map(|r| {
                let top = &rows[2 * r];
                let bottom = rows.get(2 * r + 1);
                top.iter()
                    .enumerate()
                    .map(|(x, &t)| {
                        let b = bottom.is_some_and(|row| row[x]);
                        match (t, b) {
                            (true, true) => '█',
                            (true, false) => '▀',
                            (false, true) => '▄',
                            (false, false) => ' ',
                        }
                    })
                    .collect()
            })
            .collect(),
        _ => rows
            .iter()
            .flat_map(|row| {
                let line: String = row
                    .iter()
                    .flat_map(|&on| std::iter::repeat_n(cell(on), size.scale()))
                    .collect();
                std::iter::repeat_n(line, size.rows())
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bitmap_is_five_rows_of_one_width() {
        for c in "0123456789.,:-−—+/% siBKM∞?".chars() {
            let b = bitmap(c);
            assert!(b.iter().all(|r| r.len() == b[0].len()), "{c}");
        }
    }

    #[test]
    fn a_number_is_drawn_at_each_size() {
        assert_eq!(
            render("10", Size::Medium),
            [".#. ###", "##. #.#", ".#. #.#", ".#. #.#", "### ###"]
                .iter()
                .map(|r| r.replace('#', "█").replace('.', " "))
                .collect::<Vec<_>>()
        );
        assert_eq!(render("1", Size::Large)[4], "██████");
        assert_eq!(render("1", Size::Small), vec!["▄█ ", " █ ", "▀▀▀"]);
        for size in Size::ALL {
            let lines = render("265.6s", size);
            assert_eq!(lines.len(), usize::from(size.height()));
            for l in &lines {
                assert_eq!(l.chars().count(), width("265.6s", size));
            }
        }
    }

    #[test]
    fn widths_grow_with_the_size() {
        assert_eq!(width("12", Size::Small), 7);
        assert_eq!(width("12", Size::Medium), 7);
        assert_eq!(width("12", Size::Large), 14);
        assert_eq!(width("12", Size::Huge), 28);
        assert_eq!(width("", Size::Large), 0);
    }
}
