//! The presenter's drawing: the selected key and window's panes as bars on the plot (early,
//! on time, late; retractions), which never hide a late or dropped event, and none for all
//! keys; `b`'s big numbers at 80×24 and 120×40, their figures named or by default, and `b`
//! again bringing the panels back; both meet WCAG AA in every theme. Snapshots on ratatui's
//! TestBackend.

use ratatui::buffer::Buffer;
use ratatui::style::Style;
use twoclocks::engine::{Fate, Timing};
use twoclocks::tui::app::{Action, App};
use twoclocks::tui::geometry::plot::PlotFrame;
use twoclocks::tui::theme::{contrast, glyph};
use twoclocks::tui::view;
use twoclocks::tui::view::big::{font, grid, Figure};

use crate::kept_snapshots::assert_snapshot;
use crate::ui_common::{act, buffer, rows_in, terminal, text, ui, use_of};

/// The lesson at its end: early, on-time and late panes, late and dropped events; the whole
/// stream on the plot (the lesson opens magnified: `m` shows the whole stream).
fn lesson(theme: &str) -> App {
    let mut a = ui(&["--scenario", "lesson", "--theme", theme]);
    act(&mut a, Action::JumpToEnd);
    act(&mut a, Action::Magnify);
    assert_eq!(a.magnify, None);
    a
}

/// The classroom stream at its end with early panes, a minute's grace and retractions.
fn retracting(theme: &str) -> App {
    let mut a = ui(&[
        "--early",
        "15s",
        "--grace",
        "60s",
        "--accumulation",
        "retracting",
        "--paused",
        "--theme",
        theme,
    ]);
    act(&mut a, Action::JumpToEnd);
    a
}

/// The plot's inside, row by row.
fn plot_rows(a: &App, buf: &Buffer) -> Vec<String> {
    let size = (buf.area.width, buf.area.height);
    let f = PlotFrame::of(a, a.areas(size).unwrap().plot).unwrap();
    rows_in(buf, f.inner)
}

fn count(rows: &[String], c: char) -> usize {
    rows.iter()
        .map(|r| r.chars().filter(|&x| x == c).count())
        .sum()
}

fn bars(rows: &[String]) -> [usize; 3] {
    [Timing::Early, Timing::OnTime, Timing::Late].map(|t| count(rows, view::plot::bar_glyph(t)))
}

#[test]
fn the_lesson_draws_an_early_an_on_time_and_a_late_pane_with_their_values() {
    // The plot alone at 120×40 has a row for each: the early panes (4 and 7), the on-time
    // pane (9) and the late pane (10, the window's final value), each labelled.
    let mut a = lesson("dark");
    act(&mut a, Action::Zoom);
    let buf = buffer(&mut a, 120, 40);
    let rows = plot_rows(&a, &buf);
    let [e, o, l] = bars(&rows);
    assert!(e > 0 && o > 0 && l > 0, "bars {e} {o} {l}: {rows:#?}");
    let g = |t| view::plot::bar_glyph(t);
    for label in [
        format!("{}4", g(Timing::Early)),
        format!("{}7", g(Timing::Early)),
        format!("9{}", g(Timing::OnTime)),
        format!("10{}", g(Timing::Late)),
    ] {
        assert!(
            rows.iter().any(|r| r.contains(&label)),
            "{label}: {rows:#?}"
        );
    }
    // With every panel, fewer rows: panes that share a row show the on-time one.
    for (w, h) in [(120, 40), (80, 24)] {
        let mut a = lesson("dark");
        let buf = buffer(&mut a, w, h);
        let [_, o, _] = bars(&plot_rows(&a, &buf));
        assert!(o > 0, "{w}×{h}: the on-time pane");
    }
}

#[test]
fn snapshot_pane_bars_lesson_120x40() {
    let mut a = lesson("dark");
    assert_snapshot!(
        "pane_bars_lesson_120x40",
        terminal(&mut a, 120, 40).backend()
    );
}

#[test]
fn snapshot_pane_bars_lesson_80x24() {
    let mut a = lesson("mono");
    assert_snapshot!("pane_bars_lesson_80x24", terminal(&mut a, 80, 24).backend());
}

#[test]
fn snapshot_pane_bars_retracting_zoomed_120x40() {
    let mut a = retracting("light");
    act(&mut a, Action::Zoom);
    let buf = buffer(&mut a, 120, 40);
    let rows = plot_rows(&a, &buf);
    assert!(
        rows.iter().any(|r| r.contains('−') && r.contains('+')),
        "a retraction's label: {rows:#?}"
    );
    assert_snapshot!(
        "pane_bars_retracting_zoomed_120x40",
        terminal(&mut a, 120, 40).backend()
    );
}

#[test]
fn with_all_keys_no_bar_is_drawn() {
    let mut a = lesson("dark");
    let keys = a.scenario().stream.keys.len();
    for _ in 0..keys {
        act(&mut a, Action::CycleKey);
    }
    assert_eq!(a.selection.key, None, "all keys");
    let buf = buffer(&mut a, 120, 40);
    assert_eq!(bars(&plot_rows(&a, &buf)), [0, 0, 0]);
}

/// The plot's late and dropped glyphs, cell by cell.
fn exceptions(rows: &[String]) -> Vec<(usize, usize, char)> {
    rows.iter()
        .enumerate()
        .flat_map(|(y, r)| {
            r.chars()
                .enumerate()
                .filter(|(_, c)| glyph::ink(*c).is_some_and(|(f, _)| f != Fate::OnTime))
                .map(move |(x, c)| (y, x, c))
        })
        .collect()
}

#[test]
fn the_bars_never_hide_a_late_or_dropped_event() {
    // The same plot with and without bars (all keys: none): every late and dropped glyph
    // stays, and so does the ink of every fate but for sparse on-time cells on the bars' rows.
    for make in [lesson as fn(&str) -> App, retracting] {
        for (w, h) in [(120, 40), (80, 24)] {
            let mut with = make("dark");
            act(&mut with, Action::Zoom);
            let mut without = with.clone();
            without.selection.key = None;
            let (bw, bo) = (buffer(&mut with, w, h), buffer(&mut without, w, h));
            let (rw, ro) = (plot_rows(&with, &bw), plot_rows(&without, &bo));
            let drawn = bars(&rw).iter().sum::<usize>();
            assert!(drawn > 0, "{w}×{h}: bars drawn");
            let (ew, eo) = (exceptions(&rw), exceptions(&ro));
            assert!(!eo.is_empty());
            assert_eq!(ew, eo, "{w}×{h}: late and dropped events as they were");
        }
    }
}

#[test]
fn b_shows_the_big_numbers_and_b_again_returns() {
    let mut a = lesson("dark");
    let before = buffer(&mut a, 120, 40);
    act(&mut a, Action::BigNumbers);
    assert_eq!(a.big_numbers, Some(Vec::new()));
    let big = buffer(&mut a, 120, 40);
    assert_ne!(before, big);
    act(&mut a, Action::BigNumbers);
    assert_eq!(a.big_numbers, None);
    assert_eq!(buffer(&mut a, 120, 40), before);
    // Esc takes them away too.
    act(&mut a, Action::BigNumbers);
    act(&mut a, Action::Close);
    assert_eq!(a.big_numbers, None);
    assert_eq!(buffer(&mut a, 120, 40), before);
}

#[test]
fn the_default_figures_carry_their_labels_and_scope_at_both_sizes() {
    for (w, h) in [(120, 40), (80, 24)] {
        let mut a = lesson("dark");
        act(&mut a, Action::BigNumbers);
        let s = text(&buffer(&mut a, w, h));
        for label in [
            "on time · so far",
            "late, within grace · so far",
            "dropped · so far",
        ] {
            assert!(s.contains(label), "{w}×{h}: {label}\n{s}");
        }
        assert!(s.contains("panes · so far"), "{w}×{h}\n{s}");
        assert!(
            !s.contains("more: a bigger terminal"),
            "{w}×{h}: all shown\n{s}"
        );
        // A job adds its wrong cells and crashes, all still shown at 80×24.
        act(&mut a, Action::ToggleJob);
        act(&mut a, Action::JumpToEnd);
        let s = text(&buffer(&mut a, w, h));
        assert!(s.contains("wrong cells"), "{w}×{h}\n{s}");
        assert!(s.contains("crashes · so far"), "{w}×{h}\n{s}");
        assert!(
            !s.contains("more: a bigger terminal"),
            "{w}×{h}: all shown\n{s}"
        );
    }
}

#[test]
fn snapshot_big_numbers_120x40() {
    let mut a = lesson("dark");
    act(&mut a, Action::BigNumbers);
    assert_snapshot!("big_numbers_120x40", terminal(&mut a, 120, 40).backend());
}

#[test]
fn snapshot_big_numbers_80x24() {
    let mut a = lesson("mono");
    act(&mut a, Action::BigNumbers);
    assert_snapshot!("big_numbers_80x24", terminal(&mut a, 80, 24).backend());
}

#[test]
fn snapshot_big_numbers_named_job_80x24() {
    let mut a = lesson("light");
    act(&mut a, Action::ToggleJob);
    act(&mut a, Action::JumpToEnd);
    a.big_numbers = Some(
        ["watermark", "gap", "arrived", "wrong", "state"]
            .map(String::from)
            .to_vec(),
    );
    assert_snapshot!(
        "big_numbers_named_job_80x24",
        terminal(&mut a, 80, 24).backend()
    );
}

#[test]
fn figures_are_named_as_a_lesson_names_them() {
    let names = [
        "on_time",
        "late",
        "dropped",
        "panes",
        "watermark",
        "gap",
        "arrived",
        "wrong",
        "state",
    ]
    .map(String::from);
    let parsed = Figure::parse_all(&names).unwrap();
    assert_eq!(parsed.len(), names.len());
    assert_eq!(parsed[0], Figure::OnTime);
    assert_eq!(
        Figure::parse_all(&["late".into(), "lat".into()]),
        Err("lat".to_string())
    );
    assert_eq!(Figure::chosen(&[], false), Figure::defaults(false));
    assert_eq!(Figure::chosen(&["gap".into()], true), vec![Figure::Gap]);
    assert_eq!(Figure::defaults(true).len(), 6);
}

#[test]
fn the_grid_takes_the_biggest_font_that_fits_and_leaves_out_what_cannot() {
    let v = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    // 80×24 above the footer, inside the border: 78×21.
    let g = grid(&v(&["190", "6", "4", "78"]), 78, 21).unwrap();
    assert_eq!((g.shown, g.cols, g.rows), (4, 2, 2));
    assert_eq!(g.size, font::Size::Large);
    // Five digits are too wide for half the width in the large size: one column of them.
    let g = grid(&v(&["20000", "12", "724", "40"]), 78, 21).unwrap();
    assert_eq!((g.shown, g.cols, g.size), (4, 1, font::Size::Medium));
    let g = grid(&v(&["190", "6", "4", "78", "20", "0"]), 118, 37).unwrap();
    assert_eq!(g.size, font::Size::Large);
    // Too many for a tiny box: those that fit, in the smallest font; none when nothing does.
    let g = grid(&v(&["1", "2", "3", "4", "5", "6", "7"]), 30, 8).unwrap();
    assert!(g.shown < 7 && g.size == font::Size::Small, "{g:?}");
    assert_eq!(grid(&v(&["1"]), 2, 2), None);
}

#[test]
fn no_size_panics_with_bars_and_big_numbers() {
    let mut a = retracting("mono");
    for big in [false, true] {
        a.big_numbers = big.then(Vec::new);
        for (w, h) in [
            (80, 24),
            (81, 25),
            (120, 40),
            (200, 60),
            (40, 10),
            (1, 1),
            (300, 24),
        ] {
            buffer(&mut a, w, h);
        }
    }
}

#[test]
fn bars_labels_and_big_numbers_meet_aa_in_every_theme() {
    let mut failures = Vec::new();
    for theme in ["dark", "light", "mono"] {
        for (w, h) in [(120, 40), (80, 24)] {
            let mut plot = retracting(theme);
            act(&mut plot, Action::Zoom);
            let mut big = lesson(theme);
            act(&mut big, Action::ToggleJob);
            act(&mut big, Action::JumpToEnd);
            act(&mut big, Action::BigNumbers);
            for (what, a) in [("bars", &mut plot), ("big numbers", &mut big)] {
                let buf = buffer(a, w, h);
                let t = &a.theme;
                for term in t.terminals() {
                    for y in 0..h {
                        for x in 0..w {
                            let cell = &buf[(x, y)];
                            let sym = cell.symbol();
                            if sym.trim().is_empty() {
                                continue;
                            }
                            let (fg, bg) = contrast::shown(cell.style(), Style::default(), term);
                            let r = contrast::ratio(fg, bg);
                            let need = use_of(sym).threshold();
                            if r < need && failures.len() < 20 {
                                failures.push(format!(
                                    "{theme} {what} {w}×{h} on {}: {sym:?} at ({x},{y}) {r:.2}:1",
                                    term.name
                                ));
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn the_labels_fit_whole_and_never_run_together() {
    for (w, h) in [(80, 24), (120, 40), (200, 60)] {
        let mut a = lesson("dark");
        act(&mut a, Action::ToggleJob);
        act(&mut a, Action::JumpToEnd);
        let figures: Vec<Figure> = Figure::NAMES
            .iter()
            .map(|&(_, f)| f)
            .take(if w == 80 { 6 } else { 10 })
            .collect();
        let area = ratatui::layout::Rect::new(0, 0, w, h - 1);
        let mut buf = Buffer::empty(area);
        let (_, labels) = view::text::recording(|| view::big::render(&a, &figures, area, &mut buf));
        assert!(labels.len() >= 6, "{w}×{h}: {} labels", labels.len());
        for d in &labels {
            let text = d.line.to_string();
            assert!(text.contains(" · "), "{text:?}");
            assert!(
                usize::from(d.row.width) >= text.chars().count(),
                "{text} cut"
            );
            let scoped = ["so far", "now", "at the end"]
                .iter()
                .any(|s| text.contains(s));
            assert!(scoped, "{w}×{h}: {text:?} says its scope");
        }
        for a in &labels {
            for b in &labels {
                if a.row.y == b.row.y && a.row.x < b.row.x {
                    assert!(a.row.right() < b.row.x, "{w}×{h}: labels run together");
                }
            }
        }
    }
}
