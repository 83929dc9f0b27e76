//! Update tests for the terminal UI: sequences of actions applied to the state, with no
//! terminal, checked against what the engine says for the same dials.

use std::time::Duration;

use twoclocks::engine::rerun::RerunDone;
use twoclocks::engine::timeline::Timeline;
use twoclocks::engine::{EngineConfig, Fate, WatermarkKind};
use twoclocks::tui::app::{update, Action, Dial, Done, Msg, Overlay, Work};
use twoclocks::tui::geometry::Areas;

use crate::ui_common::*;

#[test]
fn end_then_policies_give_the_reference_drops() {
    let mut a = app();
    act(&mut a, Action::JumpToEnd);
    assert!(a.playhead().finished);
    assert_eq!(timeline(&a).arrived(), 20_000);
    act(&mut a, Action::Policy(0));
    assert_eq!(timeline(&a).counters().dropped, 1283);
    act(&mut a, Action::Policy(1));
    assert!(timeline(&a).counters().dropped > 0);
    act(&mut a, Action::Policy(2));
    assert_eq!(timeline(&a).counters().dropped, 0);
    assert_eq!(
        a.dials().watermark(),
        WatermarkKind::Fixed { lag: 10_000.0 }
    );
    assert_eq!(a.dials().grace, 90_000.0);
}

#[test]
fn a_paused_tick_changes_nothing() {
    let mut a = app();
    let before = a.playhead();
    assert!(!tick(&mut a, 5.0));
    assert_eq!(a.playhead(), before);
}

#[test]
fn no_tick_moves_the_playhead_under_the_help_or_while_a_rerun_is_pending() {
    let mut a = app();
    act(&mut a, Action::TogglePlay);
    act(&mut a, Action::Help);
    let before = a.playhead();
    assert!(!a.clock_runs());
    assert!(!tick(&mut a, 6.0), "the help overlay holds the clock");
    assert_eq!(a.playhead(), before);
    act(&mut a, Action::Close);
    assert!(a.clock_runs());
    a.steered.set_inline_events(0);
    act(&mut a, Action::LagUp);
    assert!(a.steered.rerunning());
    assert!(!tick(&mut a, 6.0), "a pending re-run holds the clock");
    assert_eq!(a.playhead(), before);
    a.settle();
    assert!(a.clock_runs());
    assert!(tick(&mut a, 0.1));
    assert_eq!(a.playhead().now, before.now + 1_000.0);
}

#[test]
fn playing_advances_by_elapsed_time_times_speed() {
    let mut a = app();
    act(&mut a, Action::TogglePlay);
    assert!(a.playing);
    assert!(tick(&mut a, 3.0));
    assert_eq!(a.playhead().now, 30_000.0);
    let expect = a
        .scenario()
        .stream
        .events
        .iter()
        .filter(|e| e.proc_time <= 30_000.0)
        .count();
    assert_eq!(a.playhead().arrived, expect);
    assert_eq!(timeline(&a).arrived(), expect);
    act(&mut a, Action::Faster);
    assert_eq!(a.dials().speed, 20.0);
    tick(&mut a, 1.0);
    assert_eq!(a.playhead().now, 50_000.0);
}

#[test]
fn playing_to_the_end_finishes_and_stops() {
    let mut a = app();
    act(&mut a, Action::TogglePlay);
    tick(&mut a, 10_000.0);
    assert!(a.playhead().finished);
    assert!(!a.playing);
    assert!(timeline(&a).is_finished());
    assert_eq!(timeline(&a).open_cells(), 0);
    // Play again from the end starts over.
    act(&mut a, Action::TogglePlay);
    assert!(a.playing);
    assert_eq!(a.playhead().arrived, 0);
}

#[test]
fn a_dial_change_reruns_to_the_same_playhead() {
    let mut a = app();
    act(&mut a, Action::TogglePlay);
    tick(&mut a, 30.0);
    act(&mut a, Action::TogglePlay);
    let arrived = a.playhead().arrived;
    act(&mut a, Action::LagUp);
    act(&mut a, Action::GraceUp);
    assert_eq!(a.dials().lag, 21_000.0);
    assert_eq!(a.dials().grace, 5_000.0);
    assert_eq!(timeline(&a).arrived(), arrived);
    let fresh = Timeline::run_to(a.dials().config(), &a.scenario().stream, arrived, false);
    assert_eq!(timeline(&a).fates(), fresh.fates());
    assert_eq!(timeline(&a).counters(), fresh.counters());
    assert_eq!(timeline(&a).config().grace, 5_000.0);
}

#[test]
fn step_moves_exactly_one_event() {
    let mut a = app();
    for n in 1..=3 {
        assert!(act(&mut a, Action::Step));
        assert_eq!(timeline(&a).arrived(), n);
        assert_eq!(
            a.playhead().now,
            a.scenario().stream.events[n - 1].proc_time
        );
    }
    act(&mut a, Action::TogglePlay);
    let before = a.playhead();
    act(&mut a, Action::Step);
    assert_eq!(a.playhead(), before, "no stepping while playing");
    assert!(said(&a).contains("pause"), "{}", said(&a));
}

#[test]
fn focus_and_arrows_turn_the_focused_dial() {
    let mut a = app();
    assert_eq!(a.selection.focus, Dial::Lag);
    act(&mut a, Action::FocusPrev);
    assert_eq!(a.selection.focus, Dial::Accumulation);
    act(&mut a, Action::FocusNext);
    act(&mut a, Action::FocusNext);
    assert_eq!(a.selection.focus, Dial::Grace);
    act(&mut a, Action::DialUp);
    act(&mut a, Action::DialUp);
    assert_eq!(a.dials().grace, 10_000.0);
    for _ in 0..10 {
        act(&mut a, Action::DialDown);
    }
    assert_eq!(a.dials().grace, 0.0, "clamped at zero");
    for _ in 0..30 {
        act(&mut a, Action::LagDown);
    }
    assert_eq!(a.dials().lag, 0.0);
    act(&mut a, Action::EarlyUp);
    assert_eq!(a.dials().early, Some(5_000.0));
    act(&mut a, Action::EarlyDown);
    assert_eq!(a.dials().early, None);
    act(&mut a, Action::CycleWatermark);
    assert_eq!(a.dials().watermark().family(), "heuristic");
    assert!(!a.dials().has_lag());
    act(&mut a, Action::CycleAccumulation);
    assert_eq!(timeline(&a).config().accumulation.name(), "discarding");
}

#[test]
fn the_help_overlay_takes_keys_until_closed() {
    let mut a = app();
    act(&mut a, Action::Help);
    assert_eq!(a.overlay, Some(Overlay::Help));
    act(&mut a, Action::LagUp);
    assert_eq!(a.dials().lag, 20_000.0);
    act(&mut a, Action::FocusNext);
    act(&mut a, Action::FocusNext);
    assert_eq!(a.help_scroll, 2, "↓ scrolls the help");
    assert_eq!(a.selection.focus, Dial::Lag, "and leaves the dials alone");
    act(&mut a, Action::Close);
    assert_eq!(a.overlay, None);
    act(&mut a, Action::Help);
    assert_eq!(a.help_scroll, 0);
    act(&mut a, Action::Help);
    assert_eq!(a.overlay, None, "? toggles");
    act(&mut a, Action::Quit);
    assert!(a.quit);
}

#[test]
fn window_and_key_selection() {
    let mut a = app();
    assert_eq!(a.selection.window, 3, "the reference's window 3");
    assert_eq!(a.selection.key, Some(0));
    for _ in 0..20 {
        act(&mut a, Action::WindowNext);
    }
    assert_eq!(a.selection.window, a.scenario().oracle.windows.len() - 1);
    for _ in 0..20 {
        act(&mut a, Action::WindowPrev);
    }
    assert_eq!(a.selection.window, 0);
    let keys: Vec<_> = (0..5)
        .map(|_| {
            act(&mut a, Action::CycleKey);
            a.selection.key
        })
        .collect();
    assert_eq!(keys, vec![Some(1), Some(2), Some(3), None, Some(0)]);
}

#[test]
fn inspect_explains_with_the_engines_sentence() {
    let mut a = app();
    act(&mut a, Action::Policy(0));
    act(&mut a, Action::JumpToEnd);
    act(&mut a, Action::Inspect);
    assert_eq!(a.selection.inspected, Some(19_999));
    let dropped = timeline(&a)
        .fates()
        .iter()
        .position(|f| *f == Fate::Dropped)
        .unwrap();
    a.selection.inspected = Some(dropped);
    let why = timeline(&a).inspect(&a.scenario().stream, dropped).unwrap();
    let (window, fate) = why.windows[0];
    let sentence = twoclocks::tui::lesson::why::sentence(&why, window, fate);
    assert!(sentence.contains("− grace 0s ≥"), "{sentence}");
    act(&mut a, Action::Close);
    assert_eq!(a.selection.inspected, None);
}

#[test]
fn a_click_on_the_plot_picks_the_nearest_event() {
    let mut a = app();
    act(&mut a, Action::JumpToEnd);
    let areas = Areas::compute(a.size).unwrap();
    let (col, row) = (areas.plot.x + 40, areas.plot.y + 10);
    assert!(update(&mut a, Msg::Click(col, row), Duration::ZERO));
    let picked = a.selection.inspected.expect("an event is picked");
    assert!(picked < 20_000);
    // A click outside both the plot and the dials does nothing.
    a.selection.inspected = None;
    assert!(!update(
        &mut a,
        Msg::Click(areas.footer.x, areas.footer.y),
        Duration::ZERO
    ));
}

#[test]
fn a_click_on_a_dial_track_sets_it() {
    let mut a = app();
    let areas = Areas::compute(a.size).unwrap();
    let track = twoclocks::tui::geometry::dials::track(areas.dials, Dial::Grace).unwrap();
    update(
        &mut a,
        Msg::Click(track.right() - 1, track.y),
        Duration::ZERO,
    );
    assert_eq!(a.selection.focus, Dial::Grace);
    assert_eq!(a.dials().grace, 300_000.0);
    update(&mut a, Msg::Drag(track.x, track.y), Duration::ZERO);
    assert_eq!(a.dials().grace, 0.0);
}

#[test]
fn big_inputs_rerun_off_the_ui_task_a_newer_change_cancelling_the_older() {
    let mut a = app();
    a.steered.set_inline_events(0);
    act(&mut a, Action::JumpToEnd);
    let drawn = timeline(&a).config().watermark;
    act(&mut a, Action::LagUp);
    assert!(a.steered.rerunning());
    assert_eq!(
        timeline(&a).config().watermark,
        drawn,
        "the last result stays"
    );
    let first = a.take_work();
    assert_eq!(first.len(), 1);
    assert!(matches!(&first[0], Work::Rerun(job) if !job.rerun.is_job()));
    // A newer change cancels the older run, which stops and is dropped.
    act(&mut a, Action::LagUp);
    let second = a.take_work();
    assert_eq!(second.len(), 1, "a change goes out at once");
    act(&mut a, Action::LagUp);
    for w in first.into_iter().chain(second) {
        let done = w.perform();
        assert!(
            matches!(done, Done::Rerun(RerunDone::Cancelled { .. })),
            "{done:?}"
        );
        assert!(!update(&mut a, Msg::Done(Box::new(done)), Duration::ZERO));
    }
    assert!(a.steered.rerunning());
    act(&mut a, Action::GraceUp);
    for w in a.take_work() {
        let done = w.perform();
        assert!(update(&mut a, Msg::Done(Box::new(done)), Duration::ZERO));
    }
    assert!(!a.steered.rerunning());
    assert_eq!(timeline(&a).config().watermark.lag(), Some(23_000.0));
    assert_eq!(timeline(&a).config().grace, 5_000.0);
    assert!(timeline(&a).is_finished());
    assert!(a.take_work().is_empty());
}

#[test]
fn the_frontier_is_swept_once_per_family() {
    let mut a = app();
    assert!(matches!(a.frontier(), Some(Some(_))));
    act(&mut a, Action::LagUp);
    act(&mut a, Action::GraceUp);
    act(&mut a, Action::Policy(1));
    assert!(a.take_work().is_empty(), "lag and grace reuse the sweep");
    act(&mut a, Action::CycleWatermark); // heuristic: nothing to sweep
    let w = a.take_work();
    assert_eq!(w.len(), 1);
    for w in w {
        update(&mut a, Msg::Done(Box::new(w.perform())), Duration::ZERO);
    }
    assert!(matches!(a.frontier(), Some(None)));
    act(&mut a, Action::CycleWatermark); // bounded
    act(&mut a, Action::CycleWatermark); // perfect
    act(&mut a, Action::CycleWatermark); // fixed again: cached
    let w = a.take_work();
    assert_eq!(w.len(), 2, "bounded and perfect, not fixed again");
}

#[test]
fn restart_goes_back_to_the_first_event() {
    let mut a = app();
    act(&mut a, Action::JumpToEnd);
    act(&mut a, Action::Inspect);
    act(&mut a, Action::Restart);
    assert_eq!(a.playhead().arrived, 0);
    assert!(!a.playhead().finished);
    assert_eq!(timeline(&a).arrived(), 0);
    assert_eq!(a.selection.inspected, None);
}

#[test]
fn esc_then_a_key_arriving_as_alt_reads_as_both() {
    use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
    let alt_q = Event::Key(KeyEvent::new(KeyCode::Char('q'), KeyModifiers::ALT));
    let msgs = twoclocks::tui::messages(&alt_q);
    assert!(matches!(
        msgs.as_slice(),
        [Msg::Action(Action::Close), Msg::Action(Action::Quit)]
    ));
    let ctrl_c = Event::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
    assert!(matches!(
        twoclocks::tui::messages(&ctrl_c).as_slice(),
        [Msg::Action(Action::Quit)]
    ));
    let unbound = Event::Key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::NONE));
    assert!(twoclocks::tui::messages(&unbound).is_empty());
    let next = Event::Key(KeyEvent::new(KeyCode::PageDown, KeyModifiers::NONE));
    assert!(matches!(
        twoclocks::tui::messages(&next).as_slice(),
        [Msg::Action(Action::TourNext)]
    ));
}

#[test]
fn a_terminal_event_gives_the_messages_its_recorded_input_gives() {
    use crossterm::event::{
        Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent,
        MouseEventKind,
    };
    use twoclocks::tui::record::Input;
    let mouse = |kind| {
        Event::Mouse(MouseEvent {
            kind,
            column: 7,
            row: 3,
            modifiers: KeyModifiers::NONE,
        })
    };
    let mut release = KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE);
    release.kind = KeyEventKind::Release;
    let events = [
        Event::Key(KeyEvent::new(KeyCode::Char('q'), KeyModifiers::ALT)),
        Event::Key(release),
        mouse(MouseEventKind::Down(MouseButton::Left)),
        mouse(MouseEventKind::Drag(MouseButton::Left)),
        mouse(MouseEventKind::Down(MouseButton::Right)),
        Event::Resize(100, 30),
        Event::FocusGained,
    ];
    for ev in events {
        let by_input = Input::from_event(&ev).map_or_else(Vec::new, |i| i.messages());
        assert_eq!(
            format!("{:?}", twoclocks::tui::messages(&ev)),
            format!("{by_input:?}"),
            "{ev:?}"
        );
    }
    assert!(matches!(
        twoclocks::tui::messages(&mouse(MouseEventKind::Down(MouseButton::Left))).as_slice(),
        [Msg::Click(7, 3)]
    ));
    assert!(matches!(
        twoclocks::tui::messages(&mouse(MouseEventKind::Drag(MouseButton::Left))).as_slice(),
        [Msg::Drag(7, 3)]
    ));
}

#[test]
fn the_dials_show_and_turn_from_the_settings_the_run_holds() {
    let mut a = app();
    let mut settings = *a.steered.settings();
    settings.engine.grace = 45_000.0;
    a.steered.set_dials(settings);
    a.settle();
    let areas = Areas::compute(a.size).unwrap();
    let dials: Vec<String> = screen(&a)
        .lines()
        .skip(usize::from(areas.dials.y))
        .take(usize::from(areas.dials.height))
        .map(|l| l.chars().skip(usize::from(areas.dials.x)).collect())
        .collect();
    let grace = dials.iter().find(|l| l.contains("grace")).unwrap();
    assert!(grace.contains("45s"), "{}", dials.join("\n"));
    // The next turn starts from there.
    act_settled(&mut a, Action::GraceUp);
    assert_eq!(a.trace().config().grace, 50_000.0);
}

#[test]
fn a_click_on_a_window_row_selects_it() {
    let mut a = app();
    let areas = Areas::compute(a.size).unwrap();
    // Border, header, then window rows from the top.
    let row = areas.windows.y + 2 + 6;
    assert!(update(
        &mut a,
        Msg::Click(areas.windows.x + 3, row),
        Duration::ZERO
    ));
    assert_eq!(a.selection.window, 6);
}

#[test]
fn presets_beyond_the_dial_ranges_are_kept() {
    let cfg = EngineConfig {
        watermark: WatermarkKind::Fixed { lag: 200_000.0 },
        grace: f64::INFINITY,
        ..EngineConfig::fixed(0.0, 0.0)
    };
    let d = twoclocks::tui::app::Dials::from_config(&cfg, 0.5);
    assert_eq!(d.config(), cfg);
    assert_eq!(d.speed, 0.5);
    let mut d2 = d;
    d2.turn(Dial::Grace, false);
    assert_eq!(
        d2.grace, 295_000.0,
        "∞ turned down starts from the top of the range"
    );
    d2.turn(Dial::Lag, false);
    assert_eq!(d2.lag, 199_000.0);
    d2.turn(Dial::Speed, true);
    assert_eq!(d2.speed, 1.0);
}

#[test]
fn a_click_on_a_frontier_point_adopts_its_lag_and_grace() {
    use twoclocks::tui::geometry::frontier::ChartFrame;
    let mut a = app();
    let areas = Areas::compute(a.size).unwrap();
    let area = areas.frontier.unwrap();
    let frontier = a.frontier().unwrap().unwrap().clone();
    let f = ChartFrame::of(area, &frontier).unwrap();
    // The billing policy's letter.
    let billing = frontier.policies[2].1;
    let (x, y) = f.place(&billing).unwrap();
    assert!(update(&mut a, Msg::Click(x, y), Duration::ZERO));
    assert_eq!((a.dials().lag, a.dials().grace), (10_000.0, 90_000.0));
    assert_eq!(timeline(&a).config().grace, 90_000.0);
}
