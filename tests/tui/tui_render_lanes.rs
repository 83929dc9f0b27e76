//! The watermark lanes, the idle-timeout dial and the state over time: job mode during a
//! partition's outage with and without an idle timeout (snapshots at 80×24 and 120×40), the
//! dial re-running the job with the presses kept, the state chart climbing during an outage
//! and staying level with idleness, the expirations of keyed state marked, the samples'
//! bounded number, and the panels at 80×24, 120×40 and 200×60.

use std::sync::Arc;

use ratatui::backend::TestBackend;
use ratatui::Terminal;
use twoclocks::engine::job_timeline::Intervention;
use twoclocks::engine::trace::Trace;
use twoclocks::engine::window::{Ttl, TtlTime, WindowFn};
use twoclocks::engine::EngineConfig;
use twoclocks::tui::app::{update, Action, App, Dial, Msg};
use twoclocks::tui::geometry::Areas;
use twoclocks::tui::scenario::Scenario;
use twoclocks::tui::theme::Theme;
use twoclocks::tui::view;
use twoclocks::tui::view::watermark::{watermark_lanes, LaneMark, WatermarkHistory};
use twoclocks::tui::{app_for, Options};

use crate::kept_snapshots::assert_snapshot;
use crate::ui_common::*;

/// Turns the idle-timeout dial `steps` steps up (job mode).
fn idle_up(a: &mut App, steps: usize) {
    a.selection.focus = Dial::Idle;
    for _ in 0..steps {
        act(a, Action::DialUp);
    }
}

/// Job mode, partition 0 cut off at 120 s, played on to 200 s; with `idle_steps` of the idle
/// dial (5 s each) turned up first.
fn outage(idle_steps: usize) -> App {
    let mut a = app();
    act(&mut a, Action::ToggleJob);
    idle_up(&mut a, idle_steps);
    play(&mut a, 120.0);
    act(&mut a, Action::CutPartition);
    play(&mut a, 80.0);
    a
}

fn screen_of(a: &mut App, w: u16, h: u16) -> Terminal<TestBackend> {
    update(a, Msg::Resize(w, h), std::time::Duration::ZERO);
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| view::render(a, f)).unwrap();
    t
}

/// The text of the panel at `r` of the screen drawn at the app's size.
fn panel_text(a: &App, r: ratatui::layout::Rect) -> String {
    let s = screen(a);
    s.lines()
        .skip(usize::from(r.y))
        .take(usize::from(r.height))
        .map(|l| {
            l.chars()
                .skip(usize::from(r.x))
                .take(usize::from(r.width))
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn snapshot_job_outage_without_idleness() {
    let mut a = outage(0);
    assert_snapshot!("job_outage_120x40", screen_of(&mut a, 120, 40).backend());
    assert_snapshot!("job_outage_80x24", screen_of(&mut a, 80, 24).backend());
}

#[test]
fn snapshot_job_outage_with_an_idle_timeout() {
    let mut a = outage(2);
    assert_eq!(a.dials().idle_timeout, Some(10_000.0));
    assert_snapshot!(
        "job_outage_idle_10s_120x40",
        screen_of(&mut a, 120, 40).backend()
    );
    assert_snapshot!(
        "job_outage_idle_10s_80x24",
        screen_of(&mut a, 80, 24).backend()
    );
}

#[test]
fn the_lanes_show_the_cut_partition_frozen_and_the_combined_watermark_flat_until_idleness() {
    for (steps, moves_on) in [(0, false), (2, true)] {
        let a = outage(steps);
        let lanes = watermark_lanes(a.trace(), 40);
        assert_eq!(lanes.len(), 3, "the combined lane and two partitions'");
        assert_eq!(lanes[0].partition, None);
        let cut = &lanes[1];
        assert_eq!(cut.partition, Some(0));
        // The lanes span the run's whole extent: the columns the clock has reached have a lag,
        // those after it are blank.
        let reached = lanes[0]
            .cells
            .iter()
            .take_while(|c| c.lag.is_some())
            .count();
        assert!(reached > 5 && reached < 40, "{steps}: {reached}");
        for l in &lanes {
            assert!(
                l.cells[reached..]
                    .iter()
                    .all(|c| c.lag.is_none() && c.mark == LaneMark::Flowing),
                "{steps}: {l:?}"
            );
        }
        // The last 40 % of the run so far is the outage: marked out (or idle once the timeout
        // passed).
        let tail = &cut.cells[reached * 7 / 10..reached];
        let want = if moves_on {
            LaneMark::Idle
        } else {
            LaneMark::Out
        };
        assert!(tail.iter().all(|c| c.mark == want), "{steps}: {tail:?}");
        assert_eq!(cut.now, want);
        assert!(lanes[2].cells.iter().all(|c| c.mark == LaneMark::Flowing));
        // The combined watermark's lag at the clock: climbing with the outage (≥ its 80 s),
        // or back to the flowing partition's once idleness let it move on.
        let lag = lanes[0].cells[reached - 1].lag.unwrap();
        if moves_on {
            assert!(lag < 40_000.0, "{lag}");
        } else {
            assert!(lag >= 80_000.0, "{lag}");
        }
    }
}

#[test]
fn a_lane_column_keeps_its_span_as_the_run_plays() {
    let mut a = outage(0);
    let before = watermark_lanes(a.trace(), 40);
    let end = a.trace().lanes_end();
    play(&mut a, 40.0);
    let after = watermark_lanes(a.trace(), 40);
    // The same extent (the run's, not the clock's), so the columns reached before say the
    // same after, but for the last one, which was reached only in part.
    assert_eq!(a.trace().lanes_end(), end);
    let reached = before[0]
        .cells
        .iter()
        .take_while(|c| c.lag.is_some())
        .count();
    let later = after[0]
        .cells
        .iter()
        .take_while(|c| c.lag.is_some())
        .count();
    assert!(later > reached, "{reached} → {later}");
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(b.cells[..reached - 1], a.cells[..reached - 1]);
    }
    // And the bars' scale is fixed: a lag is drawn the same height whatever else the run did.
    assert_eq!(view::watermark::lag_level(500.0), 1);
    assert_eq!(view::watermark::lag_level(15_000.0), 5);
    assert_eq!(view::watermark::lag_level(100_000.0), 8);
    assert_eq!(view::watermark::lag_level(f64::INFINITY), 8);
}

#[test]
fn turning_the_idle_dial_reruns_the_job_with_the_presses_kept() {
    let mut a = app();
    act(&mut a, Action::ToggleJob);
    play(&mut a, 120.0);
    act(&mut a, Action::CutPartition);
    play(&mut a, 60.0);
    let presses = a.steered.presses().to_vec();
    let now = a.trace().job().unwrap().now();
    let stalled = a.trace().watermark();
    assert_eq!(a.trace().pipeline_config().unwrap().idle_timeout, None);
    idle_up(&mut a, 1);
    assert_eq!(a.dials().idle_timeout, Some(5_000.0));
    assert_eq!(
        a.trace().pipeline_config().unwrap().idle_timeout,
        Some(5_000.0)
    );
    assert_eq!(a.steered.presses(), presses, "the presses are kept");
    assert_eq!(a.trace().presses(), &presses[..], "and applied again");
    assert_eq!(a.trace().job().unwrap().now(), now, "at the same playhead");
    assert!(
        a.trace().watermark() > stalled + 30_000.0,
        "idleness lets the watermark move on"
    );
    assert!(a.trace().partitions()[0].is_idle);
    // Down again: off, the same outage stalls the watermark again.
    act(&mut a, Action::DialDown);
    assert_eq!(a.dials().idle_timeout, None);
    assert_eq!(a.trace().pipeline_config().unwrap().idle_timeout, None);
    assert_eq!(a.trace().watermark(), stalled);
    // The dial stops at its ends.
    act(&mut a, Action::DialDown);
    assert_eq!(a.dials().idle_timeout, None);
    idle_up(&mut a, 20);
    assert_eq!(a.dials().idle_timeout, Some(60_000.0));
    assert!(matches!(a.steered.presses()[0].what, Intervention::Cut(0)));
}

#[test]
fn clicking_the_idle_dials_track_sets_it() {
    let mut a = app();
    act(&mut a, Action::ToggleJob);
    update(&mut a, Msg::Resize(120, 40), std::time::Duration::ZERO);
    let areas = Areas::compute_for((120, 40), true).unwrap();
    let track = twoclocks::tui::geometry::dials::track(areas.dials, Dial::Idle).unwrap();
    let hit = twoclocks::tui::geometry::dials::hit(
        areas.dials,
        a.dial_order(),
        track.right() - 1,
        track.y,
    );
    assert_eq!(hit.map(|h| h.0), Some(Dial::Idle));
    // A click at the track's right end: the idle timeout's top, and the job re-run with it.
    update(
        &mut a,
        Msg::Click(track.right() - 1, track.y),
        std::time::Duration::ZERO,
    );
    assert_eq!(a.dials().idle_timeout, Some(60_000.0));
    assert_eq!(
        a.trace().pipeline_config().unwrap().idle_timeout,
        Some(60_000.0)
    );
    let mut d = a.dials();
    assert!(d.set_ratio(Dial::Idle, 0.0));
    assert_eq!(d.idle_timeout, None);
    assert!(!d.set_ratio(Dial::Idle, 0.01), "below a step: still off");
    assert!(d.set_ratio(Dial::Idle, 0.5));
    assert_eq!(d.idle_timeout, Some(30_000.0));
}

#[test]
fn the_state_climbs_during_an_outage_and_stays_level_with_idleness() {
    let peak = |a: &App, from: f64| {
        a.trace()
            .state_history()
            .iter()
            .filter(|s| s.time >= from)
            .map(|s| s.open_cells)
            .max()
            .unwrap()
    };
    let before = |a: &App| {
        a.trace()
            .state_history()
            .iter()
            .filter(|s| s.time < 120_000.0)
            .map(|s| s.open_cells)
            .max()
            .unwrap()
    };
    let stalled = outage(0);
    let idle = outage(2);
    // Without idleness the windows pile up unfired: more than before the outage, and still
    // climbing at its end.
    assert!(
        peak(&stalled, 190_000.0) > before(&stalled),
        "{} vs {}",
        peak(&stalled, 190_000.0),
        before(&stalled)
    );
    let h = stalled.trace().state_history();
    let first = h.iter().find(|s| s.time >= 125_000.0).unwrap().open_cells;
    assert!(h.last().unwrap().open_cells > first);
    // With idleness the watermark moves on: no more than the flowing job held.
    assert!(
        peak(&idle, 140_000.0) <= before(&idle),
        "{} vs {}",
        peak(&idle, 140_000.0),
        before(&idle)
    );
    // One sample per watermark sample, in processing-time order.
    let j = stalled.trace().job().unwrap();
    assert_eq!(j.state_samples().len(), j.watermarks().len());
    assert!(h.windows(2).all(|w| w[0].time <= w[1].time));
}

/// The global window with a 100 ms processing-time TTL over the classroom stream: a key's
/// state expires between two of its events now and then.
fn ttl_app() -> App {
    let window = WindowFn::global(Some(Ttl {
        ms: 100,
        time: TtlTime::Processing,
    }))
    .unwrap();
    let mut a = app_for(Options {
        scenario: Scenario::new(
            "classroom".to_string(),
            twoclocks::engine::Stream::classroom(),
            &window,
        ),
        config: EngineConfig {
            window,
            ..EngineConfig::fixed(20_000.0, 0.0)
        },
        speed: 10.0,
        theme: Theme::mono(),
        play: false,
    });
    a.settle();
    play(&mut a, 60.0);
    a
}

#[test]
fn expirations_of_keyed_state_are_marked_on_the_state_chart() {
    let mut a = ttl_app();
    let expired = a.trace().counters().ttl_expired;
    assert!(expired > 0);
    // Up to the latest sample of the state: the counter's value then.
    let sampled = a.trace().state_history().last().unwrap().ttl_expired;
    assert!(
        sampled <= expired && sampled + 20 > expired,
        "{sampled} {expired}"
    );
    assert_eq!(a.trace().keys_expired(), sampled);
    let cols = a.trace().state_columns(a.playhead().now, 30);
    assert!(cols.iter().any(|c| c.1));
    update(&mut a, Msg::Resize(120, 40), std::time::Duration::ZERO);
    let areas = Areas::compute_for((120, 40), false).unwrap();
    let counters = panel_text(&a, areas.counters);
    assert!(
        counters.contains(&format!("▾ {sampled} expired")),
        "{counters}"
    );
    assert!(counters.contains('▾'));
    // A single run's history is its timeline's.
    let t: &Trace = a.trace();
    assert_eq!(t.state_history(), t.timeline().unwrap().state_samples());
}

/// Job mode with four partitions by key, the picked partition cut off at 120 s, at 200 s.
fn four_partitions() -> App {
    let mut a = app();
    let preset = twoclocks::engine::pipeline::PipelineConfig {
        partitions: 4,
        parallelism: 2,
        seed: 1,
        partition_by: twoclocks::engine::pipeline::PartitionBy::Key,
        ..twoclocks::engine::pipeline::PipelineConfig::new(a.dials().config())
    };
    a.open_job(preset);
    play(&mut a, 120.0);
    act(&mut a, Action::PickPartition);
    act(&mut a, Action::CutPartition);
    play(&mut a, 80.0);
    a
}

#[test]
fn every_lane_fits_at_120x40_and_200x60_and_80x24_keeps_one_line() {
    let mut a = four_partitions();
    for size in [(120, 40), (200, 60)] {
        update(
            &mut a,
            Msg::Resize(size.0, size.1),
            std::time::Duration::ZERO,
        );
        let areas = Areas::compute_for(size, true).unwrap();
        let wm = panel_text(&a, areas.watermark);
        for lane in ["all", "p0", "p1", "p2", "p3"] {
            assert!(
                wm.lines()
                    .any(|l| l.trim_start_matches('│').starts_with(lane)),
                "{size:?}: {lane}\n{wm}"
            );
        }
        assert!(wm.contains("▓ out ░ idle"), "{size:?}\n{wm}");
        assert!(
            wm.contains('▓'),
            "{size:?}: the cut partition's outage\n{wm}"
        );
        assert!(!wm.contains("not shown"), "{size:?}\n{wm}");
        let counters = panel_text(&a, areas.counters);
        assert!(counters.contains("state so far"), "{size:?}\n{counters}");
        let dials = panel_text(&a, areas.dials);
        assert!(dials.contains("idle") && dials.contains("off"), "{dials}");
    }
    // Tall: the lanes run under the plot, as wide as it.
    let areas = Areas::compute_for((200, 60), true).unwrap();
    assert!(areas.watermark.width >= 150);
    // 80×24: the watermark panel is one line; the dials all eight; the lanes left out.
    update(&mut a, Msg::Resize(80, 24), std::time::Duration::ZERO);
    let areas = Areas::compute_for((80, 24), true).unwrap();
    assert_eq!(areas.watermark.height, 3);
    let wm = panel_text(&a, areas.watermark);
    assert!(wm.contains(" wm ") && wm.contains("gap"), "{wm}");
    let dials = panel_text(&a, areas.dials);
    assert!(dials.contains("idle"), "{dials}");
    // Single mode at 120×40 and 200×60: the state chart, no lanes.
    let mut s = app();
    play(&mut s, 100.0);
    for size in [(120, 40), (200, 60)] {
        update(
            &mut s,
            Msg::Resize(size.0, size.1),
            std::time::Duration::ZERO,
        );
        let areas = Areas::compute_for(size, false).unwrap();
        assert!(panel_text(&s, areas.counters).contains("state so far"));
        let wm = panel_text(&s, areas.watermark);
        assert!(wm.contains("gap") && !wm.contains("p0"), "{wm}");
    }
}

#[test]
fn fewer_rows_than_lanes_say_how_many_are_left_out() {
    let mut a = four_partitions();
    // 100×30: compact, the watermark panel short of six lanes.
    update(&mut a, Msg::Resize(100, 30), std::time::Duration::ZERO);
    let areas = Areas::compute_for((100, 30), true).unwrap();
    let wm = panel_text(&a, areas.watermark);
    let shown = wm
        .lines()
        .filter(|l| {
            let l = l.trim_start_matches('│');
            l.starts_with("all") || l.starts_with('p')
        })
        .count();
    assert!(shown >= 3, "{wm}");
    if shown < 5 {
        // Said in words where the legend has room, as "+N" where it does not.
        let n = 5 - shown;
        assert!(
            wm.contains(&format!("{n} more not shown")) || wm.contains(&format!("idle +{n}")),
            "{wm}"
        );
    }
}

#[test]
fn no_size_panics_with_lanes_and_the_state_chart() {
    let mut a = four_partitions();
    let mut ttl = ttl_app();
    for w in [80, 81, 99, 119, 120, 121, 160, 199, 200, 257, 400] {
        for h in [24, 25, 29, 31, 39, 40, 41, 59, 60, 61, 120] {
            for app in [&mut a, &mut ttl] {
                let buf = screen_of(app, w, h).backend().buffer().clone();
                assert_eq!(buf.area.width, w);
            }
        }
    }
}

#[test]
fn an_idle_timeout_given_on_the_command_line_presets_the_dial() {
    let mut a = app();
    let preset = twoclocks::engine::pipeline::PipelineConfig {
        partitions: 2,
        parallelism: 4,
        seed: 1,
        idle_timeout: Some(7_000.0),
        ..twoclocks::engine::pipeline::PipelineConfig::new(a.dials().config())
    };
    a.open_job(preset);
    assert_eq!(a.dials().idle_timeout, Some(7_000.0));
    assert_eq!(
        a.trace().pipeline_config().unwrap().idle_timeout,
        Some(7_000.0)
    );
    // Off the dial's steps: the next step up, or down.
    let mut d = a.dials();
    d.turn(Dial::Idle, true);
    assert_eq!(d.idle_timeout, Some(10_000.0));
    let mut d = a.dials();
    d.turn(Dial::Idle, false);
    assert_eq!(d.idle_timeout, Some(5_000.0));
    update(&mut a, Msg::Resize(120, 40), std::time::Duration::ZERO);
    let areas = Areas::compute_for((120, 40), true).unwrap();
    assert!(panel_text(&a, areas.dials).contains("7s"));
}

#[test]
fn a_crash_cuts_the_state_history_back_with_the_watermark_samples() {
    use twoclocks::engine::job_timeline::JobTimeline;
    use twoclocks::engine::pipeline::{CrashTarget, PipelineConfig};
    let stream = Arc::new(twoclocks::engine::Stream::classroom());
    let cfg = PipelineConfig {
        partitions: 2,
        parallelism: 4,
        checkpoint_every: Some(10_000.0),
        ..PipelineConfig::new(EngineConfig::fixed(20_000.0, 0.0))
    };
    let mut j = JobTimeline::new(stream, cfg).unwrap();
    j.advance_to(125_000.0);
    assert!(j.press(Intervention::Crash(CrashTarget::Job)));
    let t = Trace::parallel(j);
    let h = t.state_history();
    assert_eq!(h.len(), WatermarkHistory::of(&t).len());
    assert!(h.last().unwrap().time <= t.job().unwrap().now());
    // The lanes start where the samples do and end at the clock, one cell per column.
    let lanes = watermark_lanes(&t, 17);
    assert_eq!(lanes.len(), 3);
    assert!(lanes.iter().all(|l| l.cells.len() == 17));
}
