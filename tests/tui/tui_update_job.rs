//! Update tests for job mode: the parallel pipeline in the UI, its re-runs, crashes,
//! checkpoints and operator picks, checked against the engine run without the UI.

use std::time::Duration;

use twoclocks::engine::timeline::Timeline;
use twoclocks::engine::Fate;
use twoclocks::tui::app::{update, Action, App, Dial, Msg, Work};
use twoclocks::tui::geometry::Areas;

use crate::ui_common::*;

#[test]
fn a_dial_change_in_job_mode_reruns_the_job_off_the_ui_task() {
    let mut a = job_at(265.0);
    act(&mut a, Action::Crash);
    let crash = job(&a).last_crash().unwrap().clone();
    let now = a.playhead().now;
    a.steered.set_inline_events(0);
    act(&mut a, Action::LagUp);
    assert!(a.steered.rerunning());
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
    assert_eq!(a.steered.presses().len(), 1);
    let work = a.take_work();
    assert!(matches!(work.as_slice(), [Work::Rerun(job)] if job.rerun.is_job()));
    for w in work {
        assert!(update(
            &mut a,
            Msg::Done(Box::new(w.perform())),
            Duration::ZERO
        ));
    }
    assert!(!a.steered.rerunning());
    assert_eq!(job(&a).config().engine.watermark.lag(), Some(21_000.0));
    let c = &job(&a).crashes()[0];
    assert_eq!(
        (c.time, c.restored, &c.offsets, c.replayed),
        (crash.time, crash.restored, &crash.offsets, crash.replayed),
        "the same crash"
    );
    assert_eq!(a.playhead().now, now);
}

#[test]
fn job_mode_entered_at_the_end_shows_the_whole_stream_taken() {
    for inline in [true, false] {
        let mut a = app();
        if !inline {
            a.steered.set_inline_events(0);
        }
        act(&mut a, Action::JumpToEnd);
        act(&mut a, Action::ToggleJob);
        a.settle();
        assert!(job(&a).is_finished(), "inline {inline}");
        assert!(a.playhead().finished);
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

/// The same job with no presses, run to the end.
fn clean_run(a: &App) -> twoclocks::engine::job_timeline::JobTimeline {
    twoclocks::engine::job_timeline::JobTimeline::run_to(
        a.scenario().stream.clone(),
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
    let at = a.playhead().now;
    let before = job(&a).pipeline().counters();
    assert!(act(&mut a, Action::Crash));
    assert_eq!(a.steered.presses().len(), 1);
    assert_eq!(a.steered.presses()[0].time, at);
    assert_eq!(
        a.steered.presses()[0].what,
        Intervention::Crash(CrashTarget::Job)
    );
    let crash = job(&a).last_crash().unwrap().clone();
    assert_eq!(crash.time, at);
    assert_eq!(crash.restored, Some(26));
    assert_eq!(a.playhead().now, crash.restored_time, "the clock goes back");
    let after = job(&a).pipeline().counters();
    assert!(after.events < before.events, "the counters roll back");
    assert!(after.panes() <= before.panes());
    assert!(job(&a).pipeline().is_replaying());
    // The replay proceeds as the job plays on.
    act(&mut a, Action::TogglePlay);
    tick(&mut a, 0.5);
    assert!(job(&a).redelivered() > 0);
    act(&mut a, Action::JumpToEnd);
    assert!(a.playhead().finished);
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
    assert_eq!(a.dials().checkpoint_every, None, "only on demand");
    assert!(job(&a).pipeline().checkpoints().is_empty());
    assert!(act(&mut a, Action::CheckpointNow));
    assert_eq!(a.steered.presses().len(), 1);
    assert_eq!(a.steered.presses()[0].what, Intervention::Checkpoint);
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
    assert!(
        cks[0].time <= a.steered.presses()[0].time
            && cks[0].time > a.steered.presses()[0].time - 1_000.0
    );
}

#[test]
fn a_dial_change_after_a_crash_reproduces_the_crash() {
    let mut a = job_at(265.0);
    act(&mut a, Action::Crash);
    act(&mut a, Action::TogglePlay);
    tick(&mut a, 0.4);
    act(&mut a, Action::TogglePlay);
    let crash = job(&a).last_crash().unwrap().clone();
    let now = a.playhead().now;
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
    assert_eq!(a.playhead().now, now);
    assert_eq!(job(&a).pipeline().steps(), steps);
    // A longer checkpoint interval restores an older checkpoint; the crash stays where it was.
    a.selection.focus = Dial::Checkpoint;
    act(&mut a, Action::DialUp);
    assert_eq!(a.dials().checkpoint_every, Some(15_000.0));
    let c = &job(&a).crashes()[0];
    assert_eq!(c.time, crash.time);
    assert_eq!(c.restored_time, 255_000.0);
}

#[test]
fn shift_c_picks_an_operator_and_c_crashes_it() {
    use twoclocks::engine::pipeline::CrashTarget;
    let mut a = app();
    act(&mut a, Action::PickOperator);
    assert!(a.trace().job().is_some(), "C enters job mode");
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
    let at = a.playhead().now;
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
    assert!(a.steered.presses().is_empty());
    assert!(job(&a).crashes().is_empty());
    // Leaving job mode returns to the single processor at the same processing time.
    act(&mut a, Action::ToggleJob);
    assert!(a.trace().job().is_none());
    assert_eq!(timeline(&a).arrived(), a.playhead().arrived);
}

#[test]
fn step_in_job_mode_moves_the_job_to_its_next_step() {
    let mut a = app();
    act(&mut a, Action::ToggleJob);
    let steps = job(&a).pipeline().steps();
    assert!(act(&mut a, Action::Step));
    assert!(job(&a).pipeline().steps() > steps);
    assert_eq!(a.playhead().now, job(&a).now());
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
        assert_eq!(a.dials().watermark().family(), family);
    }
    let dials = a.dials();
    assert!(act(&mut a, Action::LagUp));
    assert_eq!(a.dials(), dials, "nothing turned");
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
    assert_eq!(a.dials().grace, 5_000.0);
    assert!(said(&a).contains("Esc or ? closes"), "{}", said(&a));
    act(&mut a, Action::Close);
    // Esc with nothing open; a window past the last.
    act(&mut a, Action::Close);
    assert_eq!(said(&a), "nothing to close");
    for _ in 0..a.scenario().oracle.windows.len() {
        act(&mut a, Action::WindowNext);
    }
    assert_eq!(said(&a), "this is the last window");
}

#[test]
fn c_and_x_after_the_jobs_end_say_the_job_has_finished() {
    let mut a = job_at(30.0);
    act(&mut a, Action::JumpToEnd);
    assert!(a.playhead().finished);
    let steps = job(&a).pipeline().steps();
    act(&mut a, Action::Crash);
    assert!(a.steered.presses().is_empty());
    assert_eq!(job(&a).pipeline().steps(), steps);
    assert!(said(&a).contains("nothing left to crash"), "{}", said(&a));
    act(&mut a, Action::CheckpointNow);
    assert!(a.steered.presses().is_empty());
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
    assert!(!a.playing, "the playhead stops there");
    let x = a.selection.inspected.expect("the inspector opens");
    assert_ne!(timeline(&a).fates()[x], Fate::OnTime);
    assert!(
        timeline(&a).fates()[..x].iter().all(|f| *f == Fate::OnTime),
        "the first one"
    );
    assert_eq!(a.playhead().arrived, x + 1);
    assert_eq!(timeline(&a).arrived(), x + 1);
    assert_eq!(a.playhead().now, a.scenario().stream.events[x].proc_time);
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
    assert_eq!(a.playhead().arrived, x + 1);
    let fresh = Timeline::run_to(a.dials().config(), &a.scenario().stream, x + 1, false);
    assert_eq!(timeline(&a).fates(), fresh.fates());
    act(&mut a, Action::PrevException);
    assert_eq!(a.selection.inspected, Some(x));
    assert_eq!(said(&a), "no late or dropped event before this one");
    // ← → step the inspector through the events, leaving the dials alone.
    let dials = a.dials();
    act(&mut a, Action::DialDown);
    act(&mut a, Action::DialDown);
    assert_eq!(a.selection.inspected, Some(x - 2));
    act(&mut a, Action::DialUp);
    assert_eq!(a.selection.inspected, Some(x - 1));
    assert_eq!(a.dials(), dials);
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
    assert_eq!(a.dials().lag, 21_000.0);
}

#[test]
fn greater_with_none_left_stops_at_the_end_and_says_so() {
    let mut a = app();
    for _ in 0..3 {
        act(&mut a, Action::CycleWatermark);
    }
    assert_eq!(a.dials().watermark().family(), "perfect");
    act(&mut a, Action::NextException);
    assert!(a.playhead().finished);
    assert_eq!(a.selection.inspected, None);
    assert!(said(&a).contains("no late or dropped event left"));
    assert_eq!(timeline(&a).counters().dropped, 0);
    let mut j = app();
    act(&mut j, Action::ToggleJob);
    act(&mut j, Action::NextException);
    assert!(said(&j).contains("j leaves job mode"), "{}", said(&j));
}

#[test]
fn at_the_end_greater_and_less_open_on_the_last_event_when_it_was_late_or_dropped() {
    // The lesson's last arrival is dropped: with nothing inspected, > and < start at the
    // playhead and find it there, the playhead staying at the end.
    for action in [Action::NextException, Action::PrevException] {
        let mut a = ui(&["--scenario", "lesson"]);
        act(&mut a, Action::JumpToEnd);
        let last = a.trace().arrived() - 1;
        assert_eq!(timeline(&a).fates()[last], Fate::Dropped);
        let now = a.playhead().now;
        assert!(act(&mut a, action), "{action:?}: {}", said(&a));
        assert_eq!(a.selection.inspected, Some(last), "{action:?}");
        assert!(a.playhead().finished);
        assert_eq!(a.playhead().now, now);
        assert_eq!(said(&a), "");
        // Then on from it, as from any inspected event.
        act(&mut a, action);
        if action == Action::NextException {
            assert!(said(&a).contains("no late or dropped event left"));
        } else {
            let before = a.selection.inspected.unwrap();
            assert!(before < last);
            assert_ne!(timeline(&a).fates()[before], Fate::OnTime);
        }
    }
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
    a.steered.set_inline_events(0);
    let steps = job(&a).pipeline().steps();
    act(&mut a, Action::JumpToEnd);
    assert!(a.steered.rerunning());
    assert_eq!(
        job(&a).pipeline().steps(),
        steps,
        "the job drawn stays until then"
    );
    a.settle();
    assert!(!a.steered.rerunning());
    assert!(job(&a).is_finished());
    assert!(a.playhead().finished);
}
