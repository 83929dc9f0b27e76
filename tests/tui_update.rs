//! Update tests for the terminal UI: sequences of actions applied to the state, with no
//! terminal, checked against what the engine says for the same dials.

use std::sync::OnceLock;
use std::time::Duration;

use twoclocks::engine::timeline::Timeline;
use twoclocks::engine::{EngineConfig, Fate, WatermarkKind};
use twoclocks::tui::app::{update, Action, App, Dial, Done, Msg, Overlay, Work};
use twoclocks::tui::geometry::Areas;
use twoclocks::tui::scenario::Scenario;
use twoclocks::tui::theme::Theme;
use twoclocks::tui::{app_for, Options};

/// The classroom app with the default dials (fixed 20 s, no grace), frontier computed once.
fn app() -> App {
    static BASE: OnceLock<App> = OnceLock::new();
    BASE.get_or_init(|| {
        let mut a = app_for(Options {
            scenario: Scenario::classroom(),
            config: EngineConfig::fixed(20_000.0, 0.0),
            speed: 10.0,
            theme: Theme::mono(),
            play: false,
        });
        a.settle();
        a
    })
    .clone()
}

/// The single processor's timeline the app draws.
fn timeline(a: &App) -> &Timeline {
    a.trace.timeline().expect("the single processor")
}

fn act(a: &mut App, action: Action) -> bool {
    update(a, Msg::Action(action), Duration::ZERO)
}

fn tick(a: &mut App, secs: f64) -> bool {
    update(a, Msg::Tick, Duration::from_secs_f64(secs))
}

/// The footer's status message, or "".
fn said(a: &App) -> &str {
    a.status.as_ref().map_or("", |s| s.text.as_str())
}

/// The screen's text at the app's size.
fn screen(a: &App) -> String {
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    let area = Rect::new(0, 0, a.size.0, a.size.1);
    let mut buf = Buffer::empty(area);
    twoclocks::tui::view::draw(a, area, &mut buf);
    (0..area.height)
        .map(|y| {
            (0..area.width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn end_then_policies_give_the_reference_drops() {
    let mut a = app();
    act(&mut a, Action::JumpToEnd);
    assert!(a.playhead.finished);
    assert_eq!(timeline(&a).arrived(), 20_000);
    act(&mut a, Action::Policy(0));
    assert_eq!(timeline(&a).counters().dropped, 1283);
    act(&mut a, Action::Policy(1));
    assert!(timeline(&a).counters().dropped > 0);
    act(&mut a, Action::Policy(2));
    assert_eq!(timeline(&a).counters().dropped, 0);
    assert_eq!(a.dials.watermark(), WatermarkKind::Fixed { lag: 10_000.0 });
    assert_eq!(a.dials.grace, 90_000.0);
}

#[test]
fn a_paused_tick_changes_nothing() {
    let mut a = app();
    let before = a.playhead;
    assert!(!tick(&mut a, 5.0));
    assert_eq!(a.playhead, before);
}

#[test]
fn no_tick_moves_the_playhead_under_the_help_or_while_a_rerun_is_pending() {
    let mut a = app();
    act(&mut a, Action::TogglePlay);
    act(&mut a, Action::Help);
    let before = a.playhead;
    assert!(!a.clock_runs());
    assert!(!tick(&mut a, 6.0), "the help overlay holds the clock");
    assert_eq!(a.playhead, before);
    act(&mut a, Action::Close);
    assert!(a.clock_runs());
    a.inline_events = 0;
    act(&mut a, Action::LagUp);
    assert!(a.rerunning);
    assert!(!tick(&mut a, 6.0), "a pending re-run holds the clock");
    assert_eq!(a.playhead, before);
    a.settle();
    assert!(a.clock_runs());
    assert!(tick(&mut a, 0.1));
    assert_eq!(a.playhead.now, before.now + 1_000.0);
}

#[test]
fn playing_advances_by_elapsed_time_times_speed() {
    let mut a = app();
    act(&mut a, Action::TogglePlay);
    assert!(a.playhead.playing);
    assert!(tick(&mut a, 3.0));
    assert_eq!(a.playhead.now, 30_000.0);
    let expect = a
        .scenario
        .stream
        .events
        .iter()
        .filter(|e| e.proc_time <= 30_000.0)
        .count();
    assert_eq!(a.playhead.arrived, expect);
    assert_eq!(timeline(&a).arrived(), expect);
    act(&mut a, Action::Faster);
    assert_eq!(a.dials.speed, 20.0);
    tick(&mut a, 1.0);
    assert_eq!(a.playhead.now, 50_000.0);
}

#[test]
fn playing_to_the_end_finishes_and_stops() {
    let mut a = app();
    act(&mut a, Action::TogglePlay);
    tick(&mut a, 10_000.0);
    assert!(a.playhead.finished);
    assert!(!a.playhead.playing);
    assert!(timeline(&a).is_finished());
    assert_eq!(timeline(&a).open_cells(), 0);
    // Play again from the end starts over.
    act(&mut a, Action::TogglePlay);
    assert!(a.playhead.playing);
    assert_eq!(a.playhead.arrived, 0);
}

#[test]
fn a_dial_change_reruns_to_the_same_playhead() {
    let mut a = app();
    act(&mut a, Action::TogglePlay);
    tick(&mut a, 30.0);
    act(&mut a, Action::TogglePlay);
    let arrived = a.playhead.arrived;
    act(&mut a, Action::LagUp);
    act(&mut a, Action::GraceUp);
    assert_eq!(a.dials.lag, 21_000.0);
    assert_eq!(a.dials.grace, 5_000.0);
    assert_eq!(timeline(&a).arrived(), arrived);
    let fresh = Timeline::run_to(a.dials.config(), &a.scenario.stream, arrived, false);
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
        assert_eq!(a.playhead.now, a.scenario.stream.events[n - 1].proc_time);
    }
    act(&mut a, Action::TogglePlay);
    let before = a.playhead;
    act(&mut a, Action::Step);
    assert_eq!(a.playhead, before, "no stepping while playing");
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
    assert_eq!(a.dials.grace, 10_000.0);
    for _ in 0..10 {
        act(&mut a, Action::DialDown);
    }
    assert_eq!(a.dials.grace, 0.0, "clamped at zero");
    for _ in 0..30 {
        act(&mut a, Action::LagDown);
    }
    assert_eq!(a.dials.lag, 0.0);
    act(&mut a, Action::EarlyUp);
    assert_eq!(a.dials.early, Some(5_000.0));
    act(&mut a, Action::EarlyDown);
    assert_eq!(a.dials.early, None);
    act(&mut a, Action::CycleWatermark);
    assert_eq!(a.dials.watermark().family(), "heuristic");
    assert!(!a.dials.has_lag());
    act(&mut a, Action::CycleAccumulation);
    assert_eq!(timeline(&a).config().accumulation.name(), "discarding");
}

#[test]
fn the_help_overlay_takes_keys_until_closed() {
    let mut a = app();
    act(&mut a, Action::Help);
    assert_eq!(a.overlay, Some(Overlay::Help));
    act(&mut a, Action::LagUp);
    assert_eq!(a.dials.lag, 20_000.0);
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
    assert_eq!(a.selection.window, a.scenario.windows.len() - 1);
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
    let why = timeline(&a).inspect(&a.scenario.stream, dropped).unwrap();
    assert!(
        why.windows[0].2.contains("− grace 0s ≥"),
        "{}",
        why.windows[0].2
    );
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
    assert_eq!(a.dials.grace, 300_000.0);
    update(&mut a, Msg::Drag(track.x, track.y), Duration::ZERO);
    assert_eq!(a.dials.grace, 0.0);
}

#[test]
fn big_inputs_rerun_off_the_ui_task_a_newer_change_cancelling_the_older() {
    let mut a = app();
    a.inline_events = 0;
    act(&mut a, Action::JumpToEnd);
    let drawn = timeline(&a).config().watermark;
    act(&mut a, Action::LagUp);
    assert!(a.rerunning);
    assert_eq!(
        timeline(&a).config().watermark,
        drawn,
        "the last result stays"
    );
    let first = a.take_work();
    assert_eq!(first.len(), 1);
    assert!(matches!(first[0], Work::Rerun { .. }));
    // A newer change cancels the older run, which stops and is dropped.
    act(&mut a, Action::LagUp);
    let second = a.take_work();
    assert_eq!(second.len(), 1, "a change goes out at once");
    act(&mut a, Action::LagUp);
    for w in first.into_iter().chain(second) {
        let done = w.perform();
        assert!(matches!(done, Done::Cancelled { .. }), "{done:?}");
        assert!(!update(&mut a, Msg::Done(Box::new(done)), Duration::ZERO));
    }
    assert!(a.rerunning);
    act(&mut a, Action::GraceUp);
    for w in a.take_work() {
        let done = w.perform();
        assert!(update(&mut a, Msg::Done(Box::new(done)), Duration::ZERO));
    }
    assert!(!a.rerunning);
    assert_eq!(timeline(&a).config().watermark.lag(), Some(23_000.0));
    assert_eq!(timeline(&a).config().grace, 5_000.0);
    assert!(timeline(&a).is_finished());
    assert!(a.take_work().is_empty());
}

#[test]
fn a_dial_change_in_job_mode_reruns_the_job_off_the_ui_task() {
    let mut a = job_at(265.0);
    act(&mut a, Action::Crash);
    let crash = job(&a).last_crash().unwrap().clone();
    let now = a.playhead.now;
    a.inline_events = 0;
    act(&mut a, Action::LagUp);
    assert!(a.rerunning);
    assert_eq!(
        job(&a).config().engine.watermark.lag(),
        Some(20_000.0),
        "the last job stays"
    );
    let steps = job(&a).pipeline().steps();
    act(&mut a, Action::Step);
    assert_eq!(
        job(&a).pipeline().steps(),
        steps,
        "the job waits for its re-run"
    );
    assert!(said(&a).contains("re-running"), "{}", said(&a));
    act(&mut a, Action::Crash);
    assert_eq!(a.presses.len(), 1);
    let work = a.take_work();
    assert!(matches!(work.as_slice(), [Work::RerunJob { .. }]));
    for w in work {
        assert!(update(
            &mut a,
            Msg::Done(Box::new(w.perform())),
            Duration::ZERO
        ));
    }
    assert!(!a.rerunning);
    assert_eq!(job(&a).config().engine.watermark.lag(), Some(21_000.0));
    let c = &job(&a).crashes()[0];
    assert_eq!(
        (c.time, c.restored, &c.offsets, c.replayed),
        (crash.time, crash.restored, &crash.offsets, crash.replayed),
        "the same crash"
    );
    assert_eq!(a.playhead.now, now);
}

#[test]
fn a_cancelled_job_rerun_stops_and_an_uncancelled_one_equals_the_one_call() {
    use std::sync::atomic::AtomicBool;
    use twoclocks::engine::job_timeline::{Intervention, JobTimeline, Press};
    use twoclocks::engine::pipeline::CrashTarget;
    use twoclocks::tui::app::run_job;
    let a = app();
    let presses = [
        Press {
            time: 120_000.0,
            what: Intervention::Checkpoint,
        },
        Press {
            time: 265_000.0,
            what: Intervention::Crash(CrashTarget::Job),
        },
    ];
    let stream = a.scenario.stream.clone();
    let cfg = a.job_config();
    let mut one = JobTimeline::run_to(stream.clone(), cfg, &presses, 400_000.0).unwrap();
    let sliced = run_job(
        stream.clone(),
        cfg,
        &presses,
        400_000.0,
        false,
        &AtomicBool::new(false),
    )
    .unwrap()
    .unwrap();
    assert_eq!(sliced.pipeline().steps(), one.pipeline().steps());
    assert_eq!(sliced.now(), one.now());
    assert_eq!(sliced.crashes(), one.crashes());
    assert_eq!(sliced.fates(), one.fates());
    assert_eq!(sliced.presses(), one.presses());
    one.run_to_end();
    let to_end = run_job(
        stream.clone(),
        cfg,
        &presses,
        400_000.0,
        true,
        &AtomicBool::new(false),
    )
    .unwrap()
    .unwrap();
    assert!(to_end.is_finished());
    assert_eq!(to_end.pipeline().steps(), one.pipeline().steps());
    assert!(run_job(
        stream,
        cfg,
        &presses,
        400_000.0,
        true,
        &AtomicBool::new(true)
    )
    .is_none());
}

#[test]
fn job_mode_entered_at_the_end_shows_the_whole_stream_taken() {
    for inline in [true, false] {
        let mut a = app();
        if !inline {
            a.inline_events = 0;
        }
        act(&mut a, Action::JumpToEnd);
        act(&mut a, Action::ToggleJob);
        a.settle();
        assert!(job(&a).is_finished(), "inline {inline}");
        assert!(a.playhead.finished);
        assert!(
            job(&a).fates().iter().all(|f| f.is_some()),
            "every event taken"
        );
        assert_eq!(
            job(&a).deliveries().iter().filter(|&&d| d > 0).count(),
            20_000
        );
        // A dial change at the end re-runs to the end again.
        act(&mut a, Action::GraceUp);
        a.settle();
        assert!(job(&a).is_finished());
        assert!(screen(&a).contains("20000/20000") || !screen(&a).contains("/20000"));
    }
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
    assert_eq!(a.playhead.arrived, 0);
    assert!(!a.playhead.finished);
    assert_eq!(timeline(&a).arrived(), 0);
    assert_eq!(a.selection.inspected, None);
}

#[test]
fn esc_then_a_key_arriving_as_alt_reads_as_both() {
    use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
    let alt_q = Event::Key(KeyEvent::new(KeyCode::Char('q'), KeyModifiers::ALT));
    let msgs = twoclocks::tui::messages(alt_q);
    assert!(matches!(
        msgs.as_slice(),
        [Msg::Action(Action::Close), Msg::Action(Action::Quit)]
    ));
    let ctrl_c = Event::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
    assert!(matches!(
        twoclocks::tui::messages(ctrl_c).as_slice(),
        [Msg::Action(Action::Quit)]
    ));
    let reserved = Event::Key(KeyEvent::new(KeyCode::Char('p'), KeyModifiers::NONE));
    assert!(twoclocks::tui::messages(reserved).is_empty());
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
    assert_eq!((a.dials.lag, a.dials.grace), (10_000.0, 90_000.0));
    assert_eq!(timeline(&a).config().grace, 90_000.0);
}

/// The app in job mode, paused at processing time `secs`.
fn job_at(secs: f64) -> App {
    let mut a = app();
    act(&mut a, Action::ToggleJob);
    assert!(a.trace.job().is_some());
    act(&mut a, Action::TogglePlay);
    let speed = a.dials.speed;
    tick(&mut a, secs / speed);
    act(&mut a, Action::TogglePlay);
    a
}

fn job(a: &App) -> &twoclocks::engine::job_timeline::JobTimeline {
    a.trace.job().expect("job mode")
}

/// The same job with no presses, run to the end.
fn clean_run(a: &App) -> twoclocks::engine::job_timeline::JobTimeline {
    twoclocks::engine::job_timeline::JobTimeline::run_to(
        a.scenario.stream.clone(),
        a.job_config(),
        &[],
        f64::INFINITY,
    )
    .unwrap()
}

#[test]
fn c_crashes_the_job_rolls_back_replays_and_the_sinks_tell_apart() {
    use twoclocks::engine::job_timeline::Intervention;
    use twoclocks::engine::pipeline::CrashTarget;
    use twoclocks::engine::SinkKind;
    let mut a = job_at(265.0);
    let at = a.playhead.now;
    let before = job(&a).pipeline().counters();
    assert!(act(&mut a, Action::Crash));
    assert_eq!(a.presses.len(), 1);
    assert_eq!(a.presses[0].time, at);
    assert_eq!(a.presses[0].what, Intervention::Crash(CrashTarget::Job));
    let crash = job(&a).last_crash().unwrap().clone();
    assert_eq!(crash.time, at);
    assert_eq!(crash.restored, Some(26));
    assert_eq!(a.playhead.now, crash.restored_time, "the clock goes back");
    let after = job(&a).pipeline().counters();
    assert!(after.events < before.events, "the counters roll back");
    assert!(after.panes() <= before.panes());
    assert!(job(&a).pipeline().is_replaying());
    // The replay proceeds as the job plays on.
    act(&mut a, Action::TogglePlay);
    tick(&mut a, 0.5);
    assert!(job(&a).redelivered() > 0);
    act(&mut a, Action::JumpToEnd);
    assert!(a.playhead.finished);
    let j = job(&a);
    assert_eq!(j.redelivered(), crash.replayed);
    assert!(j.deliveries().iter().any(|&d| d >= 2), "replayed records");
    let clean = clean_run(&a);
    let total = |j: &twoclocks::engine::job_timeline::JobTimeline, k: SinkKind| -> i64 {
        j.pipeline().sink_output(k).values().sum()
    };
    for k in [SinkKind::Idempotent, SinkKind::Transactional] {
        assert_eq!(
            j.pipeline().sink_output(k),
            clean.pipeline().sink_output(k),
            "{k}"
        );
    }
    assert!(crash.overcount_total() > 0);
    assert_eq!(
        total(j, SinkKind::Additive),
        total(&clean, SinkKind::Additive) + crash.overcount_total()
    );
    assert_eq!(j.overcount(), crash.overcount_total());
}

#[test]
fn x_takes_a_checkpoint_now() {
    use twoclocks::engine::job_timeline::Intervention;
    let mut a = job_at(30.0);
    a.selection.focus = Dial::Checkpoint;
    for _ in 0..3 {
        act(&mut a, Action::DialDown);
    }
    assert_eq!(a.dials.checkpoint_every, None, "only on demand");
    assert!(job(&a).pipeline().checkpoints().is_empty());
    assert!(act(&mut a, Action::CheckpointNow));
    assert_eq!(a.presses.len(), 1);
    assert_eq!(a.presses[0].what, Intervention::Checkpoint);
    assert_eq!(job(&a).pipeline().pending_checkpoints(), vec![1]);
    act(&mut a, Action::TogglePlay);
    tick(&mut a, 0.5);
    let cks = job(&a).pipeline().checkpoints().to_vec();
    assert_eq!(cks.len(), 1);
    // A dial change re-runs the job and takes it again at the same point.
    act(&mut a, Action::LagUp);
    let again = job(&a).pipeline().checkpoints();
    assert_eq!(again.len(), 1);
    assert_eq!(
        (again[0].time, &again[0].offsets),
        (cks[0].time, &cks[0].offsets)
    );
    // Injected at the job's clock when pressed: its latest step, at or before the playhead.
    assert!(cks[0].time <= a.presses[0].time && cks[0].time > a.presses[0].time - 1_000.0);
}

#[test]
fn a_dial_change_after_a_crash_reproduces_the_crash() {
    let mut a = job_at(265.0);
    act(&mut a, Action::Crash);
    act(&mut a, Action::TogglePlay);
    tick(&mut a, 0.4);
    act(&mut a, Action::TogglePlay);
    let crash = job(&a).last_crash().unwrap().clone();
    let now = a.playhead.now;
    let steps = job(&a).pipeline().steps();
    act(&mut a, Action::LagUp);
    let c = job(&a).crashes();
    assert_eq!(c.len(), 1);
    assert_eq!(
        (c[0].time, c[0].restored, &c[0].offsets, c[0].replayed),
        (crash.time, crash.restored, &crash.offsets, crash.replayed)
    );
    act(&mut a, Action::LagDown);
    assert_eq!(job(&a).crashes(), std::slice::from_ref(&crash));
    assert_eq!(a.playhead.now, now);
    assert_eq!(job(&a).pipeline().steps(), steps);
    // A longer checkpoint interval restores an older checkpoint; the crash stays where it was.
    a.selection.focus = Dial::Checkpoint;
    act(&mut a, Action::DialUp);
    assert_eq!(a.dials.checkpoint_every, Some(15_000.0));
    let c = &job(&a).crashes()[0];
    assert_eq!(c.time, crash.time);
    assert_eq!(c.restored_time, 255_000.0);
}

#[test]
fn shift_c_picks_an_operator_and_c_crashes_it() {
    use twoclocks::engine::pipeline::CrashTarget;
    let mut a = app();
    act(&mut a, Action::PickOperator);
    assert!(a.trace.job().is_some(), "C enters job mode");
    assert_eq!(a.crash_pick, Some(0));
    act(&mut a, Action::PickOperator);
    assert_eq!(a.crash_pick, Some(1));
    act(&mut a, Action::Close);
    assert_eq!(a.crash_pick, None, "Esc puts it back");
    for _ in 0..6 {
        act(&mut a, Action::PickOperator);
    }
    assert_eq!(a.crash_pick, Some(1), "cycles over the 4 instances");
    act(&mut a, Action::TogglePlay);
    tick(&mut a, 10.0);
    let at = a.playhead.now;
    act(&mut a, Action::Crash);
    assert_eq!(a.crash_pick, None);
    let c = job(&a).last_crash().unwrap();
    assert_eq!(c.target, CrashTarget::Operator(1));
    let said = format!(
        "operator 1 crashed at {:.1} s; restored checkpoint #",
        at / 1000.0
    );
    assert!(c.to_string().starts_with(&said), "{c}");
    // Home starts a clean job.
    act(&mut a, Action::Restart);
    assert!(a.presses.is_empty());
    assert!(job(&a).crashes().is_empty());
    // Leaving job mode returns to the single processor at the same processing time.
    act(&mut a, Action::ToggleJob);
    assert!(a.trace.job().is_none());
    assert_eq!(timeline(&a).arrived(), a.playhead.arrived);
}

#[test]
fn step_in_job_mode_moves_the_job_to_its_next_step() {
    let mut a = app();
    act(&mut a, Action::ToggleJob);
    let steps = job(&a).pipeline().steps();
    assert!(act(&mut a, Action::Step));
    assert!(job(&a).pipeline().steps() > steps);
    assert_eq!(a.playhead.now, job(&a).now());
    act(&mut a, Action::Inspect);
    assert_eq!(a.selection.inspected, None, "no inspector in job mode");
    assert!(said(&a).contains("j leaves job mode"), "{}", said(&a));
}

#[test]
fn a_click_on_an_operator_row_picks_it_to_crash() {
    let mut a = app();
    act(&mut a, Action::ToggleJob);
    let areas = Areas::compute_for(a.size, true).unwrap();
    let topo = areas.topology.unwrap();
    // Inside the border: 2 source rows, the header, then op0, op1, op2.
    assert!(update(
        &mut a,
        Msg::Click(topo.x + 3, topo.y + 1 + 3 + 2),
        Duration::ZERO
    ));
    assert_eq!(a.crash_pick, Some(2));
}

#[test]
fn a_key_that_cannot_act_says_why_in_the_footer_for_a_moment() {
    let mut a = app();
    // Lag under a watermark without one.
    for family in ["heuristic", "bounded", "perfect"] {
        act(&mut a, Action::CycleWatermark);
        assert_eq!(a.dials.watermark().family(), family);
    }
    let dials = a.dials;
    assert!(act(&mut a, Action::LagUp));
    assert_eq!(a.dials, dials, "nothing turned");
    assert!(
        said(&a).contains("perfect watermark has no lag"),
        "{}",
        said(&a)
    );
    assert!(screen(&a).contains("perfect watermark has no lag"));
    // The message goes when its time is up, not when an older one's is.
    let seq = a.status.as_ref().unwrap().seq;
    assert!(!update(&mut a, Msg::StatusExpired(seq - 1), Duration::ZERO));
    assert!(a.status.is_some());
    assert!(update(&mut a, Msg::StatusExpired(seq), Duration::ZERO));
    assert_eq!(a.status, None);
    assert!(!screen(&a).contains("has no lag"));
    // A dial at the end of its range.
    for _ in 0..5 {
        act(&mut a, Action::GraceDown);
    }
    assert!(
        said(&a).contains("grace is already at its lowest"),
        "{}",
        said(&a)
    );
    // The next key that acts takes the message away.
    act(&mut a, Action::GraceUp);
    assert_eq!(a.status, None);
    // Keys under the help overlay.
    act(&mut a, Action::Help);
    act(&mut a, Action::GraceUp);
    assert_eq!(a.dials.grace, 5_000.0);
    assert!(said(&a).contains("Esc or ? closes"), "{}", said(&a));
    act(&mut a, Action::Close);
    // Esc with nothing open; a window past the last.
    act(&mut a, Action::Close);
    assert_eq!(said(&a), "nothing to close");
    for _ in 0..a.scenario.windows.len() {
        act(&mut a, Action::WindowNext);
    }
    assert_eq!(said(&a), "this is the last window");
}

#[test]
fn c_and_x_after_the_jobs_end_say_the_job_has_finished() {
    let mut a = job_at(30.0);
    act(&mut a, Action::JumpToEnd);
    assert!(a.playhead.finished);
    let steps = job(&a).pipeline().steps();
    act(&mut a, Action::Crash);
    assert!(a.presses.is_empty());
    assert_eq!(job(&a).pipeline().steps(), steps);
    assert!(said(&a).contains("nothing left to crash"), "{}", said(&a));
    act(&mut a, Action::CheckpointNow);
    assert!(a.presses.is_empty());
    assert!(said(&a).contains("no checkpoint left"), "{}", said(&a));
    act(&mut a, Action::Step);
    assert!(said(&a).contains("Home restarts"), "{}", said(&a));
    act(&mut a, Action::JumpToEnd);
    assert!(said(&a).contains("already at the end"), "{}", said(&a));
}

#[test]
fn esc_closes_the_crash_report_which_tells_the_past_and_forecasts_the_replay() {
    let mut a = job_at(265.0);
    act(&mut a, Action::Crash);
    let shown = screen(&a);
    assert!(shown.contains("Crash #1 · Esc closes"), "{shown}");
    assert!(shown.contains("staged panes were lost"), "{shown}");
    assert!(
        shown.contains("the replay will take 188 events again (0 so far)"),
        "{shown}"
    );
    assert!(
        !shown.contains("replaying 188"),
        "no present tense for a forecast"
    );
    assert!(act(&mut a, Action::Close));
    assert!(!screen(&a).contains("Crash #1"), "Esc closes it");
    // A dial change re-runs to the same crash: the report stays closed.
    act(&mut a, Action::GraceUp);
    assert!(!screen(&a).contains("Crash #1"));
    // Once the replay is over it says what it did.
    act(&mut a, Action::Crash);
    assert!(
        screen(&a).contains("Crash #2"),
        "a new crash opens it again"
    );
    act(&mut a, Action::JumpToEnd);
    let shown = screen(&a);
    assert!(shown.contains("the replay took"), "{shown}");
    assert!(
        shown.contains("the additive sink did not go over"),
        "{shown}"
    );
    assert!(shown.contains("no staged panes were lost"), "{shown}");
}

#[test]
fn greater_and_less_jump_to_late_or_dropped_events_and_arrows_step_the_inspector() {
    let mut a = app();
    act(&mut a, Action::TogglePlay);
    assert!(act(&mut a, Action::NextException));
    assert!(!a.playhead.playing, "the playhead stops there");
    let x = a.selection.inspected.expect("the inspector opens");
    assert_ne!(timeline(&a).fates()[x], Fate::OnTime);
    assert!(
        timeline(&a).fates()[..x].iter().all(|f| *f == Fate::OnTime),
        "the first one"
    );
    assert_eq!(a.playhead.arrived, x + 1);
    assert_eq!(timeline(&a).arrived(), x + 1);
    assert_eq!(a.playhead.now, a.scenario.stream.events[x].proc_time);
    act(&mut a, Action::NextException);
    let y = a.selection.inspected.unwrap();
    assert!(y > x);
    assert_ne!(timeline(&a).fates()[y], Fate::OnTime);
    assert!(timeline(&a).fates()[x + 1..y]
        .iter()
        .all(|f| *f == Fate::OnTime));
    // Back: the playhead goes back to it, the engine re-run to there.
    act(&mut a, Action::PrevException);
    assert_eq!(a.selection.inspected, Some(x));
    assert_eq!(a.playhead.arrived, x + 1);
    let fresh = Timeline::run_to(a.dials.config(), &a.scenario.stream, x + 1, false);
    assert_eq!(timeline(&a).fates(), fresh.fates());
    act(&mut a, Action::PrevException);
    assert_eq!(a.selection.inspected, Some(x));
    assert_eq!(said(&a), "no late or dropped event before this one");
    // ← → step the inspector through the events, leaving the dials alone.
    let dials = a.dials;
    act(&mut a, Action::DialDown);
    act(&mut a, Action::DialDown);
    assert_eq!(a.selection.inspected, Some(x - 2));
    act(&mut a, Action::DialUp);
    assert_eq!(a.selection.inspected, Some(x - 1));
    assert_eq!(a.dials, dials);
    act(&mut a, Action::DialUp);
    act(&mut a, Action::DialUp);
    assert_eq!(a.selection.inspected, Some(x), "the newest arrived");
    assert!(said(&a).starts_with("the newest event"), "{}", said(&a));
    let seq = a.status.as_ref().unwrap().seq;
    update(&mut a, Msg::StatusExpired(seq), Duration::ZERO);
    let shown = screen(&a);
    assert!(
        shown.contains("←→ event"),
        "the footer says what ← → do now: {shown}"
    );
    // Stepped back, > goes to the next one after the inspected event.
    act(&mut a, Action::DialDown);
    act(&mut a, Action::NextException);
    assert_eq!(a.selection.inspected, Some(x));
    // Closed, the arrows turn the dial again.
    act(&mut a, Action::Close);
    act(&mut a, Action::DialUp);
    assert_eq!(a.dials.lag, 21_000.0);
}

#[test]
fn greater_with_none_left_stops_at_the_end_and_says_so() {
    let mut a = app();
    for _ in 0..3 {
        act(&mut a, Action::CycleWatermark);
    }
    assert_eq!(a.dials.watermark().family(), "perfect");
    act(&mut a, Action::NextException);
    assert!(a.playhead.finished);
    assert_eq!(a.selection.inspected, None);
    assert!(said(&a).contains("no late or dropped event left"));
    assert_eq!(timeline(&a).counters().dropped, 0);
    let mut j = app();
    act(&mut j, Action::ToggleJob);
    act(&mut j, Action::NextException);
    assert!(said(&j).contains("j leaves job mode"), "{}", said(&j));
}

#[test]
fn a_status_message_at_80_columns_is_whole_or_cut_after_a_word() {
    let mut a = app();
    update(&mut a, Msg::Resize(80, 24), Duration::ZERO);
    act(&mut a, Action::ToggleJob);
    act(&mut a, Action::Inspect);
    let text = said(&a).to_string();
    let shown = screen(&a);
    let footer = shown.lines().last().unwrap().to_string();
    let start = footer.find('▸').expect("the message is shown") + '▸'.len_utf8() + 1;
    let part = footer[start..].split("  ").next().unwrap().trim_end();
    let part = part.strip_suffix('…').unwrap_or(part);
    assert!(text.starts_with(part), "{part:?} of {text:?}");
    assert!(
        part.len() == text.len() || text[part.len()..].starts_with(' '),
        "cut mid-word: {footer:?}"
    );
}

#[test]
fn end_in_job_mode_on_a_big_input_runs_the_job_off_the_ui_task() {
    let mut a = job_at(100.0);
    a.inline_events = 0;
    let steps = job(&a).pipeline().steps();
    act(&mut a, Action::JumpToEnd);
    assert!(a.rerunning);
    assert_eq!(
        job(&a).pipeline().steps(),
        steps,
        "the job drawn stays until then"
    );
    a.settle();
    assert!(!a.rerunning);
    assert!(job(&a).is_finished());
    assert!(a.playhead.finished);
}
