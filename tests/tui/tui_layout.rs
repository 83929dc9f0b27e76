//! Layout tests for the terminal UI: every panel, in every mode (single and job; accumulating,
//! discarding, retracting; each watermark kind; help open; after a crash; two policies side by
//! side) at 80×24, 100×30, 120×40 and 200×60, drawn with ratatui's TestBackend. A panel must stay
//! inside its area, no line it draws may be cut by its edge (the view records each line as it meant
//! it, see `view::text`), no title may be cut by a corner, and two texts must not run into each
//! other. Then the space: the plot takes what the other panels do not need.

use std::sync::OnceLock;
use std::time::Duration;

use ratatui::buffer::{Buffer, Cell};
use ratatui::layout::Rect;
use ratatui::text::Line;
use twoclocks::engine::window::WindowFn;
use twoclocks::engine::EngineConfig;
use twoclocks::tui::app::{update, Action, App, Dial, Msg};
use twoclocks::tui::geometry::Areas;
use twoclocks::tui::panel::Panel;
use twoclocks::tui::scenario::{Scenario, ScenarioName};
use twoclocks::tui::theme::Theme;
use twoclocks::tui::view::{self, text};
use twoclocks::tui::{app_for, Options};

use crate::ui_common::{act_settled, drawn, row_text};

const SIZES: [(u16, u16); 4] = [(80, 24), (100, 30), (120, 40), (200, 60)];

fn base() -> App {
    static BASE: OnceLock<App> = OnceLock::new();
    BASE.get_or_init(|| {
        let mut a = app_for(Options {
            scenario: Scenario::classroom(),
            config: EngineConfig {
                early: Some(10_000.0),
                ..EngineConfig::fixed(20_000.0, 30_000.0)
            },
            speed: 10.0,
            theme: Theme::dark(),
            play: false,
        });
        a.settle();
        a
    })
    .clone()
}

/// Plays `secs` of processing time (at 10×) and pauses.
fn play(a: &mut App, secs: f64) {
    act_settled(a, Action::TogglePlay);
    update(a, Msg::Tick, Duration::from_secs_f64(secs / 10.0));
    act_settled(a, Action::TogglePlay);
    a.settle();
}

/// The states every panel is drawn in, named.
fn states() -> Vec<(String, App)> {
    let mut v = Vec::new();
    for acc in 0..3 {
        for wm in 0..4 {
            let mut a = base();
            for _ in 0..acc {
                act_settled(&mut a, Action::CycleAccumulation);
            }
            for _ in 0..wm {
                act_settled(&mut a, Action::CycleWatermark);
            }
            play(&mut a, 300.0);
            let name = format!(
                "single {} {}",
                view::dials::value(&a.dials(), Dial::Accumulation),
                a.dials().watermark()
            );
            v.push((name, a));
        }
    }
    let mut a = base();
    act_settled(&mut a, Action::CycleAccumulation);
    act_settled(&mut a, Action::CycleAccumulation);
    act_settled(&mut a, Action::JumpToEnd);
    v.push(("single retract at the end".into(), a.clone()));
    let mut all_keys = a.clone();
    while all_keys.selection.key.is_some() {
        act_settled(&mut all_keys, Action::CycleKey);
    }
    act_settled(&mut all_keys, Action::Inspect);
    v.push(("single all keys, inspecting".into(), all_keys));
    act_settled(&mut a, Action::Help);
    v.push(("single help".into(), a));
    let mut a = base();
    act_settled(&mut a, Action::ToggleJob);
    play(&mut a, 200.0);
    v.push(("job".into(), a.clone()));
    let mut b = a.clone();
    for _ in 0..2 {
        act_settled(&mut b, Action::CycleAccumulation);
        act_settled(&mut b, Action::CycleWatermark);
        v.push((
            format!(
                "job {} {}",
                view::dials::value(&b.dials(), Dial::Accumulation),
                b.dials().watermark()
            ),
            b.clone(),
        ));
    }
    act_settled(&mut a, Action::Help);
    v.push(("job help".into(), a));
    // A checkpoint in flight: its barriers on their way, operators aligning.
    let mut a = base();
    act_settled(&mut a, Action::ToggleJob);
    for _ in 0..400 {
        act_settled(&mut a, Action::Step);
        let pending = !a
            .trace()
            .job()
            .unwrap()
            .pipeline()
            .topology()
            .pending_checkpoints
            .is_empty();
        if pending && a.playhead().now > 100_000.0 {
            break;
        }
    }
    v.push(("job with a checkpoint in flight".into(), a));
    v.push(("job after a crash".into(), crashed()));
    let mut a = crashed();
    act_settled(&mut a, Action::Help);
    for _ in 0..30 {
        act_settled(&mut a, Action::FocusNext);
    }
    v.push(("job after a crash, help scrolled".into(), a));
    v.push(("single sliding windows".into(), sliding()));
    let mut a = crashed();
    act_settled(&mut a, Action::PickOperator);
    act_settled(&mut a, Action::PickOperator);
    act_settled(&mut a, Action::JumpToEnd);
    v.push(("job at the end, an operator picked".into(), a));
    // Two policies side by side: a single run and a job after a crash, B's dials pinned.
    let mut a = base();
    act_settled(&mut a, Action::SideBySide);
    act_settled(&mut a, Action::Policy(2));
    play(&mut a, 300.0);
    assert!(a.side.is_some());
    v.push(("single side by side".into(), a));
    let mut a = crashed();
    act_settled(&mut a, Action::SideBySide);
    act_settled(&mut a, Action::LagUp);
    assert!(a.side.is_some() && a.trace().job().is_some());
    v.push(("job side by side after a crash".into(), a));
    v
}

/// 60 s windows every 20 s, at 300 s.
fn sliding() -> App {
    let window = WindowFn::sliding(60_000, 20_000).unwrap();
    let mut a = app_for(Options {
        scenario: Scenario::built_in(ScenarioName::Classroom, &window).unwrap(),
        config: EngineConfig {
            window,
            ..EngineConfig::fixed(20_000.0, 30_000.0)
        },
        speed: 10.0,
        theme: Theme::dark(),
        play: false,
    });
    a.settle();
    play(&mut a, 300.0);
    a
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

fn is_word(c: char) -> bool {
    c.is_alphanumeric()
}

/// What is wrong with one drawn line: cut by its row's edge, or two spans run together.
fn line_faults(d: &text::Drawn) -> Vec<String> {
    let mut v = Vec::new();
    let s: String = d.line.spans.iter().map(|s| s.content.as_ref()).collect();
    let want = Line::from(s.trim_end().to_string()).width();
    if want > usize::from(d.row.width) {
        v.push(format!(
            "cut: {s:?} needs {want} columns, has {} at {:?}",
            d.row.width, d.row
        ));
    }
    for pair in d.line.spans.windows(2) {
        let (a, b) = (pair[0].content.as_ref(), pair[1].content.as_ref());
        if let (Some(x), Some(y)) = (a.chars().last(), b.chars().next()) {
            if is_word(x) && is_word(y) {
                v.push(format!("run together: {a:?} + {b:?} in {s:?}"));
            }
        }
    }
    v
}

/// Every fault of every panel of `a` at `size`.
fn faults(a: &mut App, size: (u16, u16)) -> Vec<String> {
    update(a, Msg::Resize(size.0, size.1), Duration::ZERO);
    let areas = Areas::compute_for(size, a.trace().job().is_some()).unwrap();
    let screen = Rect::new(0, 0, size.0, size.1);
    let mut v = Vec::new();
    for (name, r) in areas.panels() {
        let mut buf = Buffer::empty(screen);
        let ((), drawn) = text::recording(|| view::draw_panel(a, name, r, areas.mode, &mut buf));
        for y in screen.top()..screen.bottom() {
            for x in screen.left()..screen.right() {
                if !r.contains((x, y).into()) && buf[(x, y)] != Cell::default() {
                    v.push(format!("{name} writes outside its area at ({x}, {y})"));
                }
            }
        }
        for d in &drawn {
            if !r.contains(d.row.as_position()) || d.row.right() > r.right() {
                v.push(format!("{name}: a line placed outside the panel: {d:?}"));
            }
            v.extend(line_faults(d).into_iter().map(|f| format!("{name}: {f}")));
        }
        // A title cut by the corner: a word's character right before it.
        if name != Panel::Footer && r.width > 2 {
            for y in [r.top(), r.bottom() - 1] {
                let c = buf[(r.right() - 2, y)]
                    .symbol()
                    .chars()
                    .next()
                    .unwrap_or(' ');
                if is_word(c) {
                    v.push(format!("{name}: title cut: {:?}", row_text(&buf, r, y)));
                }
            }
        }
    }
    if a.overlay.is_some() {
        let mut buf = Buffer::empty(screen);
        let ((), drawn) = text::recording(|| view::help::render(a, screen, &mut buf));
        for d in &drawn {
            v.extend(line_faults(d).into_iter().map(|f| format!("help: {f}")));
        }
    }
    v
}

#[test]
fn no_text_is_cut_or_runs_into_another_in_any_mode_at_any_size() {
    let mut all = Vec::new();
    for (name, mut a) in states() {
        for size in SIZES {
            for f in faults(&mut a, size) {
                all.push(format!("{name} at {}×{}: {f}", size.0, size.1));
            }
        }
    }
    all.dedup();
    assert!(all.is_empty(), "{} faults:\n{}", all.len(), all.join("\n"));
}

/// The text of `r`'s inner rows in `buf`.
fn inner_rows(buf: &Buffer, r: Rect) -> Vec<String> {
    (r.top() + 1..r.bottom().saturating_sub(1))
        .map(|y| row_text(buf, Rect::new(r.x + 1, y, r.width.saturating_sub(2), 1), y))
        .collect()
}

#[test]
fn the_plot_takes_the_space_the_panels_do_not_need() {
    for (name, mut a) in [("single", states().swap_remove(0).1), ("job", crashed())] {
        let mut last = 0;
        for size in SIZES {
            let areas = Areas::compute_for(size, a.trace().job().is_some()).unwrap();
            let plot = areas.plot.area();
            assert!(
                plot > last,
                "{name}: the plot does not grow at {size:?}: {plot} after {last}"
            );
            last = plot;
            // On a big screen, most of it.
            let share = f64::from(plot) / f64::from(areas.screen.area());
            let want = match size.0 {
                0..120 => 0.3,
                120..200 => 0.4,
                _ => 0.6,
            };
            assert!(
                share >= want,
                "{name} at {size:?}: plot {:?} is {:.0}% of the screen",
                areas.plot,
                share * 100.0
            );
            // On a tall screen the other panels all fit in the right-hand column but the
            // watermark band under the plot: the plot has the rest of the left side.
            if size == (200, 60) {
                assert_eq!(areas.plot.height, 59 - 12, "{name}: {:?}", areas.plot);
                assert_eq!(areas.watermark.y, areas.plot.bottom(), "{name}");
                assert_eq!(areas.watermark.width, areas.plot.width, "{name}");
            }
            // The text panels are no taller than their text: at most 2 rows empty.
            let buf = drawn(&mut a, size);
            for (panel, r) in areas.panels() {
                if ![
                    Panel::Counters,
                    Panel::Dials,
                    Panel::Windows,
                    Panel::Topology,
                    Panel::Sinks,
                ]
                .contains(&panel)
                {
                    continue;
                }
                let empty = inner_rows(&buf, r)
                    .iter()
                    .rev()
                    .take_while(|l| l.trim().is_empty())
                    .count();
                assert!(
                    empty <= 2,
                    "{name} at {size:?}: {panel} has {empty} empty rows:\n{}",
                    inner_rows(&buf, r).join("\n")
                );
            }
        }
    }
}

#[test]
fn job_mode_shows_the_checkpoint_dial_and_the_checkpoint_line_at_every_size() {
    let mut a = crashed();
    for size in SIZES {
        let buf = drawn(&mut a, size);
        let areas = Areas::compute_for(size, true).unwrap();
        let track = twoclocks::tui::geometry::dials::track(areas.dials, Dial::Checkpoint);
        assert!(track.is_some(), "no ckpt dial at {size:?}");
        let dials = inner_rows(&buf, areas.dials).join("\n");
        assert!(dials.contains("ckpt") && dials.contains("10s"), "{dials}");
        let topo = inner_rows(&buf, areas.topology.unwrap()).join("\n");
        assert!(topo.contains("ckpt ╾ #26 at 260.0s"), "{size:?}:\n{topo}");
    }
}

/// The whole screen's text.
fn screen_text(buf: &Buffer) -> String {
    (buf.area.top()..buf.area.bottom())
        .map(|y| row_text(buf, buf.area, y))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_number_says_its_scope() {
    let mut a = base();
    play(&mut a, 300.0);
    for size in SIZES {
        let buf = drawn(&mut a, size);
        let areas = Areas::compute_for(size, false).unwrap();
        let text = screen_text(&buf);
        // The counters stop at the playhead; the frontier's numbers are the whole run's.
        let counters = row_text(&buf, areas.counters, areas.counters.y);
        assert!(counters.contains("Counters · so far"), "{counters}");
        assert!(text.contains("at the end: lost 245"), "{size:?}\n{text}");
        // The score counts cells (window × key), and says so.
        assert!(text.contains("39/40 cells wrong") || text.contains("39 of 40 cells wrong"));
        assert!(!text.contains("windows wrong"), "{text}");
    }
    // With sliding windows an event counts once per window: the fates count placements.
    let mut a = sliding();
    for size in SIZES {
        let buf = drawn(&mut a, size);
        let areas = Areas::compute_for(size, false).unwrap();
        let title = row_text(&buf, areas.counters, areas.counters.y);
        assert!(title.contains("Placements so far") || title.contains("placements so far"));
        let text = screen_text(&buf);
        assert!(text.contains(" placements"), "{size:?}: {text}");
    }
}

#[test]
fn the_sinks_say_they_count_cells() {
    let mut a = crashed();
    for size in SIZES {
        let buf = drawn(&mut a, size);
        let areas = Areas::compute_for(size, true).unwrap();
        let sinks = areas.sinks.unwrap();
        let title = row_text(&buf, sinks, sinks.y);
        assert!(title.contains("cells ≠ oracle"), "{title}");
        assert!(inner_rows(&buf, sinks)[0].contains("wrong"));
    }
}

#[test]
fn the_discarding_pane_history_adds_up() {
    // Window 3, key a, early every 10 s, grace 30 s: EARLY, ON_TIME and LATE panes.
    let mut a = base();
    act_settled(&mut a, Action::CycleAccumulation);
    act_settled(&mut a, Action::JumpToEnd);
    let cell = a.selected_cell().unwrap();
    let truth = a.scenario().oracle.truth[&cell] as i64;
    let lines = view::windows::pane_lines(&a, cell, 40);
    let head: String = lines[0].spans.iter().map(|s| s.content.as_ref()).collect();
    assert!(head.contains("+new") && head.contains("sum"), "{head}");
    let mut sum = 0;
    for l in &lines[1..] {
        let s: String = l.spans.iter().map(|s| s.content.as_ref()).collect();
        let f: Vec<&str> = s.split_whitespace().collect();
        let (new, shown, diff): (i64, i64, i64) = (
            f[2].parse().unwrap(),
            f[3].parse().unwrap(),
            f[4].parse().unwrap(),
        );
        sum += new;
        assert_eq!(shown, sum, "{s}");
        assert_eq!(diff, sum - truth, "{s}");
    }
    assert!(lines.len() > 5, "{lines:#?}");
    assert_eq!(
        sum,
        a.trace().timeline().unwrap().cell_value(cell) as i64,
        "the panes add up"
    );
}

#[test]
fn after_a_crash_the_screen_says_processing_time_went_back() {
    let mut a = crashed();
    for size in SIZES {
        let buf = drawn(&mut a, size);
        let areas = Areas::compute_for(size, true).unwrap();
        let wm = inner_rows(&buf, areas.watermark).join("\n");
        assert!(
            wm.contains("263.0s") && wm.contains("back from 265.6s"),
            "{size:?}\n{wm}"
        );
    }
    // Once the replay has caught up with the crash, the clock reads as usual again.
    act_settled(&mut a, Action::JumpToEnd);
    let buf = drawn(&mut a, (120, 40));
    assert!(!screen_text(&buf).contains("back from"));
}

#[test]
fn an_open_window_short_of_the_oracle_is_not_drawn_as_an_error() {
    let mut a = base();
    play(&mut a, 300.0);
    let buf = drawn(&mut a, (120, 40));
    let areas = Areas::compute((120, 40)).unwrap();
    let dropped = a.theme.dropped.fg.unwrap();
    let rows = inner_rows(&buf, areas.windows);
    let (mut open, mut wrong) = (0, 0);
    for (i, row) in rows.iter().enumerate() {
        let y = areas.windows.y + 1 + i as u16;
        // The Δ column: 9 + 5 + 7 columns in, 6 wide.
        let x = areas.windows.x + 1 + 21 + 5;
        let cell = &buf[(x, y)];
        if row.contains("○ open") && row.contains('-') {
            open += 1;
            assert_ne!(cell.fg, dropped, "open window drawn as an error: {row}");
        } else if row.contains("■ final") && row.contains('-') {
            wrong += 1;
            assert_eq!(
                cell.fg, dropped,
                "final wrong value not drawn as one: {row}"
            );
        }
    }
    assert!(open > 0 && wrong > 0, "{rows:#?}");
}

#[test]
fn in_job_mode_too_a_shortfall_is_red_only_once_the_window_is_final() {
    let mut a = crashed();
    let buf = drawn(&mut a, (120, 40));
    let areas = Areas::compute_for((120, 40), true).unwrap();
    let dropped = a.theme.dropped.fg.unwrap();
    let rows = inner_rows(&buf, areas.windows);
    let job = a.trace().job().unwrap();
    let (mut open, mut wrong) = (0, 0);
    // Under the header, a row a window; the last row splits the selected window's excess.
    let split = rows.last().unwrap();
    assert!(
        split.contains("180–240s") && split.contains("re-add"),
        "{rows:#?}"
    );
    let shown = rows.len() - 2;
    for (i, w) in a.scenario().oracle.windows.iter().enumerate().take(shown) {
        let y = areas.windows.y + 2 + i as u16;
        let row = &rows[i + 1];
        let f: Vec<i64> = row
            .split_whitespace()
            .skip(1)
            .map(|v| v.parse().unwrap())
            .collect();
        let (value, truth) = (f[0], f[4]);
        // The job's own value: 8 columns in, 6 wide.
        let cell = &buf[(areas.windows.x + 1 + 13, y)];
        if value < truth && job.is_final(*w) {
            wrong += 1;
            assert_eq!(cell.fg, dropped, "final and short: {row}");
        } else if value < truth {
            open += 1;
            assert_ne!(cell.fg, dropped, "open and short drawn as an error: {row}");
        }
    }
    assert!(open > 0 && wrong > 0, "{rows:#?}");
}
