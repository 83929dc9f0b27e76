//! The job's read model as the screen shows it: the sinks' cells wrong (final and different from
//! the oracle) apart from those still open, the counters' records read, and the same figures at
//! the end of the stream as the command line reports.

use twoclocks::engine::Stream;
use twoclocks::tui::app::Action;

use crate::ui_common::{act, job, job_at, screen};

#[test]
fn early_in_the_stream_the_sinks_cells_are_open_not_wrong() {
    let a = job_at(20.0);
    let scores = job(&a).sink_scores(&a.scenario().oracle.truth);
    let cells = a.scenario().oracle.truth.len();
    for s in &scores {
        // Nothing is final at 20 s and nothing has gone over: every cell is incomplete.
        assert_eq!(s.wrong, 0, "{s:?}");
        assert_eq!(s.open, cells, "{s:?}");
    }
    let shown = screen(&a);
    assert!(shown.contains("wrong"), "{shown}");
    assert!(shown.contains("open"), "{shown}");
}

#[test]
fn at_the_end_the_sinks_figures_are_the_command_lines() {
    let mut a = job_at(20.0);
    act(&mut a, Action::JumpToEnd);
    a.settle();
    let j = job(&a);
    assert!(j.is_finished());
    // What `run --format json` reports for this job: every cell that differs.
    let expected: Vec<usize> = twoclocks::engine::SinkKind::ALL
        .iter()
        .map(|&k| {
            let out = j.pipeline().sink_output(k);
            a.scenario()
                .oracle
                .truth
                .iter()
                .filter(|(c, &t)| out.get(c).copied().unwrap_or(0) != t as i64)
                .count()
        })
        .collect();
    let scores = j.sink_scores(&a.scenario().oracle.truth);
    let wrong: Vec<usize> = scores.iter().map(|s| s.wrong).collect();
    assert_eq!(wrong, expected);
    assert_eq!(wrong, vec![40, 40, 40]);
    assert!(scores.iter().all(|s| s.open == 0), "{scores:?}");
}

#[test]
fn the_counters_say_records_arrived_and_replayed() {
    let mut a = job_at(265.0);
    let shown = screen(&a);
    assert!(!shown.contains("taken "), "{shown}");
    let arrived = format!("{} / 20000", job(&a).pipeline().counters().events);
    assert!(
        shown
            .lines()
            .any(|l| l.contains("arrived") && l.contains(&arrived)),
        "{shown}"
    );
    assert!(act(&mut a, Action::Crash));
    let shown = screen(&a);
    assert!(job(&a).pipeline().is_replaying());
    // The count is the events read; the mark says some are read again.
    assert!(shown.lines().any(|l| l.contains("arrived ↺")), "{shown}");
}

/// The sinks panel's split of the additive sink over the idempotent one is exact: panes
/// re-added plus panes replayed is the difference of the two sinks' totals; the replayed part
/// is the over-count the crashes report (aligned barriers), and discarding panes re-add
/// nothing.
#[test]
fn the_additive_over_count_splits_exactly_by_cause() {
    use twoclocks::engine::SinkKind;
    let a = job_at(265.0);
    for (crashed, accumulation_steps) in [(false, 0), (true, 0), (true, 1), (true, 2)] {
        let mut a = a.clone();
        for _ in 0..accumulation_steps {
            act(&mut a, Action::CycleAccumulation);
        }
        if crashed {
            act(&mut a, Action::Crash);
        }
        // The replay done: what the crash report foretold has been delivered.
        act(&mut a, Action::JumpToEnd);
        a.settle();
        let report = a.trace().sinks(&a.scenario().oracle.truth).expect("a job");
        let total = |k: SinkKind| -> i64 { job(&a).pipeline().sink_output(k).values().sum() };
        let diff = total(SinkKind::Additive) - total(SinkKind::Idempotent);
        assert_eq!(report.over.readded + report.over.replayed, diff);
        assert_eq!(report.over.replayed, report.overcount, "crashed {crashed}");
        if a.dials().accumulation == twoclocks::engine::Accumulation::Discarding {
            assert_eq!(report.over.readded, 0);
        }
        if crashed {
            assert!(report.over.replayed > 0, "a crash replays panes");
        }
    }
}

/// Under at-least-once barriers a crash adds to the additive sink more than the panes it
/// received again (the restored state has taken in records it is handed again): the read
/// model's figure for each crash, and the crash report's, are `run`'s
/// ([`CrashExcess::of`] over the same job and crashes), not the record's.
#[test]
fn under_at_least_once_each_crash_adds_what_run_says_it_adds() {
    use std::sync::Arc;
    use twoclocks::engine::job_timeline::{Intervention, JobTimeline};
    use twoclocks::engine::pipeline::{
        CheckpointMode, CrashExcess, CrashTarget, Pipeline, PipelineConfig,
    };
    use twoclocks::engine::trace::Trace;
    use twoclocks::engine::EngineConfig;

    let stream = Arc::new(Stream::classroom());
    let cfg = PipelineConfig {
        partitions: 2,
        parallelism: 4,
        checkpoint_every: Some(10_000.0),
        mode: CheckpointMode::AtLeastOnce,
        ..PipelineConfig::new(EngineConfig::fixed(20_000.0, 0.0))
    };
    let crashes = [
        (212_400.0, CrashTarget::Job),
        (265_000.0, CrashTarget::Operator(1)),
        (330_000.0, CrashTarget::Job),
    ];
    let mut j = JobTimeline::new(stream.clone(), cfg).unwrap();
    for &(t, target) in &crashes {
        j.advance_to(t);
        assert!(j.press(Intervention::Crash(target)));
    }
    j.run_to_end();
    let records: Vec<i64> = j.crashes().iter().map(|c| c.overcount_total()).collect();
    let trace = Trace::parallel(j);
    let run = CrashExcess::of(&Pipeline::new(stream, cfg).unwrap(), &crashes);
    assert_eq!(trace.crash_excess(), run.per_crash.as_slice());
    assert_eq!(trace.last_crash_excess(), run.per_crash.last().copied());
    assert_ne!(
        records, run.per_crash,
        "the records' figures are not the sink's excess"
    );
}
