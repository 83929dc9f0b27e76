//! Update tests for a partition cut off and healed in job mode (`p`, `P`): the presses are
//! kept with their processing time, the read model's partitions equal an engine run with the
//! same outage, and a dial change re-runs to the same outage.

use twoclocks::engine::job_timeline::{Intervention, Press};
use twoclocks::engine::pipeline::{Outage, Pipeline};
use twoclocks::tui::app::{Action, App};

use crate::ui_common::*;

/// The engine alone: the job's pipeline with these outages, stepped to processing time `t`
/// as the job is (every step due by then).
fn engine_run(
    a: &App,
    outages: Vec<Outage>,
    t: f64,
) -> Pipeline<std::sync::Arc<twoclocks::engine::Stream>> {
    let mut p = Pipeline::new(a.scenario().stream.clone(), a.job_config())
        .unwrap()
        .with_outages(outages)
        .unwrap();
    while p.next_time().is_some_and(|n| n <= t) {
        p.step();
    }
    p
}

#[test]
fn p_cuts_the_first_partition_off_and_p_again_heals_it_as_the_engine_does() {
    let mut a = app();
    act(&mut a, Action::ToggleJob);
    play(&mut a, 100.0);
    let cut = a.trace().job().unwrap().now();
    act(&mut a, Action::CutPartition);
    assert_eq!(a.partition_pick, Some(0));
    assert!(a.trace().is_cut_off(0));
    assert_eq!(a.trace().out_since(0), Some(cut));
    play(&mut a, 40.0);
    assert!(a.trace().partitions()[0].is_out);
    assert!(a.trace().watermark_stall().is_some_and(|d| d >= 30_000.0));
    let heal = a.trace().job().unwrap().now();
    act(&mut a, Action::CutPartition);
    assert!(!a.trace().is_cut_off(0));
    assert_eq!(
        a.steered.presses(),
        vec![
            Press {
                time: cut,
                what: Intervention::Cut(0)
            },
            Press {
                time: heal,
                what: Intervention::Heal(0)
            },
        ]
    );
    play(&mut a, 60.0);
    let now = a.trace().job().unwrap().now();
    let outage = Outage {
        partition: 0,
        from: cut,
        until: heal,
    };
    let engine = engine_run(&a, vec![outage], now);
    assert_eq!(a.trace().partitions(), engine.partitions());
    assert_eq!(a.trace().job().unwrap().pipeline().steps(), engine.steps());
    assert_eq!(
        a.trace().job().unwrap().pipeline().counters(),
        engine.counters()
    );
    assert_eq!(a.trace().partitions()[0].out, vec![(cut, heal)]);

    // A dial change re-runs the job to the same outage.
    act(&mut a, Action::LagUp);
    assert_eq!(
        a.trace().job().unwrap().config().engine.watermark.lag(),
        Some(21_000.0)
    );
    assert_eq!(a.steered.presses().len(), 2);
    assert_eq!(a.trace().partitions()[0].out, vec![(cut, heal)]);
    let engine = engine_run(&a, vec![outage], a.trace().job().unwrap().now());
    assert_eq!(a.trace().partitions(), engine.partitions());
}

#[test]
fn a_cut_not_healed_stays_out_through_a_dial_change() {
    let mut a = app();
    act(&mut a, Action::ToggleJob);
    play(&mut a, 120.0);
    act(&mut a, Action::PickPartition);
    act(&mut a, Action::PickPartition);
    assert_eq!(a.partition_pick, Some(1));
    let cut = a.trace().job().unwrap().now();
    act(&mut a, Action::CutPartition);
    play(&mut a, 30.0);
    act(&mut a, Action::GraceUp);
    let parts = a.trace().partitions();
    assert_eq!(parts[1].out, vec![(cut, f64::INFINITY)]);
    assert!(parts[1].is_out && !parts[0].is_out);
    assert_eq!(a.trace().out_since(1), Some(cut));
    let engine = engine_run(
        &a,
        vec![Outage {
            partition: 1,
            from: cut,
            until: f64::INFINITY,
        }],
        a.trace().job().unwrap().now(),
    );
    assert_eq!(parts, engine.partitions());
}

#[test]
fn p_in_the_single_processor_enters_job_mode_first() {
    let mut a = app();
    assert!(a.trace().job().is_none());
    act(&mut a, Action::CutPartition);
    assert!(a.trace().job().is_some());
    assert!(a.trace().is_cut_off(0));
    assert_eq!(a.steered.presses().len(), 1);
}
