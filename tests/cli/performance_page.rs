//! docs/performance.md is benches/measure.py's output: the page is its template,
//! benches/performance.md.in, with each `{{name}}` replaced by a measured figure, so a figure
//! typed into the page by hand, or prose changed there and not in the template, fails here.
//! (The figures themselves are measured by hand, `benches/measure.py`, not by `cargo test`.)

use std::fs;

/// The template's text between its figures, in order.
fn pieces(template: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find("{{") {
        out.push(&rest[..open]);
        let close = rest[open..]
            .find("}}")
            .expect("a figure's name ends with }}")
            + open;
        rest = &rest[close + 2..];
    }
    out.push(rest);
    out
}

#[test]
fn the_performance_page_is_its_template_with_measured_figures() {
    let template = fs::read_to_string("benches/performance.md.in").unwrap();
    let page = fs::read_to_string("docs/performance.md").unwrap();
    let pieces = pieces(&template);
    let mut at = 0;
    for (i, piece) in pieces.iter().enumerate() {
        let found = if i == 0 {
            page.starts_with(piece).then_some(0)
        } else if i == pieces.len() - 1 {
            page[at..]
                .ends_with(piece)
                .then(|| page.len() - piece.len() - at)
        } else {
            page[at..].find(piece)
        };
        let Some(offset) = found else {
            let line = template[..template.find(piece).unwrap_or(0)]
                .lines()
                .count()
                + 1;
            panic!(
                "docs/performance.md differs from benches/performance.md.in near the \
                 template's line {line}: edit the template and run benches/measure.py \
                 (piece: {:?})",
                piece.chars().take(120).collect::<String>()
            );
        };
        let figure = &page[at..at + offset];
        assert!(
            i == 0 || !figure.is_empty(),
            "docs/performance.md: an empty figure before {:?}",
            piece.chars().take(60).collect::<String>()
        );
        at += offset + piece.len();
    }
}
