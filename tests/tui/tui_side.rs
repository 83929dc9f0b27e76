//! Two policies side by side (`v`): the dials pinned as B, a second run of the same stream that
//! follows A's playhead (play, step, End, Home) and, in the job, A's presses (crashes, partition
//! cuts), while a dial change moves A only; B's tally against a plain engine run with B's dials; a
//! click on B's plot inspecting the event in both; B's re-runs off the UI task on big inputs; and
//! the screens at 80×24 and 120×40, a single run and the outage job (A with an idle timeout, B
//! without).

use std::time::Duration;

use twoclocks::engine::job_timeline::JobTimeline;
use twoclocks::engine::timeline::Timeline;
use twoclocks::engine::trace::Trace;
use twoclocks::tui::app::{update, Action, App, Dial, Done, Msg, Run, Work};
use twoclocks::tui::lesson::tally::Tallied;
use twoclocks::tui::theme::Theme;

use crate::kept_snapshots::assert_snapshot;
use crate::ui_common::{act, app, drawn_text, play, said, screen, tick, ui};

/// B, pinned.
fn b(a: &App) -> Run<'_> {
    a.run_b().expect("side by side")
}

/// The UI a command line opens (before any terminal), in the mono theme.
fn mono_ui(args: &[&str]) -> App {
    let mut a = ui(args);
    a.theme = Theme::mono();
    a
}

/// Both runs stand on the same playhead, B's run brought up to it.
fn same_playhead(a: &App) {
    let b = b(a);
    assert_eq!(b.playhead().now, a.playhead().now);
    assert_eq!(b.playhead().arrived, a.playhead().arrived);
    assert_eq!(b.playhead().finished, a.playhead().finished);
    assert_eq!(b.trace().arrived(), a.trace().arrived());
    assert_eq!(b.trace().is_finished(), a.trace().is_finished());
}

/// The outage job with A's idle timeout at 10 s and B's off, played to processing time 250 s
/// (partition 1 out since 200 s).
fn outage_idle_vs_not() -> App {
    let mut a = mono_ui(&["--scenario", "outage"]);
    act(&mut a, Action::TogglePlay);
    assert!(!a.playing);
    assert_eq!(a.dials().idle_timeout, None);
    assert!(act(&mut a, Action::SideBySide));
    a.selection.focus = Dial::Idle;
    while a.dials().idle_timeout != Some(10_000.0) {
        assert!(act(&mut a, Action::DialUp), "idle reaches 10 s");
    }
    assert_eq!(b(&a).dials.idle_timeout, None, "B stays without idleness");
    act(&mut a, Action::TogglePlay);
    tick(&mut a, 25.0);
    act(&mut a, Action::TogglePlay);
    a
}

#[test]
fn v_pins_the_dials_as_b_and_v_or_esc_returns_to_one() {
    let mut a = app();
    assert!(a.side.is_none());
    act(&mut a, Action::LagUp);
    assert!(act(&mut a, Action::SideBySide));
    assert_eq!(b(&a).dials, a.dials(), "B is the dials as they were");
    assert_eq!(b(&a).trace().config(), a.trace().config());
    assert!(act(&mut a, Action::SideBySide));
    assert!(a.side.is_none(), "v again: one run");
    act(&mut a, Action::SideBySide);
    act(&mut a, Action::Close);
    assert!(a.side.is_none(), "Esc leaves it too");
}

#[test]
fn a_dial_change_moves_a_only() {
    let mut a = app();
    act(&mut a, Action::TogglePlay);
    tick(&mut a, 20.0);
    act(&mut a, Action::TogglePlay);
    act(&mut a, Action::SideBySide);
    let before = b(&a).trace().tally(&a.scenario().oracle.truth);
    act(&mut a, Action::LagUp);
    act(&mut a, Action::GraceUp);
    assert_eq!(a.dials().lag, 21_000.0);
    assert_eq!(b(&a).dials.lag, 20_000.0);
    assert_eq!(b(&a).dials.grace, 0.0);
    assert_eq!(b(&a).trace().config().watermark.lag(), Some(20_000.0));
    assert_ne!(a.trace().config(), b(&a).trace().config());
    assert_eq!(
        b(&a).trace().tally(&a.scenario().oracle.truth),
        before,
        "B did not move"
    );
    same_playhead(&a);
}

#[test]
fn play_step_end_and_home_keep_both_on_the_same_playhead() {
    let mut a = app();
    act(&mut a, Action::SideBySide);
    act(&mut a, Action::LagUp);
    act(&mut a, Action::LagUp);
    for _ in 0..3 {
        act(&mut a, Action::Step);
        same_playhead(&a);
    }
    act(&mut a, Action::TogglePlay);
    tick(&mut a, 12.5);
    same_playhead(&a);
    act(&mut a, Action::TogglePlay);
    act(&mut a, Action::NextException);
    same_playhead(&a);
    act(&mut a, Action::JumpToEnd);
    assert!(a.playhead().finished);
    same_playhead(&a);
    act(&mut a, Action::Restart);
    assert_eq!(a.playhead().arrived, 0);
    same_playhead(&a);
    assert_eq!(
        b(&a).trace().counters().events,
        0,
        "B re-ran from the start"
    );
}

#[test]
fn bs_tally_is_a_plain_engine_run_with_bs_dials_to_the_same_playhead() {
    let mut a = app();
    act(&mut a, Action::SideBySide);
    let cfg_b = b(&a).dials.config();
    act(&mut a, Action::Policy(2));
    act(&mut a, Action::TogglePlay);
    for (secs, back) in [(18.0, false), (9.0, false), (0.0, true), (31.0, false)] {
        if back {
            act(&mut a, Action::Restart);
        }
        tick(&mut a, secs);
        let s = a.scenario();
        let plain = Trace::single(
            s.stream.clone(),
            s.oracle.proc_time,
            Timeline::run_to(
                cfg_b,
                &s.stream,
                a.playhead().arrived,
                a.playhead().finished,
            ),
        );
        assert_eq!(
            b(&a).trace().tally(&s.oracle.truth),
            plain.tally(&s.oracle.truth),
            "{secs}"
        );
        assert_eq!(b(&a).trace().counters(), plain.counters());
        let mine = Trace::single(
            s.stream.clone(),
            s.oracle.proc_time,
            Timeline::run_to(
                a.dials().config(),
                &s.stream,
                a.playhead().arrived,
                a.playhead().finished,
            ),
        );
        assert_eq!(
            a.trace().tally(&s.oracle.truth),
            mine.tally(&s.oracle.truth)
        );
    }
    let s = a.scenario();
    assert_ne!(
        a.trace().tally(&s.oracle.truth),
        b(&a).trace().tally(&s.oracle.truth),
        "two policies, two tallies"
    );
}

#[test]
fn on_a_big_input_b_re_runs_off_the_ui_task_and_takes_only_its_own_pins_answer() {
    let mut a = app();
    a.steered.set_inline_events(100);
    assert!(a.scenario().len() > 100);
    act(&mut a, Action::LagUp);
    a.settle();
    assert!(act(&mut a, Action::SideBySide));
    assert!(a.side.is_some(), "pinned on a big input too");
    act(&mut a, Action::LagUp);
    a.settle();
    act(&mut a, Action::JumpToEnd);
    a.settle();
    // Back to the start: both runs are made again from there, off the UI task.
    act(&mut a, Action::Restart);
    let work = a.take_work();
    assert!(
        work.iter().any(|w| matches!(w, Work::RerunB { .. })),
        "B's re-run is handed out: {work:?}"
    );
    assert!(b(&a).steered.rerunning());
    for w in work {
        let done = w.perform();
        update(&mut a, Msg::Done(Box::new(done)), Duration::ZERO);
    }
    assert!(!b(&a).steered.rerunning());
    same_playhead(&a);
    assert_eq!(b(&a).trace().config().watermark.lag(), Some(21_000.0));
    assert_eq!(a.trace().config().watermark.lag(), Some(22_000.0));
    // B's run is the engine's run with B's dials to that playhead.
    let s = a.scenario();
    let plain = Trace::single(
        s.stream.clone(),
        s.oracle.proc_time,
        Timeline::run_to(
            b(&a).dials.config(),
            &s.stream,
            a.playhead().arrived,
            a.playhead().finished,
        ),
    );
    assert_eq!(
        b(&a).trace().tally(&s.oracle.truth),
        plain.tally(&s.oracle.truth)
    );
    assert_eq!(b(&a).trace().counters(), plain.counters());

    // An answer to an earlier pin's re-run is not taken by the next pin's B, though the two
    // B's number their re-runs alike (each starts from A's count).
    act(&mut a, Action::SideBySide);
    act(&mut a, Action::SideBySide);
    act(&mut a, Action::Step);
    a.settle();
    act(&mut a, Action::Restart);
    let answers = perform_holding_b(&mut a);
    assert_eq!(answers.len(), 1);
    act(&mut a, Action::SideBySide);
    assert!(a.side.is_none());
    act(&mut a, Action::SideBySide);
    for done in answers {
        assert!(
            !update(&mut a, Msg::Done(Box::new(done)), Duration::ZERO),
            "an earlier pin's answer"
        );
    }
}

/// Performs the work the app handed out and gives it every answer but B's re-runs', which
/// are returned, held back.
fn perform_holding_b(a: &mut App) -> Vec<Done> {
    let mut held = Vec::new();
    for w in a.take_work() {
        match w.perform() {
            done @ Done::RerunB { .. } => held.push(done),
            done => {
                update(a, Msg::Done(Box::new(done)), Duration::ZERO);
            }
        }
    }
    held
}

#[test]
fn in_the_job_on_a_big_input_b_catches_up_with_a_when_its_answer_comes() {
    let mut a = app();
    a.steered.set_inline_events(100);
    act(&mut a, Action::ToggleJob);
    a.settle();
    act(&mut a, Action::SideBySide);
    act(&mut a, Action::LagUp);
    a.settle();
    play(&mut a, 30.0);
    a.settle();
    same_playhead(&a);
    // A crash: both jobs are re-run off the UI task; A moves on before B's answer comes.
    act(&mut a, Action::Crash);
    let b_answers = perform_holding_b(&mut a);
    assert_eq!(b_answers.len(), 1, "B's re-run went off the UI task");
    for _ in 0..5 {
        act(&mut a, Action::Step);
    }
    a.settle();
    for done in b_answers {
        assert!(update(&mut a, Msg::Done(Box::new(done)), Duration::ZERO));
    }
    a.settle();
    same_playhead(&a);
}

#[test]
fn in_the_outage_a_with_idleness_moves_on_while_b_without_stalls() {
    let a = outage_idle_vs_not();
    same_playhead(&a);
    let now = a.playhead().now;
    assert!((240_000.0..=260_000.0).contains(&now), "{now}");
    assert!(a.trace().partitions()[1].is_out && b(&a).trace().partitions()[1].is_out);
    assert!(a.trace().watermark_stall().is_none(), "A moved on");
    assert!(
        b(&a)
            .trace()
            .watermark_stall()
            .is_some_and(|d| d >= 40_000.0),
        "B stalls"
    );
    assert!(a.trace().watermark() > b(&a).trace().watermark());
    // B is the job run without the UI with B's dials to the same processing time.
    let mut cfg = a.job_config();
    cfg.idle_timeout = None;
    let presses = [twoclocks::engine::job_timeline::Press {
        time: f64::NEG_INFINITY,
        what: twoclocks::engine::job_timeline::Intervention::Outage(a.steered.job_outages()[0]),
    }];
    let plain = Trace::parallel(
        JobTimeline::run_to(a.scenario().stream.clone(), cfg, &presses, now).unwrap(),
    );
    let truth = &a.scenario().oracle.truth;
    assert_eq!(b(&a).trace().tally(truth), plain.tally(truth));
}

#[test]
fn job_presses_reach_both_runs() {
    let mut a = outage_idle_vs_not();
    act(&mut a, Action::PickPartition);
    act(&mut a, Action::CutPartition);
    assert_eq!(a.steered.presses().len(), 1);
    assert_eq!(
        b(&a).steered.presses(),
        a.steered.presses(),
        "the same cut, at the same time"
    );
    assert!(a.trace().is_cut_off(0) && b(&a).trace().is_cut_off(0));
    act(&mut a, Action::TogglePlay);
    tick(&mut a, 3.0);
    act(&mut a, Action::TogglePlay);
    act(&mut a, Action::Crash);
    assert_eq!(a.steered.presses().len(), 2);
    assert_eq!(b(&a).steered.presses(), a.steered.presses());
    assert_eq!(a.trace().crashes().len(), 1);
    assert_eq!(b(&a).trace().crashes().len(), 1, "B crashed too");
    assert_eq!(b(&a).trace().crashes()[0].time, a.trace().crashes()[0].time);
    // Healed in both, the job runs on to its end in both; Home forgets the presses in both.
    act(&mut a, Action::CutPartition);
    assert_eq!(b(&a).steered.presses(), a.steered.presses());
    assert!(!a.trace().is_cut_off(0) && !b(&a).trace().is_cut_off(0));
    act(&mut a, Action::JumpToEnd);
    assert!(a.trace().is_finished(), "{}", said(&a));
    assert!(b(&a).trace().is_finished());
    act(&mut a, Action::Restart);
    assert!(b(&a).steered.presses().is_empty());
    assert_eq!(b(&a).playhead().now, a.playhead().now);
    act(&mut a, Action::Step);
    assert_eq!(b(&a).playhead().now, a.playhead().now);
}

#[test]
fn a_dial_change_in_the_job_moves_a_only() {
    let mut a = outage_idle_vs_not();
    let before = b(&a).trace().tally(&a.scenario().oracle.truth);
    act(&mut a, Action::LagUp);
    assert_eq!(b(&a).dials.lag, 20_000.0);
    assert_eq!(b(&a).trace().tally(&a.scenario().oracle.truth), before);
    assert_eq!(b(&a).playhead().now, a.playhead().now);
}

#[test]
fn snapshots_single_side_by_side() {
    let mut a = app();
    a.theme = Theme::mono();
    act(&mut a, Action::SideBySide);
    act(&mut a, Action::Policy(2));
    act(&mut a, Action::TogglePlay);
    tick(&mut a, 30.0);
    act(&mut a, Action::TogglePlay);
    for (w, h) in [(80, 24), (120, 40)] {
        let s = drawn_text(&mut a, (w, h));
        assert!(
            s.contains(" A · lag 10s grace 1m30s") || s.contains(" A · lag 10s"),
            "{s}"
        );
        assert!(s.contains(" B · lag 20s"), "{s}");
        assert_snapshot!(format!("side_single_{w}x{h}"), s);
    }
    let s = drawn_text(&mut a, (200, 60));
    assert!(s.contains(" B · lag 20s grace 0s"), "{s}");
}

#[test]
fn snapshots_outage_job_idle_against_none() {
    let mut a = outage_idle_vs_not();
    for (w, h) in [(80, 24), (120, 40)] {
        let s = drawn_text(&mut a, (w, h));
        assert!(s.contains(" A · lag 20s idle 10s"), "{s}");
        assert!(s.contains(" B · lag 20s idle off"), "{s}");
        assert!(s.contains("stall"), "B's stall is said: {s}");
        assert_snapshot!(format!("side_outage_{w}x{h}"), s);
    }
}

#[test]
fn every_size_draws_side_by_side_without_panicking() {
    let mut a = app();
    act(&mut a, Action::SideBySide);
    for size in [
        (80, 24),
        (81, 25),
        (100, 30),
        (119, 39),
        (120, 40),
        (200, 60),
        (30, 10),
    ] {
        drawn_text(&mut a, size);
    }
    act(&mut a, Action::Zoom);
    let s = drawn_text(&mut a, (120, 40));
    assert!(s.contains(" B · "), "zoomed, both plots: {s}");
}

#[test]
fn j_takes_both_runs_into_the_job_and_out_of_it() {
    let mut a = app();
    act(&mut a, Action::TogglePlay);
    tick(&mut a, 10.0);
    act(&mut a, Action::TogglePlay);
    act(&mut a, Action::SideBySide);
    act(&mut a, Action::LagUp);
    act(&mut a, Action::ToggleJob);
    assert!(a.trace().job().is_some() && b(&a).trace().job().is_some());
    assert_eq!(b(&a).trace().config().watermark.lag(), Some(20_000.0));
    assert_eq!(a.trace().config().watermark.lag(), Some(21_000.0));
    assert_eq!(b(&a).playhead().now, a.playhead().now);
    act(&mut a, Action::CheckpointNow);
    assert_eq!(b(&a).steered.presses(), a.steered.presses());
    act(&mut a, Action::ToggleJob);
    assert!(a.trace().job().is_none() && b(&a).trace().job().is_none());
    same_playhead(&a);
}

#[test]
fn a_click_on_bs_plot_inspects_the_event_in_both_each_under_its_own_dials() {
    let mut a = app();
    update(&mut a, Msg::Resize(120, 40), Duration::ZERO);
    act(&mut a, Action::JumpToEnd);
    act(&mut a, Action::SideBySide);
    // A keeps late events with billing's long grace; B, pinned at no grace, drops them.
    act(&mut a, Action::Policy(2));
    let areas = a.areas(a.size).unwrap();
    let bp = b(&a).plot_frame(areas.side.unwrap().b_plot).unwrap().inner;
    // Somewhere on B's plot there is an event under the mouse.
    let clicked = (bp.top()..bp.bottom())
        .flat_map(|y| (bp.left()..bp.right()).map(move |x| (x, y)))
        .find(|&(x, y)| {
            let mut t = a.clone();
            update(&mut t, Msg::Click(x, y), Duration::ZERO);
            t.selection.inspected.is_some()
        })
        .expect("an event on B's plot");
    update(&mut a, Msg::Click(clicked.0, clicked.1), Duration::ZERO);
    let i = a.selection.inspected.expect("inspected in A");
    assert_eq!(b(&a).selection.inspected, Some(i), "and in B");
    let s = screen(&a);
    assert_eq!(
        s.matches("Inspect ·").count(),
        2,
        "an inspector on each plot\n{s}"
    );
}
