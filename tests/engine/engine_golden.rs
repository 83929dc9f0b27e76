//! Golden tests: every figure the reference prints, computed by the engine on the classroom
//! stream, and the report's text carrying each of them. Where the reference's recorded output
//! is present beside the project, the figures are also checked to be in it. The silent
//! partition's block, which the reference does not have, is pinned to the pipeline's figures
//! as it first printed them.

use twoclocks::cli::report::{figures, render};
use twoclocks::engine::Processor;
use twoclocks::engine::Stream;
use twoclocks::engine::Timing;

/// The figures, as the reference prints them (`../shared/reference/p07_handson.out.txt`).
const REFERENCE_FIGURES: &[&str] = &[
    "p50=  1.57s p99= 79.29s max= 89.95s",
    "9875/19999 adjacent pairs",
    "(49%)",
    "10 windows x 4 keys",
    "[499, 509, 539, 473]",
    "perfect watermark lag =   89.95s",
    " 15.0% of events",
    "  6.3% of events",
    "  2.8% of events",
    "fixed 5s                       1057             40         35",
    "fixed 20s                       724             40         30",
    "fixed 20s + 60s grace            12             10          2",
    "perfect (oracle)                  0              0          0",
    "oracle = 473",
    "EARLY          195.9s      96       -377",
    "EARLY          211.0s     204       -269",
    "EARLY          226.0s     325       -148",
    "EARLY          241.0s     440        -33",
    "LATE           311.3s     472         -1",
    "LATE           324.1s     473         +0",
    "27 panes emitted",
    "clean run: 40 groups, 20000 events",
    "5 crashes: 40 groups, 20000 events",
    "identical: True",
    "2s      0s              2s             40         1283",
    "10s      0s             10s             40          923",
    "30s      0s             30s             40          553",
    "90s      0s             90s              0            0",
    "10s     30s             40s             40          369",
    "10s     90s            100s              0            0",
    "dashboard (fast)                 2s      40   1283     93.58%",
    "alerting (balanced)             40s      40    369     98.16%",
    "billing (correct)              100s       0      0    100.00%",
];

#[test]
fn the_constants_are_the_reference_output() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/reference/p07_handson.out.txt"
    );
    let Ok(text) = std::fs::read_to_string(path) else {
        eprintln!("reference output not present at {path}; checked against constants only");
        return;
    };
    for f in REFERENCE_FIGURES {
        assert!(text.contains(f), "reference output lacks {f:?}");
    }
}

#[test]
fn block_figures_are_exact() {
    let s = Stream::classroom();
    let f = figures(&s).expect("non-empty");
    // Block 1.
    assert_eq!(f.stats.events, 20_000);
    assert_eq!(format!("{:.2}", f.stats.median / 1000.0), "1.57");
    assert_eq!(format!("{:.2}", f.stats.p99 / 1000.0), "79.29");
    assert_eq!(format!("{:.2}", f.stats.max / 1000.0), "89.95");
    assert_eq!(f.stats.out_of_order, 9875);
    // Block 2.
    assert_eq!((f.windows, f.keys), (10, 4));
    assert_eq!(f.oracle_a, vec![499, 509, 539, 473]);
    // Block 3.
    assert_eq!(format!("{:.2}", f.perfect_lag / 1000.0), "89.95");
    let behind: Vec<String> = f.behind.iter().map(|(_, p)| format!("{p:.1}")).collect();
    assert_eq!(behind, ["15.0", "6.3", "2.8"]);
    // Block 4.
    let rows: Vec<(u64, usize, i64)> = f
        .late_rows
        .iter()
        .map(|r| (r.dropped, r.score.wrong_windows, r.score.max_error))
        .collect();
    assert_eq!(
        rows,
        vec![(1057, 40, 35), (724, 40, 30), (12, 10, 2), (0, 0, 0)]
    );
    // Block 5.
    assert_eq!(f.pane_truth, 473);
    assert_eq!(f.panes.len(), 27);
    let first: Vec<(Timing, String, u64)> = f
        .panes
        .iter()
        .take(4)
        .map(|p| (p.timing, format!("{:.1}", p.proc_time / 1000.0), p.total))
        .collect();
    assert_eq!(
        first,
        vec![
            (Timing::Early, "195.9".into(), 96),
            (Timing::Early, "211.0".into(), 204),
            (Timing::Early, "226.0".into(), 325),
            (Timing::Early, "241.0".into(), 440),
        ]
    );
    let last: Vec<(Timing, String, u64)> = f.panes[25..]
        .iter()
        .map(|p| (p.timing, format!("{:.1}", p.proc_time / 1000.0), p.total))
        .collect();
    assert_eq!(
        last,
        vec![
            (Timing::Late, "311.3".into(), 472),
            (Timing::Late, "324.1".into(), 473)
        ]
    );
    // Block 6.
    assert_eq!((f.clean_groups, f.clean_events), (40, 20_000));
    assert_eq!((f.crashed_groups, f.crashed_events), (40, 20_000));
    assert!(f.identical);
    // Block 7 and the assembly.
    let frontier: Vec<(usize, i64)> = f
        .frontier
        .iter()
        .map(|p| (p.score.wrong_windows, p.score.events_lost))
        .collect();
    assert_eq!(
        frontier,
        vec![(40, 1283), (40, 923), (40, 553), (0, 0), (40, 369), (0, 0)]
    );
    let acc: Vec<String> = f
        .policies
        .iter()
        .map(|(_, _, p)| format!("{:.2}", p.score.accuracy()))
        .collect();
    assert_eq!(acc, ["93.58", "98.16", "100.00"]);
}

#[test]
fn the_report_prints_every_figure() {
    let text = render(&figures(&Stream::classroom()).expect("non-empty"));
    for needle in [
        "p50   1.57s",
        "p99  79.29s",
        "max  89.95s",
        "9875/19999",
        "(49%)",
        "10 windows x 4 keys",
        "499 509 539 473",
        "89.95s",
        "15.0%",
        "6.3%",
        "2.8%",
        "fixed 5s                       1057             40         35",
        "fixed 20s                       724             40         30",
        "fixed 20s + 60s grace            12             10          2",
        "perfect (oracle)                  0              0          0",
        "oracle 473",
        "EARLY           195.9s      96       -377",
        "EARLY           241.0s     440        -33",
        "LATE            311.3s     472         -1",
        "LATE            324.1s     473         +0",
        "27 panes",
        "clean run:       40 groups, 20000 events",
        "after 5 crashes: 40 groups, 20000 events",
        "identical: yes",
        "2s      0s               2s             40         1283",
        "10s     30s              40s             40          369",
        "10s     90s             100s              0            0",
        "dashboard (fast)                  2s      40   1283     93.58%",
        "alerting (balanced)              40s      40    369     98.16%",
        "billing (correct)               100s       0      0    100.00%",
    ] {
        assert!(text.contains(needle), "report lacks {needle:?}\n{text}");
    }
}

#[test]
fn window_state_stays_proportional_to_the_open_windows() {
    use twoclocks::engine::EngineConfig;
    use twoclocks::engine::StreamParams;
    // Ten times the classroom stream's span and size: the open state must not grow with it.
    let long = Stream::generate(&StreamParams {
        events: 200_000,
        span: 6_000_000.0,
        ..Default::default()
    })
    .unwrap();
    let short = Stream::classroom();
    let cfg = EngineConfig::fixed(20_000.0, 30_000.0);
    let (a, b) = (
        Processor::run(&short, cfg, false),
        Processor::run(&long, cfg, false),
    );
    assert!(
        b.peak_open_cells <= a.peak_open_cells + 8,
        "{} vs {}",
        b.peak_open_cells,
        a.peak_open_cells
    );
    assert!(b.peak_open_cells <= 4 * 4, "{}", b.peak_open_cells);
}

#[test]
fn the_silent_partition_experiment_is_exact() {
    let f = figures(&Stream::classroom()).expect("non-empty");
    let rows: Vec<(Option<f64>, u64, u64, usize, String, usize)> = f
        .partitions
        .iter()
        .map(|r| {
            (
                r.idle_timeout,
                r.dropped,
                r.late,
                r.wrong,
                format!("{:.1}", r.longest_stall / 1000.0),
                r.peak_cells,
            )
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            (None, 9, 620, 8, "90.6".into(), 16),
            (Some(10_000.0), 23, 1029, 11, "10.6".into(), 12),
        ]
    );
    let text = render(&f);
    let block = "\
The silent partition: one source stalls the watermark
  4 partitions (by index) -> 2 operators, fixed 20s, grace 60s, instant channels;
  partition 1 delivers nothing from 200s to 290s, then all it held back
  idleness            dropped   late  wrong windows  longest stall  peak state
  none                      9    620              8          90.6s    16 cells
  idle after 10s           23   1029             11          10.6s    12 cells
";
    assert!(text.contains(block), "report lacks the block\n{text}");
    // After the assembly, before the closing paragraph, which no longer calls it missing.
    let (assembly, partition, beyond) = (
        text.find("The assembly:").unwrap(),
        text.find("The silent partition:").unwrap(),
        text.find("Beyond the seven blocks").unwrap(),
    );
    assert!(assembly < partition && partition < beyond);
    assert!(!text[beyond..].contains("stalls the"));
    assert!(text.ends_with(
        "(run --partitions P --parallelism N); each scenario on its own: --scenario NAME.\n"
    ));
}
