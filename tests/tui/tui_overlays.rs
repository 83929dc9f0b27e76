//! What is drawn over the panels, and the gap's history: the help overlay lists every key of
//! the keymap on its first page and says when there is more; the inspector leaves the
//! inspected event's row in sight; the crash report says how to close it at 80×24 too; the
//! watermark panel's gap history is scaled to the gaps it shows and says its scale.

use std::time::Duration;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use twoclocks::engine::Fate;
use twoclocks::tui::app::{update, Action, App, Msg};
use twoclocks::tui::geometry::{plot::PlotFrame, Areas};
use twoclocks::tui::keymap::{help_rows, KEYMAP};
use twoclocks::tui::theme::{glyph, Theme};
use twoclocks::tui::view::{self, text};

use crate::ui_common::{act_settled, base, drawn, row_text, rows_in};

const SIZES: [(u16, u16); 4] = [(80, 24), (100, 30), (120, 40), (200, 60)];

/// The help overlay at one scroll position: the keys (or glyphs) its lines start with, and
/// the whole screen's text.
fn help_page(a: &mut App, size: (u16, u16), scroll: usize) -> (Vec<String>, String) {
    a.help_scroll = scroll;
    let area = Rect::new(0, 0, size.0, size.1);
    let mut buf = Buffer::empty(area);
    let ((), drawn) = text::recording(|| view::help::render(a, area, &mut buf));
    let keys = drawn
        .iter()
        .filter_map(|d| d.line.spans.first())
        .filter(|s| s.content.starts_with(' '))
        .map(|s| s.content.trim().to_string())
        .collect();
    (keys, rows_in(&buf, area).join("\n"))
}

#[test]
fn the_help_shows_every_key_on_its_first_page_and_says_when_there_is_more() {
    for size in SIZES {
        let mut a = base();
        act_settled(&mut a, Action::Help);
        update(&mut a, Msg::Resize(size.0, size.1), Duration::ZERO);
        let (first, screen) = help_page(&mut a, size, 0);
        for r in help_rows() {
            assert!(
                first.iter().any(|k| k == r.label),
                "{size:?}: key {} not on the help's first page\n{screen}",
                r.label
            );
        }
        // Page on until nothing new shows: every page but the last says "↓ more".
        let all: Vec<String> = view::help::lines(&a)
            .iter()
            .filter_map(|l| l.spans.first())
            .filter(|s| s.content.starts_with(' '))
            .map(|s| s.content.trim().to_string())
            .collect();
        let mut seen = first.clone();
        let mut last = screen;
        for scroll in 1..10 {
            let (keys, screen) = help_page(&mut a, size, scroll);
            let new = keys.iter().any(|k| !seen.contains(k)) || screen != last;
            assert_eq!(
                last.contains("↓ more"),
                new,
                "{size:?} scroll {scroll}: \"↓ more\" must say whether there is more\n{last}"
            );
            seen.extend(keys);
            last = screen;
        }
        for k in all {
            assert!(seen.contains(&k), "{size:?}: {k} never shown");
        }
    }
}

#[test]
fn the_help_legend_explains_the_plot_as_it_is_drawn() {
    let a = base();
    let text: Vec<String> = view::help::lines(&a)
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect();
    let has = |glyphs: &str, words: &str| {
        text.iter()
            .any(|l| l.trim_start().starts_with(glyphs) && l.contains(words))
    };
    assert!(has("· • ● █", "on time"), "{text:#?}");
    assert!(has("⋄ ◆ ⧫", "late"), "{text:#?}");
    assert!(has("ₓ ✕ ✖", "dropped"), "{text:#?}");
    assert!(text.iter().any(|l| l.contains("heavier = more")));
    assert!(has("of N", "so far"));
    assert!(has("╌", "only under f"));
    assert!(has("┃", "window's end"));
    assert!(has("─", "past grace"));
    assert!(has("░", "grace band"));
    assert!(has("┃", "watermark at its arrival"));
    // One key column for every group: the descriptions line up.
    let starts: Vec<usize> = view::help::lines(&a)
        .iter()
        .filter(|l| l.spans.len() == 2)
        .map(|l| l.spans[0].width())
        .collect();
    assert!(starts.windows(2).all(|w| w[0] == w[1]), "{starts:?}");
}

/// The app at the end of the stream, inspecting the first event of `fate`.
fn inspecting_the_first(fate: Fate) -> App {
    let mut a = base();
    // Alerting has late events within grace; the dashboard (no grace) drops them.
    act_settled(
        &mut a,
        Action::Policy(if fate == Fate::Late { 1 } else { 0 }),
    );
    act_settled(&mut a, Action::JumpToEnd);
    a.selection.inspected = a
        .trace()
        .timeline()
        .unwrap()
        .fates()
        .iter()
        .position(|f| *f == fate);
    assert!(a.selection.inspected.is_some());
    a
}

/// The rows the inspector box takes on screen (its title row to its bottom border).
fn inspector_rows(buf: &Buffer, plot: Rect) -> std::ops::Range<u16> {
    let x = plot.x + 1;
    let inside = Rect {
        x,
        width: plot.width - 1,
        ..plot
    };
    let top = (plot.top()..plot.bottom())
        .find(|&y| row_text(buf, inside, y).starts_with("┌ Inspect"))
        .expect("the inspector is drawn");
    let bottom = (top..plot.bottom())
        .find(|&y| buf[(x, y)].symbol() == "└")
        .expect("its bottom border");
    top..bottom + 1
}

#[test]
fn the_inspector_leaves_the_inspected_events_row_in_sight() {
    for fate in [Fate::Dropped, Fate::Late, Fate::OnTime] {
        for size in SIZES {
            let mut a = inspecting_the_first(fate);
            let buf = drawn(&mut a, size);
            let plot = Areas::compute_for(size, false).unwrap().plot;
            let f = PlotFrame::of(&a, plot).unwrap();
            let e = a.scenario().stream.events[a.selection.inspected.unwrap()];
            let (c, r) = (f.col(e.event_time).unwrap(), f.row(e.proc_time).unwrap());
            let (x, y) = (f.inner.x + c, f.inner.y + r);
            let boxed = inspector_rows(&buf, plot);
            assert!(
                !boxed.contains(&y),
                "{fate:?} {size:?}: the event's row {y} is under the inspector {boxed:?}\n{}",
                rows_in(&buf, plot).join("\n")
            );
            assert_eq!(buf[(x, y)].symbol(), glyph::INSPECTED.to_string());
        }
    }
    // An event high on the plot keeps the inspector at the bottom.
    let mut a = inspecting_the_first(Fate::Dropped);
    a.selection.inspected = a
        .trace()
        .timeline()
        .unwrap()
        .fates()
        .iter()
        .rposition(|f| *f == Fate::Dropped);
    let buf = drawn(&mut a, (120, 40));
    let plot = Areas::compute_for((120, 40), false).unwrap().plot;
    assert_eq!(inspector_rows(&buf, plot).end, plot.bottom() - 1);
}

/// The job crashed at 265 s, then replaying for 3 s.
fn crashed() -> App {
    let mut a = base();
    act_settled(&mut a, Action::ToggleJob);
    act_settled(&mut a, Action::TogglePlay);
    update(&mut a, Msg::Tick, Duration::from_secs_f64(26.5));
    act_settled(&mut a, Action::Crash);
    update(&mut a, Msg::Tick, Duration::from_secs_f64(0.3));
    act_settled(&mut a, Action::TogglePlay);
    a
}

#[test]
fn the_crash_report_says_esc_closes_it_at_every_size() {
    for size in SIZES {
        let mut a = crashed();
        let buf = drawn(&mut a, size);
        let plot = Areas::compute_for(size, true).unwrap().plot;
        let shown = rows_in(&buf, plot).join("\n");
        assert!(shown.contains("crashed at 265.6 s"), "{size:?}\n{shown}");
        assert!(shown.contains("Esc closes"), "{size:?}\n{shown}");
    }
}

/// The gap history under its scale's label (the watermark panel's rows from the label on),
/// if the panel has rows for it.
fn gap_chart(buf: &Buffer, panel: Rect) -> Option<(String, Vec<String>)> {
    let inner = Rect {
        x: panel.x + 1,
        y: panel.y + 1,
        width: panel.width - 2,
        height: panel.height - 2,
    };
    let lines = rows_in(buf, inner);
    let at = lines
        .iter()
        .position(|l| l.starts_with("gap history") || l.starts_with("gap 0"))?;
    Some((lines[at].clone(), lines[at + 1..].to_vec()))
}

#[test]
fn the_gap_history_is_scaled_to_the_gaps_it_shows_and_says_its_scale() {
    let mut charts = 0;
    for job in [false, true] {
        for size in [(100, 30), (120, 40), (200, 60)] {
            let mut a = base();
            if job {
                act_settled(&mut a, Action::ToggleJob);
            }
            act_settled(&mut a, Action::TogglePlay);
            update(&mut a, Msg::Tick, Duration::from_secs(30));
            act_settled(&mut a, Action::TogglePlay);
            let buf = drawn(&mut a, size);
            let panel = Areas::compute_for(size, job).unwrap().watermark;
            let Some((label, chart)) = gap_chart(&buf, panel) else {
                continue;
            };
            // A fixed 20 s lag: the gap is about 20 s at every arrival, on a 0–30 s scale.
            assert!(label.contains("0–30s"), "{size:?}: {label}");
            // One row (the scale on its left) has no height to measure.
            if chart.len() < 2 {
                continue;
            }
            charts += 1;
            // In eighths of a row: ▁ is one, █ eight.
            let eighths = |c: char| " ▁▂▃▄▅▆▇█".chars().position(|g| g == c).unwrap_or(8);
            let cells: usize = chart.iter().map(|l| 8 * l.chars().count()).sum();
            let ink: usize = chart
                .iter()
                .map(|l| l.chars().map(eighths).sum::<usize>())
                .sum();
            let share = ink as f64 / cells.max(1) as f64;
            assert!(
                (0.55..0.8).contains(&share),
                "job {job} {size:?}: the bars fill {share:.2} of the chart, not about 2/3\n{}",
                chart.join("\n")
            );
        }
    }
    assert!(
        charts >= 2,
        "a tall gap history is drawn at 120×40 at least"
    );
    assert_eq!(view::watermark::gap_scale(0), 1);
    assert_eq!(view::watermark::gap_scale(20), 30);
    assert_eq!(view::watermark::gap_scale(50), 60);
    assert_eq!(view::watermark::gap_scale(1000), 1200);
}

#[test]
fn the_light_theme_paints_its_background_under_every_overlay() {
    let mut screens = Vec::new();
    let mut a = base();
    act_settled(&mut a, Action::Help);
    screens.push(("help", a));
    let mut a = base();
    act_settled(&mut a, Action::Help);
    a.help_scroll = 1;
    screens.push(("help, next column", a));
    screens.push(("inspector", inspecting_the_first(Fate::Dropped)));
    screens.push(("crash report", crashed()));
    for (what, mut a) in screens {
        a.theme = Theme::light();
        for size in SIZES {
            let buf = drawn(&mut a, size);
            for y in 0..size.1 {
                for x in 0..size.0 {
                    assert_ne!(
                        buf[(x, y)].bg,
                        ratatui::style::Color::Reset,
                        "{what} {size:?}: ({x}, {y}) has the terminal's background"
                    );
                }
            }
        }
    }
}

#[test]
fn the_guides_key_table_names_every_key_of_the_keymap() {
    use crossterm::event::KeyCode;
    use twoclocks::tui::keymap::Key;
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/screen.md")).unwrap();
    let table: Vec<&str> = readme
        .lines()
        .skip_while(|l| !l.starts_with("| key | does |"))
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| l.split('|').nth(1))
        .collect();
    assert!(table.len() > 10, "docs/screen.md's key table");
    let keys = table.join(" ");
    for b in KEYMAP.iter() {
        for k in b.keys {
            let name = match *k {
                Key::Char(' ') => "Space".to_string(),
                Key::Char(c) => format!("`{c}`"),
                Key::Ctrl(c) => format!("Ctrl-{}", c.to_ascii_uppercase()),
                Key::Named(KeyCode::BackTab) => "Shift-Tab".to_string(),
                Key::Named(KeyCode::Up) => "↑".to_string(),
                Key::Named(KeyCode::Down) => "↓".to_string(),
                Key::Named(KeyCode::Left) => "←".to_string(),
                Key::Named(KeyCode::Right) => "→".to_string(),
                Key::Named(KeyCode::F(n)) => format!("F{n}"),
                Key::Named(KeyCode::Esc) => "Esc".to_string(),
                Key::Named(code) => format!("{code:?}"),
            };
            assert!(
                keys.contains(&name),
                "{name} ({}) is not in docs/screen.md's key table",
                b.help
            );
        }
    }
}
