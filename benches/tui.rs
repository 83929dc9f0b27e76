//! UI speed: a dial change on the classroom stream (engine re-run to the playhead, the whole
//! run's score, and a redraw), a frame with all 20 000 events plotted at 200×60, and what a
//! dial change costs on a one-million-event input, both the re-run done off the UI task and
//! the UI's own share (queue the work, redraw). In job mode (P = 2 sources, N = 4 operators, a
//! checkpoint every 10 s): a dial change re-running the whole classroom job (with and without
//! a crash to re-apply) and redrawing; the bytes a checkpoint copies are printed once. Group
//! `tui_1m`: a dial change at the end of a one-million-event input, single processor and job
//! mode, to the next frame (what the user waits for: the re-run goes off the UI task) and to
//! the settled frame (the re-run's result drawn). A redraw of the classroom stream in 30 s-gap
//! sessions at its end (lanes and session rows).

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use twoclocks::engine::EngineConfig;
use twoclocks::engine::Stream;
use twoclocks::engine::StreamParams;
use twoclocks::tui::app::{update, Action, App, Msg};
use twoclocks::tui::scenario::Scenario;
use twoclocks::tui::theme::Theme;
use twoclocks::tui::{app_for, view, Options};

fn app(scenario: Scenario) -> App {
    let mut a = app_for(Options {
        scenario,
        config: EngineConfig::fixed(20_000.0, 0.0),
        speed: 10.0,
        theme: Theme::dark(),
        play: false,
    });
    a.settle();
    update(&mut a, Msg::Action(Action::JumpToEnd), Duration::ZERO);
    a
}

/// What the job's checkpoints copied, over the whole classroom run.
fn report_checkpoint_cost(a: &App) {
    let Some(job) = a.trace().job() else {
        return;
    };
    let cks = job.pipeline().checkpoints();
    let bytes: Vec<usize> = cks.iter().map(|c| c.bytes).collect();
    let total: usize = bytes.iter().sum();
    println!(
        "job P = {}, N = {}, every 10 s: {} checkpoints, bytes copied per checkpoint min {} / \
         mean {} / max {}, total {total}; {} steps",
        job.config().partitions,
        job.config().parallelism,
        cks.len(),
        bytes.iter().min().unwrap_or(&0),
        total / cks.len().max(1),
        bytes.iter().max().unwrap_or(&0),
        job.pipeline().steps()
    );
}

fn million() -> Scenario {
    let stream = Stream::generate(&StreamParams {
        events: 1_000_000,
        span: 30_000_000.0,
        ..Default::default()
    })
    .expect("valid parameters");
    Scenario::new(
        "million",
        stream,
        &twoclocks::engine::WindowFn::Tumbling {
            size: 60_000,
            offset: 0,
        },
    )
}

fn benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("tui");
    g.sample_size(20).measurement_time(Duration::from_secs(3));

    let mut a = app(Scenario::classroom());
    let mut term = Terminal::new(TestBackend::new(120, 40)).expect("test backend");
    let mut up = true;
    g.bench_function("dial_change_classroom_rerun_and_redraw_120x40", |b| {
        b.iter(|| {
            let action = if up { Action::LagUp } else { Action::LagDown };
            up = !up;
            update(&mut a, Msg::Action(action), Duration::ZERO);
            term.draw(|f| view::render(&a, f)).expect("draw");
        })
    });

    // Mid-stream the whole run's score is one more run.
    let mut a = app(Scenario::classroom());
    update(&mut a, Msg::Action(Action::Restart), Duration::ZERO);
    update(&mut a, Msg::Action(Action::TogglePlay), Duration::ZERO);
    update(&mut a, Msg::Tick, Duration::from_secs(30));
    update(&mut a, Msg::Action(Action::TogglePlay), Duration::ZERO);
    g.bench_function(
        "dial_change_classroom_midway_rerun_and_redraw_120x40",
        |b| {
            b.iter(|| {
                let action = if up { Action::LagUp } else { Action::LagDown };
                up = !up;
                update(&mut a, Msg::Action(action), Duration::ZERO);
                term.draw(|f| view::render(&a, f)).expect("draw");
            })
        },
    );

    // Job mode at the end of the classroom stream: a dial change re-runs the whole job.
    let mut a = app(Scenario::classroom());
    update(&mut a, Msg::Action(Action::ToggleJob), Duration::ZERO);
    report_checkpoint_cost(&a);
    g.bench_function(
        "job_n4_ckpt10s_dial_change_classroom_rerun_and_redraw_120x40",
        |b| {
            b.iter(|| {
                let action = if up { Action::LagUp } else { Action::LagDown };
                up = !up;
                update(&mut a, Msg::Action(action), Duration::ZERO);
                term.draw(|f| view::render(&a, f)).expect("draw");
            })
        },
    );
    // The same after a crash at 265 s: the re-run applies it again and replays.
    let mut a = app(Scenario::classroom());
    update(&mut a, Msg::Action(Action::Restart), Duration::ZERO);
    update(&mut a, Msg::Action(Action::ToggleJob), Duration::ZERO);
    update(&mut a, Msg::Action(Action::TogglePlay), Duration::ZERO);
    update(&mut a, Msg::Tick, Duration::from_secs_f64(26.5));
    update(&mut a, Msg::Action(Action::Crash), Duration::ZERO);
    update(&mut a, Msg::Action(Action::JumpToEnd), Duration::ZERO);
    g.bench_function(
        "job_n4_ckpt10s_dial_change_after_a_crash_rerun_and_redraw_120x40",
        |b| {
            b.iter(|| {
                let action = if up { Action::LagUp } else { Action::LagDown };
                up = !up;
                update(&mut a, Msg::Action(action), Duration::ZERO);
                term.draw(|f| view::render(&a, f)).expect("draw");
            })
        },
    );

    let a = app(Scenario::classroom());
    let mut big = Terminal::new(TestBackend::new(200, 60)).expect("test backend");
    g.bench_function("frame_all_20000_events_200x60", |b| {
        b.iter(|| {
            big.draw(|f| view::render(black_box(&a), f)).expect("draw");
        })
    });

    let mut m = app(million());
    let cfg = m.dials().config();
    g.bench_function("rerun_1m_events_off_the_ui_task", |b| {
        b.iter(|| {
            let t = twoclocks::engine::timeline::Timeline::run_to(
                cfg,
                &m.scenario().stream,
                m.playhead().arrived,
                true,
            );
            black_box(t.counters().dropped)
        })
    });
    m.steered.set_inline_events(0);
    let mut up = true;
    g.bench_function("dial_change_1m_ui_share_queue_and_redraw_120x40", |b| {
        b.iter(|| {
            let action = if up { Action::LagUp } else { Action::LagDown };
            up = !up;
            update(&mut m, Msg::Action(action), Duration::ZERO);
            black_box(m.take_work());
            term.draw(|f| view::render(&m, f)).expect("draw");
        })
    });

    // Sessions on the classroom stream at the end: the lanes replay every session change, the
    // table's rows their oracle sessions; one redraw.
    let window = twoclocks::engine::WindowFn::session(30_000).expect("a valid gap");
    let mut s = app_for(Options {
        scenario: Scenario::new("classroom", twoclocks::engine::Stream::classroom(), &window),
        config: EngineConfig {
            window,
            ..EngineConfig::fixed(20_000.0, 30_000.0)
        },
        speed: 10.0,
        theme: Theme::dark(),
        play: false,
    });
    s.settle();
    update(&mut s, Msg::Action(Action::JumpToEnd), Duration::ZERO);
    let mut term = Terminal::new(TestBackend::new(120, 40)).expect("test backend");
    g.bench_function("sessions_30s_classroom_redraw_120x40", |b| {
        b.iter(|| {
            term.draw(|f| view::render(&s, f)).expect("draw");
        })
    });
    g.finish();
    million_benches(c);
}

/// One dial change (and one `w`, the next watermark kind) at the end of a 1M-event input, as
/// the user sees it: the next frame (the UI's share: the update, handing the re-run out, a
/// redraw) and the settled frame (the re-run done as well, its result taken in and drawn),
/// single processor and job mode; and a redraw of two policies side by side.
fn million_benches(c: &mut Criterion) {
    let mut g = c.benchmark_group("tui_1m");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    let mut term = Terminal::new(TestBackend::new(120, 40)).expect("test backend");
    let single = app(million());
    // Two policies side by side at the end: B pinned, A's lag a second more; one redraw
    // (both plots, the events whose fate differs marked).
    let mut side = single.clone();
    update(&mut side, Msg::Action(Action::SideBySide), Duration::ZERO);
    update(&mut side, Msg::Action(Action::LagUp), Duration::ZERO);
    side.settle();
    g.bench_function("side_by_side_redraw_120x40", |b| {
        b.iter(|| {
            term.draw(|f| view::render(black_box(&side), f))
                .expect("draw");
        })
    });
    let mut job = single.clone();
    update(&mut job, Msg::Action(Action::ToggleJob), Duration::ZERO);
    job.settle();
    for (name, base) in [("single", single), ("job", job)] {
        let mut a = base.clone();
        let mut up = true;
        g.bench_function(format!("{name}_dial_change_to_next_frame_120x40"), |b| {
            b.iter(|| {
                let action = if up { Action::LagUp } else { Action::LagDown };
                up = !up;
                update(&mut a, Msg::Action(action), Duration::ZERO);
                black_box(a.take_work());
                term.draw(|f| view::render(&a, f)).expect("draw");
            })
        });
        let mut a = base.clone();
        g.bench_function(
            format!("{name}_watermark_kind_to_settled_frame_120x40"),
            |b| {
                b.iter(|| {
                    update(&mut a, Msg::Action(Action::CycleWatermark), Duration::ZERO);
                    term.draw(|f| view::render(&a, f)).expect("draw");
                    a.settle();
                    term.draw(|f| view::render(&a, f)).expect("draw");
                })
            },
        );
        let mut a = base;
        g.bench_function(format!("{name}_dial_change_to_settled_frame_120x40"), |b| {
            b.iter(|| {
                let action = if up { Action::LagUp } else { Action::LagDown };
                up = !up;
                update(&mut a, Msg::Action(action), Duration::ZERO);
                term.draw(|f| view::render(&a, f)).expect("draw");
                a.settle();
                term.draw(|f| view::render(&a, f)).expect("draw");
            })
        });
    }
    g.finish();
}

criterion_group!(tui, benches);
criterion_main!(tui);
