//! The lesson stream is small enough that each event is its own mark: with the plot
//! magnified as the lesson opens it (`m`, one second of event time a column, following the
//! playhead), no two arrived events share a cell, at every playhead, at 80×24, 120×40 and
//! 200×60, with all panels and with the plot alone, in the UI and at every tour step that
//! magnifies; and the screen draws one fate glyph per event in view.

use std::collections::HashSet;
use std::time::Duration;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use twoclocks::engine::scenario::ScenarioName;
use twoclocks::tui::app::{update, Action, App, Dials, Msg};
use twoclocks::tui::scenario::Scenario;
use twoclocks::tui::theme::{glyph, Theme};
use twoclocks::tui::tour::Tour;
use twoclocks::tui::view;

const SIZES: [(u16, u16); 3] = [(80, 24), (120, 40), (200, 60)];

fn lesson() -> App {
    let preset = ScenarioName::Lesson.preset();
    let s = Scenario::built_in(ScenarioName::Lesson, &preset.config.window).unwrap();
    let mut a = App::new(s, Dials::from_config(&preset.config, 1.0), Theme::dark());
    a.settle();
    a
}

/// The arrived events inside the plot's frame, and the cells they fall in.
fn marks(a: &App) -> (usize, HashSet<(u16, u16)>) {
    let areas = a.areas(a.size).unwrap();
    let f = a.plot_frame(areas.plot).unwrap();
    let mut n = 0;
    let mut cells = HashSet::new();
    for e in &a.scenario().stream.events[..a.playhead().arrived] {
        if let (Some(c), Some(r)) = (f.col(e.event_time), f.row(e.proc_time)) {
            n += 1;
            cells.insert((c, r));
        }
    }
    (n, cells)
}

/// The fate glyphs drawn inside the plot's frame.
fn glyphs(a: &App) -> usize {
    let area = Rect::new(0, 0, a.size.0, a.size.1);
    let mut buf = Buffer::empty(area);
    view::draw(a, area, &mut buf);
    let f = a.plot_frame(a.areas(a.size).unwrap().plot).unwrap().inner;
    let mut n = 0;
    for y in f.y..f.bottom() {
        for x in f.x..f.right() {
            let c = buf[(x, y)].symbol().chars().next().unwrap_or(' ');
            n += usize::from(glyph::ink(c).is_some());
        }
    }
    n
}

/// Plays on for one second of processing time (the lesson plays at 1×).
fn one_second(a: &mut App) {
    a.playing = true;
    update(a, Msg::Tick, Duration::from_secs(1));
}

#[test]
fn the_lesson_opens_magnified_to_a_second_a_column() {
    let a = lesson();
    assert_eq!(a.magnify, Some(1_000.0), "the lesson opens magnified");
}

#[test]
fn every_lesson_event_is_its_own_mark_at_every_playhead_and_size() {
    for size in SIZES {
        for zoomed in [false, true] {
            let mut a = lesson();
            update(&mut a, Msg::Resize(size.0, size.1), Duration::ZERO);
            a.zoomed = zoomed;
            let end = a.scenario().oracle.proc_time.1;
            let mut t = 0.0;
            let mut seen = 0;
            while t <= end + 1_000.0 {
                let (n, cells) = marks(&a);
                assert_eq!(
                    cells.len(),
                    n,
                    "{size:?} zoomed {zoomed} at {t} ms: {n} events in {} cells",
                    cells.len()
                );
                if t % 10_000.0 == 0.0 {
                    assert_eq!(glyphs(&a), n, "{size:?} zoomed {zoomed} at {t} ms: glyphs");
                }
                seen = seen.max(n);
                one_second(&mut a);
                t += 1_000.0;
            }
            assert!(seen > 10, "{size:?}: the plot showed at most {seen} events");
        }
    }
}

#[test]
fn every_tour_step_that_magnifies_shows_each_event_once() {
    for size in SIZES {
        let mut a = App::open_tour(Tour::built_in().unwrap(), Theme::dark()).unwrap();
        a.settle();
        let steps = a.tour.as_ref().unwrap().steps.len();
        for k in 0..steps {
            update(&mut a, Msg::Resize(size.0, size.1), Duration::ZERO);
            // At the lesson's own scale, 1 s a column (a step that keeps a window in view
            // at a small size may show it at a coarser one, where marks can share a cell and
            // weigh by their count).
            let areas = a.areas(a.size).unwrap();
            let per_column = a.plot_frame(areas.plot).map_or(0.0, |f| f.cell_size().0);
            if a.magnify.is_some() && a.scenario().name == "lesson" && per_column <= 1_000.0 + 1e-9
            {
                let (n, cells) = marks(&a);
                assert_eq!(cells.len(), n, "{size:?} step {}", k + 1);
                // A job's crash report is drawn over the plot: the glyphs are counted
                // outside job mode.
                if a.trace().pipeline_config().is_none() {
                    assert_eq!(glyphs(&a), n, "{size:?} step {}: glyphs", k + 1);
                }
            }
            update(&mut a, Msg::Action(Action::TourNext), Duration::ZERO);
            a.settle();
        }
    }
}

#[test]
fn m_shows_the_whole_stream_from_any_magnification_and_comes_back() {
    let mut a = lesson();
    let whole = a.scenario().oracle.proc_time;
    let frame = |a: &App| a.plot_frame(a.areas(a.size).unwrap().plot).unwrap();
    assert!(frame(&a).y.1 - frame(&a).y.0 < whole.1 - whole.0);
    let mut seen = vec![a.magnify];
    for _ in 0..3 {
        update(&mut a, Msg::Action(Action::Magnify), Duration::ZERO);
        seen.push(a.magnify);
    }
    // The lesson's own scale, the whole stream, and back.
    assert_eq!(seen, [Some(1_000.0), None, Some(1_000.0), None]);
    assert_eq!(frame(&a).y, whole, "the whole stream");
    // From any other magnification too, one `m` shows the whole stream.
    for per_column in [100.0, 4_000.0, 60_000.0] {
        a.magnify = Some(per_column);
        update(&mut a, Msg::Action(Action::Magnify), Duration::ZERO);
        assert_eq!(a.magnify, None, "from {per_column} ms a column");
        assert_eq!(frame(&a).y, whole, "from {per_column} ms a column");
    }
}
