//! Rendering tests for the terminal UI: screen snapshots with ratatui's TestBackend at 120×40,
//! 80×24 and 50×15; buffer assertions for the styles that carry meaning; and a size matrix
//! that must never panic.

use std::time::Duration;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};
use twoclocks::engine::EngineConfig;
use twoclocks::engine::Stream;
use twoclocks::tui::app::{update, Action, App, Dial, Msg};
use twoclocks::tui::geometry::Areas;
use twoclocks::tui::scenario::Scenario;
use twoclocks::tui::theme::{glyph, Theme};
use twoclocks::tui::view;
use twoclocks::tui::{app_for, Options};

use crate::kept_snapshots::assert_snapshot;
use crate::ui_common::{act, base, buffer, lines, rows_in, terminal};

/// The app paused at processing time 300 s.
fn midway(theme: Theme) -> App {
    let mut a = base();
    a.theme = theme;
    act(&mut a, Action::TogglePlay);
    update(&mut a, Msg::Tick, Duration::from_secs(30));
    act(&mut a, Action::TogglePlay);
    a
}

#[test]
fn snapshot_full_120x40_midway() {
    let mut a = midway(Theme::dark());
    assert_snapshot!("full_120x40_midway", terminal(&mut a, 120, 40).backend());
}

#[test]
fn snapshot_full_120x40_dashboard_end_inspected() {
    let mut a = base();
    act(&mut a, Action::Policy(0));
    act(&mut a, Action::JumpToEnd);
    let dropped = a
        .trace()
        .timeline()
        .unwrap()
        .fates()
        .iter()
        .rposition(|f| *f == twoclocks::engine::Fate::Dropped);
    a.selection.inspected = dropped;
    assert_snapshot!(
        "full_120x40_dashboard_end_inspected",
        terminal(&mut a, 120, 40).backend()
    );
}

#[test]
fn snapshot_compact_80x24_midway() {
    let mut a = midway(Theme::mono());
    assert_snapshot!("compact_80x24_midway", terminal(&mut a, 80, 24).backend());
}

#[test]
fn snapshot_compact_80x24_help() {
    let mut a = midway(Theme::mono());
    act(&mut a, Action::Help);
    assert_snapshot!("compact_80x24_help", terminal(&mut a, 80, 24).backend());
}

#[test]
fn snapshot_too_small_50x15() {
    let mut a = midway(Theme::dark());
    assert_snapshot!("too_small_50x15", terminal(&mut a, 50, 15).backend());
}

/// The job crashed at 265 s (the 180–240 s window had just fired), then replaying for 3 s.
fn crashed(theme: Theme) -> App {
    let mut a = base();
    a.theme = theme;
    act(&mut a, Action::ToggleJob);
    act(&mut a, Action::TogglePlay);
    update(&mut a, Msg::Tick, Duration::from_secs_f64(26.5));
    act(&mut a, Action::Crash);
    update(&mut a, Msg::Tick, Duration::from_secs_f64(0.3));
    act(&mut a, Action::TogglePlay);
    a
}

#[test]
fn snapshot_full_120x40_job_after_a_crash() {
    let mut a = crashed(Theme::dark());
    let said = a.trace().job().unwrap().last_crash().unwrap().to_string();
    assert!(
        said.contains("; restored checkpoint #26 (taken at 260.0 s"),
        "{said}"
    );
    assert_snapshot!(
        "full_120x40_job_after_a_crash",
        terminal(&mut a, 120, 40).backend()
    );
}

#[test]
fn snapshot_compact_80x24_job_after_a_crash() {
    let mut a = crashed(Theme::dark());
    a.crash_pick = Some(2);
    assert_snapshot!(
        "compact_80x24_job_after_a_crash",
        terminal(&mut a, 80, 24).backend()
    );
}

#[test]
fn replayed_events_are_drawn_apart() {
    let mut a = crashed(Theme::mono());
    let buf = buffer(&mut a, 120, 40);
    let replayed = buf
        .content()
        .iter()
        .filter(|c| c.symbol() == glyph::REPLAYED.to_string())
        .count();
    assert!(replayed > 0);
    let ticks = buf
        .content()
        .iter()
        .filter(|c| c.symbol() == glyph::CHECKPOINT.to_string())
        .count();
    assert!(ticks > 5, "checkpoint ticks on the axis");
}

#[test]
fn no_size_panics_in_job_mode() {
    let mut a = crashed(Theme::dark());
    a.crash_pick = Some(3);
    for (w, h) in [
        (1, 1),
        (0, 0),
        (79, 23),
        (80, 24),
        (81, 25),
        (100, 30),
        (119, 39),
        (120, 40),
        (200, 60),
        (300, 90),
    ] {
        for help in [false, true] {
            a.overlay = None;
            if help {
                act(&mut a, Action::Help);
            }
            let buf = buffer(&mut a, w, h);
            assert_eq!(buf.area, Rect::new(0, 0, w, h));
        }
    }
}

#[test]
fn no_size_panics() {
    let mut a = midway(Theme::dark());
    a.selection.inspected = Some(10);
    for (w, h) in [
        (1, 1),
        (0, 0),
        (0, 10),
        (10, 0),
        (79, 23),
        (79, 40),
        (120, 23),
        (80, 24),
        (81, 25),
        (119, 39),
        (120, 40),
        (200, 60),
        (300, 90),
    ] {
        for help in [false, true] {
            a.overlay = None;
            if help {
                act(&mut a, Action::Help);
            }
            let buf = buffer(&mut a, w, h);
            assert_eq!(buf.area, Rect::new(0, 0, w, h));
        }
        // Drawing into an area that does not start at the origin.
        let mut buf = Buffer::empty(Rect::new(3, 2, w, h));
        view::draw(&a, Rect::new(3, 2, w, h), &mut buf);
    }
}

#[test]
fn too_small_says_what_it_needs() {
    let mut a = base();
    let buf = buffer(&mut a, 79, 23);
    let text: String = buf.content().iter().map(|c| c.symbol()).collect();
    assert!(text.contains("terminal too small: need 80×24, have 79×23"));
}

/// The cells of the plot's inner area holding `g` (a fate's glyph: in any of its weights).
fn plot_cells(buf: &Buffer, app: &App, g: char) -> Vec<(u16, u16)> {
    use twoclocks::engine::Fate;
    let areas = Areas::compute((buf.area.width, buf.area.height)).unwrap();
    let f = twoclocks::tui::geometry::plot::PlotFrame::of(app, areas.plot).unwrap();
    let fate = [Fate::OnTime, Fate::Late, Fate::Dropped]
        .into_iter()
        .find(|&f| Theme::fate_glyph(f) == g);
    let is = |c: char| match fate {
        Some(fate) => glyph::ramp(fate).iter().any(|r| r.0 == c),
        None => c == g,
    };
    let mut v = Vec::new();
    for y in f.inner.top()..f.inner.bottom() {
        for x in f.inner.left()..f.inner.right() {
            if buf[(x, y)].symbol().chars().next().is_some_and(is) {
                v.push((x, y));
            }
        }
    }
    v
}

#[test]
fn fates_differ_by_glyph_and_colour() {
    let mut a = base();
    act(&mut a, Action::Policy(1)); // alerting: late within grace and dropped both occur
    act(&mut a, Action::JumpToEnd);
    let buf = buffer(&mut a, 120, 40);
    let t = Theme::dark();
    for (g, colour) in [
        (glyph::DROPPED, t.dropped.fg.unwrap()),
        (glyph::LATE, t.late.fg.unwrap()),
        (glyph::ON_TIME, t.on_time.fg.unwrap()),
        (glyph::WATERMARK, t.watermark.fg.unwrap()),
    ] {
        let cells = plot_cells(&buf, &a, g);
        assert!(!cells.is_empty(), "no {g} on the plot");
        for xy in cells {
            assert_eq!(buf[xy].fg, colour, "{g} at {xy:?}");
        }
    }
}

#[test]
fn mono_has_no_colour_but_keeps_the_glyphs() {
    let mut a = base();
    a.theme = Theme::mono();
    act(&mut a, Action::Policy(1));
    act(&mut a, Action::JumpToEnd);
    let buf = buffer(&mut a, 120, 40);
    for c in buf.content() {
        assert_eq!(c.fg, Color::Reset, "colour in mono at {:?}", c.symbol());
        assert_eq!(c.bg, Color::Reset);
    }
    for g in [
        glyph::DROPPED,
        glyph::LATE,
        glyph::ON_TIME,
        glyph::WATERMARK,
    ] {
        assert!(!plot_cells(&buf, &a, g).is_empty(), "no {g} in mono");
    }
    // Late and dropped are bold, so they stand out without colour.
    let xy = plot_cells(&buf, &a, glyph::DROPPED)[0];
    assert!(buf[xy].modifier.contains(Modifier::BOLD));
}

#[test]
fn the_focused_dial_is_reversed() {
    let mut a = base();
    act(&mut a, Action::FocusNext); // grace
    let buf = buffer(&mut a, 120, 40);
    let areas = Areas::compute((120, 40)).unwrap();
    let grace = twoclocks::tui::geometry::dials::track(areas.dials, Dial::Grace).unwrap();
    let lag = twoclocks::tui::geometry::dials::track(areas.dials, Dial::Lag).unwrap();
    let label = |r: Rect| &buf[(areas.dials.x + 2, r.y)];
    assert!(label(grace).modifier.contains(Modifier::REVERSED));
    assert!(!label(lag).modifier.contains(Modifier::REVERSED));
}

#[test]
fn the_selected_window_row_is_reversed() {
    let mut a = base();
    let buf = buffer(&mut a, 120, 40);
    let areas = Areas::compute((120, 40)).unwrap();
    // Header row, then windows 0..: the selected one is window 3.
    let y = areas.windows.y + 2 + 3;
    let row: String = (areas.windows.x + 1..areas.windows.x + 10)
        .map(|x| buf[(x, y)].symbol().to_string())
        .collect();
    assert!(row.starts_with("180–240s"), "{row}");
    assert!(buf[(areas.windows.x + 1, y)]
        .modifier
        .contains(Modifier::REVERSED));
}

#[test]
fn the_dropped_counter_reads_the_reference_figure() {
    let mut a = base();
    act(&mut a, Action::JumpToEnd);
    act(&mut a, Action::Policy(0));
    let buf = buffer(&mut a, 80, 24);
    let lines = lines(&buf);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("dropped") && l.trim_end_matches('│').trim_end().ends_with("1283")),
        "{lines:#?}"
    );
}

#[test]
fn the_pane_history_reads_like_block_5() {
    // Window 3, key a, fixed 20 s, early every 15 s, grace ∞: EARLY panes, ON_TIME, then LATE.
    let mut a = app_for(Options {
        scenario: Scenario::classroom(),
        config: EngineConfig {
            early: Some(15_000.0),
            ..EngineConfig::fixed(20_000.0, f64::INFINITY)
        },
        speed: 10.0,
        theme: Theme::mono(),
        play: false,
    });
    act(&mut a, Action::JumpToEnd);
    let buf = buffer(&mut a, 120, 40);
    let areas = Areas::compute((120, 40)).unwrap();
    let panes = areas.panes.unwrap();
    let lines = rows_in(&buf, panes);
    let squash = |l: &String| l.split_whitespace().collect::<Vec<_>>().join(" ");
    let lines: Vec<String> = lines.iter().map(squash).collect();
    assert!(
        lines.iter().any(|l| l.contains("EARLY 195.9s 96 -377")),
        "{lines:#?}"
    );
    assert!(
        lines.iter().any(|l| l.contains("EARLY 241.0s 440 -33")),
        "{lines:#?}"
    );
    assert!(lines.iter().any(|l| l.contains("more")), "{lines:#?}");
    assert!(
        lines.iter().any(|l| l.contains("LATE 324.1s 473 +0")),
        "{lines:#?}"
    );
}

#[test]
fn snapshot_compact_80x24_help_scrolled() {
    let mut a = midway(Theme::mono());
    act(&mut a, Action::Help);
    for _ in 0..10 {
        act(&mut a, Action::FocusNext);
    }
    assert_snapshot!(
        "compact_80x24_help_scrolled",
        terminal(&mut a, 80, 24).backend()
    );
}

#[test]
fn every_theme_gives_each_fate_its_own_look() {
    for theme in [Theme::dark(), Theme::light(), Theme::mono()] {
        let looks: Vec<_> = [
            twoclocks::engine::Fate::OnTime,
            twoclocks::engine::Fate::Late,
            twoclocks::engine::Fate::Dropped,
        ]
        .into_iter()
        .map(|f| (Theme::fate_glyph(f), theme.fate(f)))
        .collect();
        for i in 0..looks.len() {
            for j in i + 1..looks.len() {
                assert_ne!(looks[i].0, looks[j].0, "{:?}: glyphs", theme.name);
                if theme.name != twoclocks::tui::theme::ThemeName::Mono {
                    assert_ne!(looks[i].1.fg, looks[j].1.fg, "{:?}: colours", theme.name);
                }
            }
        }
    }
}

/// A rendered screen as text, one line per row, trailing blanks cut.
fn text(a: &mut App, w: u16, h: u16) -> String {
    let rows = lines(&buffer(a, w, h));
    let rows: Vec<&str> = rows.iter().map(|r| r.trim_end()).collect();
    rows.join("\n")
}

const SCREEN_PAGE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/screen.md");

/// With `TWOCLOCKS_WRITE_GOLDEN` set, writes `drawn` as the `text` block of the guide's screen
/// page that follows the paragraph starting with `caption` (the page regenerated in place).
fn write_block(caption: &str, drawn: &str) {
    if std::env::var_os("TWOCLOCKS_WRITE_GOLDEN").is_none() {
        return;
    }
    let page = std::fs::read_to_string(SCREEN_PAGE).unwrap();
    let at = page.find(caption).unwrap();
    let open = page[at..].find("```text\n").unwrap() + at + 8;
    let close = page[open..].find("```").unwrap() + open;
    let new = format!("{}{drawn}\n{}", &page[..open], &page[close..]);
    std::fs::write(SCREEN_PAGE, new).unwrap();
}

/// The `text` block of the guide's screen page (`docs/screen.md`) that follows the paragraph
/// starting with `caption`.
fn readme_block(caption: &str) -> String {
    let readme = std::fs::read_to_string(SCREEN_PAGE).unwrap();
    let at = readme
        .find(caption)
        .unwrap_or_else(|| panic!("docs/screen.md has no paragraph starting {caption:?}"));
    let rest = &readme[at..];
    let open = rest
        .find("```text\n")
        .expect("a text block after the caption")
        + 8;
    let close = rest[open..].find("```").expect("the block ends") + open;
    rest[open..close]
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

/// The screenshots of the guide's screen page (`docs/screen.md`) are what the program draws
/// today (`TWOCLOCKS_WRITE_GOLDEN=1` writes them anew when a screen changes).
#[test]
fn the_guides_screenshots_are_current() {
    let mut end = base();
    act(&mut end, Action::JumpToEnd);
    let drawn = text(&mut end, 120, 40);
    write_block("The classroom stream at its end, `120×40`", &drawn);
    assert_eq!(
        readme_block("The classroom stream at its end, `120×40`"),
        drawn,
        "docs/screen.md's 120×40 screenshot is stale; it should read:\n{drawn}"
    );
    let mut crash = crashed(Theme::dark());
    let drawn = text(&mut crash, 80, 24);
    write_block("Job mode at `80×24` after a crash", &drawn);
    assert_eq!(
        readme_block("Job mode at `80×24` after a crash"),
        drawn,
        "docs/screen.md's 80×24 job screenshot is stale; it should read:\n{drawn}"
    );
    let mut s = sessions(Theme::mono());
    act(&mut s, Action::CycleKey);
    let drawn = text(&mut s, 80, 24);
    write_block("Sessions at `80×24`", &drawn);
    assert_eq!(
        readme_block("Sessions at `80×24`"),
        drawn,
        "docs/screen.md's 80×24 sessions screenshot is stale; it should read:\n{drawn}"
    );
    let mut g = global_ttl(Theme::mono());
    let drawn = text(&mut g, 80, 24);
    write_block("The global window under a `3s` TTL at `80×24`", &drawn);
    assert_eq!(
        readme_block("The global window under a `3s` TTL at `80×24`"),
        drawn,
        "docs/screen.md's 80×24 global-window screenshot is stale; it should read:\n{drawn}"
    );
}

/// Job mode at 250 s with s1 cut off at 150 s (picked with `P` twice), not healed.
fn cut_off(theme: Theme) -> App {
    let mut a = base();
    a.theme = theme;
    act(&mut a, Action::ToggleJob);
    act(&mut a, Action::TogglePlay);
    update(&mut a, Msg::Tick, Duration::from_secs_f64(15.0));
    act(&mut a, Action::TogglePlay);
    act(&mut a, Action::PickPartition);
    act(&mut a, Action::PickPartition);
    act(&mut a, Action::CutPartition);
    act(&mut a, Action::TogglePlay);
    update(&mut a, Msg::Tick, Duration::from_secs_f64(10.0));
    act(&mut a, Action::TogglePlay);
    a
}

/// The topology panel alone, drawn into its rectangle of the job's layout at `w`×`h`.
fn topology_panel(a: &mut App, w: u16, h: u16) -> String {
    update(a, Msg::Resize(w, h), Duration::ZERO);
    let r = Areas::compute_for((w, h), true)
        .and_then(|g| g.topology)
        .expect("a topology panel");
    let area = Rect::new(0, 0, r.width, r.height);
    let mut buf = Buffer::empty(area);
    view::topology::render(a, area, &mut buf);
    lines(&buf).join("\n")
}

#[test]
fn snapshot_topology_during_an_outage() {
    let mut a = cut_off(Theme::mono());
    assert!(a.trace().partitions()[1].is_out);
    for (w, h) in [(120, 40), (80, 24)] {
        let panel = topology_panel(&mut a, w, h);
        assert!(panel.contains("out since"), "{panel}");
        assert_snapshot!(format!("topology_{w}x{h}_partition_cut_off"), panel);
    }
}

/// 300 events over 600 s (the classroom generator's other dials) in 10 s-gap sessions with
/// 30 s of grace, paused at processing time 250 s: sessions fired, finalised and open, late
/// events merging into fired ones.
fn sessions(theme: Theme) -> App {
    use twoclocks::engine::StreamParams;
    use twoclocks::engine::WindowFn;
    let window = WindowFn::session(10_000).unwrap();
    let stream = Stream::generate(&StreamParams {
        events: 300,
        ..StreamParams::default()
    })
    .unwrap();
    let mut a = app_for(Options {
        scenario: Scenario::new("classroom (custom)", stream, &window),
        config: EngineConfig {
            window,
            ..EngineConfig::fixed(20_000.0, 30_000.0)
        },
        speed: 10.0,
        theme,
        play: true,
    });
    a.settle();
    update(&mut a, Msg::Tick, Duration::from_secs(25));
    act(&mut a, Action::TogglePlay);
    a
}

/// The global window under a 3 s processing-time TTL with 10 s early panes, 1 000 events,
/// paused at processing time 120 s: every key reset many times.
fn global_ttl(theme: Theme) -> App {
    use twoclocks::engine::window::{Ttl, TtlTime};
    use twoclocks::engine::StreamParams;
    use twoclocks::engine::WindowFn;
    let window = WindowFn::global(Some(Ttl {
        ms: 3_000,
        time: TtlTime::Processing,
    }))
    .unwrap();
    let stream = Stream::generate(&StreamParams {
        events: 1_000,
        ..StreamParams::default()
    })
    .unwrap();
    let mut a = app_for(Options {
        scenario: Scenario::new("classroom (custom)", stream, &window),
        config: EngineConfig {
            window,
            early: Some(10_000.0),
            ..EngineConfig::fixed(20_000.0, 0.0)
        },
        speed: 10.0,
        theme,
        play: true,
    });
    a.settle();
    update(&mut a, Msg::Tick, Duration::from_secs(12));
    act(&mut a, Action::TogglePlay);
    a
}

fn count(buf: &Buffer, g: char) -> usize {
    buf.content()
        .iter()
        .filter(|c| c.symbol() == g.to_string())
        .count()
}

#[test]
fn snapshot_sessions_120x40() {
    let mut a = sessions(Theme::dark());
    let buf = buffer(&mut a, 120, 40);
    assert!(count(&buf, view::plot::MERGE) > 0, "a merge is marked");
    assert!(
        count(&buf, view::plot::SESSION_START) > 20,
        "sessions in lanes"
    );
    assert_snapshot!("sessions_120x40", terminal(&mut a, 120, 40).backend());
}

#[test]
fn snapshot_sessions_80x24() {
    let mut a = sessions(Theme::mono());
    act(&mut a, Action::CycleKey);
    assert_snapshot!("sessions_80x24", terminal(&mut a, 80, 24).backend());
}

#[test]
fn snapshot_global_ttl_120x40() {
    let mut a = global_ttl(Theme::dark());
    let buf = buffer(&mut a, 120, 40);
    assert!(
        count(&buf, view::plot::EXPIRY) > 0,
        "expirations on the axis"
    );
    assert_snapshot!("global_ttl_120x40", terminal(&mut a, 120, 40).backend());
}

#[test]
fn snapshot_global_ttl_80x24() {
    let mut a = global_ttl(Theme::mono());
    assert_snapshot!("global_ttl_80x24", terminal(&mut a, 80, 24).backend());
}

#[test]
fn sessions_and_the_global_window_never_panic_at_any_size() {
    for mut a in [sessions(Theme::dark()), global_ttl(Theme::mono())] {
        for (w, h) in [
            (0, 0),
            (1, 1),
            (79, 23),
            (80, 24),
            (120, 40),
            (200, 60),
            (300, 90),
        ] {
            let buf = buffer(&mut a, w, h);
            assert_eq!(buf.area, Rect::new(0, 0, w, h));
        }
    }
}

/// The windows table's value, oracle and Δ columns each size to the widest number they show,
/// right-aligned with a space before each: a key's window of 75 000 events half-way through
/// ran the oracle into Δ (`  75002-38281`) (at 5·10^7 events value, oracle and Δ all ran
/// together). At 120×40 and 80×24, every row's three numbers stand apart and add up.
#[test]
fn the_windows_tables_numbers_stand_apart_however_large() {
    let mut a = crate::ui_common::ui(&["--events", "300000", "--window", "600s", "--paused"]);
    crate::ui_common::play(&mut a, 300.0);
    a.settle();
    for (w, h) in [(120, 40), (80, 24)] {
        let text = crate::ui_common::drawn_text(&mut a, (w, h));
        let rows: Vec<&str> = text
            .lines()
            .filter_map(|l| {
                let at = l.find("│0–600s ")?;
                Some(&l[at + "│".len()..])
            })
            .collect();
        assert!(!rows.is_empty(), "{w}×{h}: no windows table row:\n{text}");
        for row in rows {
            let cells: Vec<&str> = row
                .split(['│', '║'])
                .next()
                .unwrap()
                .split_whitespace()
                .collect();
            let number = |i: usize| -> i64 {
                cells
                    .get(i)
                    .and_then(|c| c.parse().ok())
                    .unwrap_or_else(|| panic!("{w}×{h}: cell {i} of {row:?} is no number"))
            };
            let (value, oracle, diff) = (number(1), number(2), number(3));
            // Δ as wide as its column was, so that the old layout ran the oracle into it.
            assert!(diff <= -10_000, "{w}×{h}: {row:?}");
            assert_eq!(value - oracle, diff, "{w}×{h}: {row:?}");
        }
    }
}

/// The panes panel's columns size to their numbers too: an early pane of a key's window of
/// 75 000 events ran its value into Δ (`  36721-38281`).
#[test]
fn the_panes_numbers_stand_apart_however_large() {
    let mut a = crate::ui_common::ui(&[
        "--events", "300000", "--window", "600s", "--early", "10s", "--paused",
    ]);
    crate::ui_common::play(&mut a, 300.0);
    a.settle();
    // 80×24 has no room for the panes panel.
    for (w, h) in [(120, 40)] {
        let text = crate::ui_common::drawn_text(&mut a, (w, h));
        let rows: Vec<&str> = text
            .lines()
            .filter_map(|l| {
                let at = l.find("│EARLY ")?;
                Some(&l[at + "│".len()..])
            })
            .collect();
        assert!(!rows.is_empty(), "{w}×{h}: no early pane:\n{text}");
        for row in rows {
            let cells: Vec<&str> = row.split('│').next().unwrap().split_whitespace().collect();
            let number = |i: usize| -> i64 {
                cells
                    .get(i)
                    .and_then(|c| c.parse().ok())
                    .unwrap_or_else(|| panic!("{w}×{h}: cell {i} of {row:?} is no number"))
            };
            assert!(number(2) > 0, "{w}×{h}: {row:?}");
            assert!(number(3) <= -10_000, "{w}×{h}: {row:?}");
        }
    }
}
