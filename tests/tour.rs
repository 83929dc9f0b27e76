//! The tour: the embedded tour parses and every step's setting is valid; every caption's
//! placeholders are filled at every step, at 80×24, 120×40 and 200×60, and the caption fits
//! its band (with the plot alone too);
//! bad tour files are refused with the file, the line and the field (in process and through
//! the binary, exit code 2); `n`, `N` and `r` move through the steps and put a step back;
//! snapshots of two steps.

mod cli_common;

use std::time::Duration;

use ratatui::backend::TestBackend;
use ratatui::Terminal;
use twoclocks::engine::scenario::ScenarioName;
use twoclocks::tui::app::{update, Action, App, Msg};
use twoclocks::tui::theme::Theme;
use twoclocks::tui::tour::{At, Tour, BIG_FIGURES};
use twoclocks::tui::view;

fn tour() -> App {
    let mut a = App::open_tour(Tour::built_in().unwrap(), Theme::dark()).unwrap();
    a.settle();
    a
}

fn act(a: &mut App, action: Action) {
    update(a, Msg::Action(action), Duration::ZERO);
    a.settle();
}

fn screen(a: &mut App, w: u16, h: u16) -> String {
    update(a, Msg::Resize(w, h), Duration::ZERO);
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| view::render(a, f)).unwrap();
    let buf = t.backend().buffer();
    (0..h)
        .map(|y| (0..w).map(|x| buf[(x, y)].symbol()).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_built_in_tour_parses_and_walks_the_blocks_in_order() {
    let t = Tour::built_in().unwrap();
    let titles: Vec<&str> = t.steps.iter().map(|s| s.title.as_str()).collect();
    let want = [
        "Two clocks",
        "Windowing",
        "watermark",
        "Late data",
        "Triggers",
        "Accumulation",
        "Checkpoint",
        "Barriers",
        "frontier",
    ];
    assert_eq!(titles.len(), want.len(), "{titles:?}");
    for (got, want) in titles.iter().zip(want) {
        assert!(got.contains(want), "{got} should be about {want}");
    }
    // Mostly the lesson; the frontier needs the big classroom stream.
    assert_eq!(t.steps[0].scenario, ScenarioName::Lesson);
    assert_eq!(t.steps[8].scenario, ScenarioName::Classroom);
    // The crash step crashes the job at a set time, before its playhead.
    let crash = &t.steps[6];
    assert!(crash.job && !crash.crash_at.is_empty());
    if let At::Time(p) = crash.playhead {
        assert!(crash.crash_at.iter().all(|&c| c <= p));
    }
    for s in &t.steps {
        assert!(s.big.iter().all(|b| BIG_FIGURES.contains(&b.as_str())));
        assert!(!s.big.is_empty(), "{}: big numbers name a figure", s.title);
    }
}

#[test]
fn every_step_fills_every_placeholder_and_its_caption_fits_at_every_size() {
    let mut a = tour();
    let n = a.tour.as_ref().unwrap().steps.len();
    for k in 0..n {
        assert_eq!(a.tour.as_ref().unwrap().at, k);
        for (w, h) in [(80, 24), (120, 40), (200, 60)] {
            let s = screen(&mut a, w, h);
            assert!(
                s.contains(&format!("step {}/{n}", k + 1)),
                "{w}×{h} step {k}:\n{s}"
            );
            let caption: String = s.lines().skip(1).take(3).collect::<Vec<_>>().join("\n");
            assert!(
                !s.contains('{') && !s.contains('}'),
                "{w}×{h} step {k}: a placeholder is left\n{s}"
            );
            let text = view::caption::text(&a).unwrap();
            assert!(!text.contains('{'), "{text}");
            assert!(
                !caption.contains('…'),
                "{w}×{h} step {k}: the caption is cut\n{caption}"
            );
        }
        // And with the plot alone.
        act(&mut a, Action::Zoom);
        let s = screen(&mut a, 80, 24);
        assert!(s.contains(&format!("step {}/{n}", k + 1)), "zoomed:\n{s}");
        act(&mut a, Action::Zoom);
        act(&mut a, Action::TourNext);
    }
}

#[test]
fn n_and_capital_n_move_through_the_steps_and_say_so_at_the_ends() {
    let mut a = tour();
    act(&mut a, Action::TourPrev);
    assert_eq!(a.tour.as_ref().unwrap().at, 0);
    assert!(a.status.as_ref().unwrap().text.contains("first step"));
    act(&mut a, Action::TourNext);
    act(&mut a, Action::TourNext);
    assert_eq!(a.tour.as_ref().unwrap().at, 2);
    // Step 3 sets its playhead and dials.
    let step = a.tour.as_ref().unwrap().step().clone();
    if let At::Time(t) = step.playhead {
        assert!(
            (a.playhead.now - t).abs() < 1e-9,
            "{} vs {t}",
            a.playhead.now
        );
    }
    act(&mut a, Action::TourPrev);
    assert_eq!(a.tour.as_ref().unwrap().at, 1);
    let n = a.tour.as_ref().unwrap().steps.len();
    for _ in 0..n + 2 {
        act(&mut a, Action::TourNext);
    }
    assert_eq!(a.tour.as_ref().unwrap().at, n - 1);
    assert!(a.status.as_ref().unwrap().text.contains("last step"));
    assert_eq!(
        a.tour_big_figures().map(|b| b.to_vec()),
        Some(vec!["dropped".to_string(), "wrong".to_string()])
    );
}

#[test]
fn the_dials_stay_live_and_r_puts_the_step_back() {
    let mut a = tour();
    act(&mut a, Action::TourNext);
    act(&mut a, Action::TourNext);
    act(&mut a, Action::TourNext);
    let (dials, now, window) = (a.dials, a.playhead.now, a.selection.window);
    act(&mut a, Action::GraceUp);
    act(&mut a, Action::GraceUp);
    act(&mut a, Action::Restart);
    assert_ne!(a.dials, dials, "the dials turn during a step");
    assert_ne!(a.playhead.now, now);
    act(&mut a, Action::TourReset);
    assert_eq!(a.dials, dials);
    assert_eq!(a.playhead.now, now);
    assert_eq!(a.selection.window, window);
    assert!(a.status.as_ref().unwrap().text.contains("back"));
}

#[test]
fn the_crash_step_is_a_job_that_crashed_and_replayed() {
    let mut a = tour();
    for _ in 0..6 {
        act(&mut a, Action::TourNext);
    }
    assert!(a.parallel, "job mode");
    assert_eq!(a.trace.crashes().len(), 1);
    let f = a.figures();
    assert!(f.checkpoints > 0, "{f:?}");
    // Leaving the job step for the next goes on in job mode; the step before is single.
    act(&mut a, Action::TourPrev);
    assert!(!a.parallel);
    assert!(a.trace.crashes().is_empty());
}

#[test]
fn outside_a_tour_the_tour_keys_say_there_is_none() {
    let mut a = tour();
    a.tour = None;
    for k in [Action::TourNext, Action::TourPrev, Action::TourReset] {
        act(&mut a, k);
        assert!(a.status.as_ref().unwrap().text.contains("no tour"), "{k:?}");
    }
    assert_eq!(a.tour_big_figures(), None);
}

fn bad(text: &str) -> String {
    Tour::parse("lesson.toml", text).unwrap_err().to_string()
}

const GOOD_STEP: &str = "[[step]]\ntitle = \"One\"\ncaption = \"{late} late\"\n";

#[test]
fn a_good_small_tour_parses() {
    let t = Tour::parse("lesson.toml", GOOD_STEP).unwrap();
    assert_eq!(t.steps.len(), 1);
    assert_eq!(t.steps[0].scenario, ScenarioName::Lesson);
    assert_eq!(t.steps[0].magnify, None, "the scenario's own");
    let t = Tour::parse(
        "lesson.toml",
        &format!("{GOOD_STEP}show = [\"plot\", \"counters\"]\nmagnify = \"off\"\n"),
    )
    .unwrap();
    let show = t.steps[0].show;
    assert!(show.shows("plot") && show.shows("counters") && show.shows("footer"));
    assert!(!show.shows("watermark") && !show.shows("dials"));
    assert_eq!(t.steps[0].magnify, Some(None));
}

#[test]
fn a_step_keeps_back_the_panels_it_does_not_show_in_their_places() {
    let mut a = tour();
    act(&mut a, Action::TourNext);
    let s = screen(&mut a, 120, 40);
    for kept in ["watermark", "counters", "dials", "panes", "frontier"] {
        assert!(
            s.contains(&format!("{kept} · later in the tour")),
            "{kept}\n{s}"
        );
    }
    assert!(s.contains("Windows · 30s tumbling"), "{s}");
    // The step showing everything draws every panel.
    for _ in 0..3 {
        act(&mut a, Action::TourNext);
    }
    let s = screen(&mut a, 120, 40);
    assert!(!s.contains("later in the tour"), "{s}");
}

#[test]
fn bad_tour_files_name_the_file_the_line_and_the_field() {
    let cases = [
        // A wrong type.
        (
            format!("{GOOD_STEP}job = \"yes\"\n"),
            "lesson.toml: line 4: job:",
        ),
        // An unknown field.
        (
            format!("{GOOD_STEP}colour = \"red\"\n"),
            "lesson.toml: line 4: colour:",
        ),
        // An unknown placeholder.
        (
            "[[step]]\ntitle = \"One\"\n\ncaption = \"{lateness} late\"\n".to_string(),
            "lesson.toml: line 4: caption: unknown placeholder {lateness}",
        ),
        // A bad scenario.
        (
            format!("{GOOD_STEP}scenario = \"rainy\"\n"),
            "lesson.toml: line 4: scenario: \"rainy\" is not a scenario",
        ),
        // A dial out of range.
        (
            format!("{GOOD_STEP}grace = \"99m\"\n"),
            "lesson.toml: line 4: grace:",
        ),
        // A panel that is not one.
        (
            format!("{GOOD_STEP}highlight = \"sidebar\"\n"),
            "lesson.toml: line 4: highlight:",
        ),
        // A playhead past the stream's end.
        (
            format!("{GOOD_STEP}playhead = \"90m\"\n"),
            "lesson.toml: line 4: playhead:",
        ),
        // A crash without the job.
        (
            format!("{GOOD_STEP}playhead = \"2m\"\ncrash_at = [\"1m\"]\n"),
            "lesson.toml: line 5: crash_at:",
        ),
        // A panel to show that is not one, and a word that is not a way of showing.
        (
            format!("{GOOD_STEP}show = [\"plot\", \"legend\"]\n"),
            "lesson.toml: line 4: show: \"legend\" is not a panel",
        ),
        (
            format!("{GOOD_STEP}show = \"some\"\n"),
            "lesson.toml: line 4: show:",
        ),
        // A magnification out of range, or not a duration.
        (
            format!("{GOOD_STEP}magnify = \"5m\"\n"),
            "lesson.toml: line 4: magnify:",
        ),
        (
            format!("{GOOD_STEP}magnify = \"on\"\n"),
            "lesson.toml: line 4: magnify:",
        ),
        // A big figure that is not one.
        (
            format!("{GOOD_STEP}big = [\"speed\"]\n"),
            "lesson.toml: line 4: big:",
        ),
        // Not TOML at all.
        ("[[step]\ntitle = 1\n".to_string(), "lesson.toml: line 1:"),
        // No steps.
        ("step = []\n".to_string(), "lesson.toml: line 1: step:"),
    ];
    for (text, want) in cases {
        let got = bad(&text);
        assert!(got.starts_with(want), "{got}\n  wanted {want}\n---\n{text}");
    }
}

#[test]
fn the_binary_refuses_a_bad_tour_before_the_ui_opens() {
    let dir = std::env::temp_dir().join(format!("twoclocks-tour-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.toml");
    std::fs::write(&path, format!("{GOOD_STEP}scenario = \"rainy\"\n")).unwrap();
    let (code, _, err) = cli_common::twoclocks_text(&["tour", "--tour", path.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bad.toml: line 4: scenario"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    // A file that cannot be read: its path and the system's reason, and no line.
    let (code, _, err) = cli_common::twoclocks_text(&["tour", "--tour", "/nonexistent/t.toml"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "/nonexistent/t.toml: the tour file cannot be read (No such file or directory"
        ),
        "{err}"
    );
    assert!(!err.contains("line"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
    // A good tour with no terminal to draw in: one line, exit code 2.
    let (code, _, err) = cli_common::twoclocks_text(&["tour"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("needs a terminal"), "{err}");
}

#[test]
fn snapshot_step_one_at_80x24() {
    let mut a = tour();
    insta::assert_snapshot!("tour_step1_80x24", screen(&mut a, 80, 24));
}

#[test]
fn snapshot_the_late_data_step_at_120x40() {
    let mut a = tour();
    for _ in 0..3 {
        act(&mut a, Action::TourNext);
    }
    insta::assert_snapshot!("tour_step4_120x40", screen(&mut a, 120, 40));
}

#[test]
fn a_frontier_swept_for_the_step_before_is_not_taken_for_another_stream() {
    let text = "[[step]]\ntitle = \"A\"\ncaption = \"a\"\nscenario = \"classroom\"\n\
                [[step]]\ntitle = \"B\"\ncaption = \"b\"\nscenario = \"punctual\"\n";
    let mut a = App::open_tour(Tour::parse("t.toml", text).unwrap(), Theme::dark()).unwrap();
    let old = a.take_work();
    assert!(!old.is_empty(), "the first step's frontier is asked for");
    update(&mut a, Msg::Action(Action::TourNext), Duration::ZERO);
    for w in old {
        update(&mut a, Msg::Done(Box::new(w.perform())), Duration::ZERO);
    }
    assert!(
        a.frontier().is_none(),
        "the classroom's frontier is not the punctual stream's"
    );
    a.settle();
    assert!(a.frontier().is_some());
}

#[test]
fn a_tour_can_be_recorded_and_a_recording_of_something_else_is_refused() {
    let dir = std::env::temp_dir().join(format!("twoclocks-tour-rec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rec = dir.join("plain.rec");
    std::fs::write(&rec, "twoclocks-record 1\n0 flags []\n5 end\n").unwrap();
    let (code, _, err) = cli_common::twoclocks_text(&["tour", "--replay", rec.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("recorded with no flags"), "{err}");
    assert!(err.contains("this run has tour"), "{err}");
    let (code, _, err) =
        cli_common::twoclocks_text(&["tour", "--record", "same.rec", "--cast", "same.rec"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("three different files"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn b_shows_the_figures_each_step_is_about() {
    let mut a = tour();
    let n = a.tour.as_ref().unwrap().steps.len();
    for k in 0..n {
        let names = a.tour_big_figures().unwrap().to_vec();
        act(&mut a, Action::BigNumbers);
        let s = screen(&mut a, 120, 40);
        for name in &names {
            // Each figure's label (`on_time` reads "on time").
            let label = name.replace('_', " ");
            assert!(s.contains(&label), "step {}: {label} missing:\n{s}", k + 1);
        }
        act(&mut a, Action::BigNumbers);
        act(&mut a, Action::TourNext);
    }
}
