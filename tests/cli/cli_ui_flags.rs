//! The UI takes the pipeline flags of `run`: they open it in job mode on that job. The flags
//! that only make sense for a batch run are refused with what to do instead.

use std::process::{Command, Stdio};

use twoclocks::engine::pipeline::CheckpointMode;

use crate::ui_common::{ui, ui_of};

#[test]
fn pipeline_flags_open_the_ui_in_job_mode_on_that_job() {
    let a = ui(&[
        "--events",
        "2000",
        "--parallelism",
        "8",
        "--partitions",
        "3",
        "--barriers",
        "unaligned",
        "--checkpoint-every",
        "5s",
        "--schedule-seed",
        "9",
        "--transit",
        "50ms",
    ]);
    let job = a.trace().job().expect("job mode");
    let cfg = job.config();
    assert_eq!(cfg.parallelism, 8);
    assert_eq!(cfg.partitions, 3);
    assert_eq!(cfg.mode, CheckpointMode::Unaligned);
    assert_eq!(cfg.checkpoint_every, Some(5_000.0));
    assert_eq!(cfg.seed, 9);
    assert_eq!(cfg.transit, 50.0);
    assert_eq!(a.dials().checkpoint_every, Some(5_000.0));
}

#[test]
fn one_pipeline_flag_keeps_the_uis_own_job_for_the_rest() {
    let a = ui(&["--events", "2000", "--parallelism", "8"]);
    let cfg = a.trace().job().expect("job mode").config();
    assert_eq!(cfg.parallelism, 8);
    assert_eq!(cfg.partitions, twoclocks::tui::app::JobPreset::PARTITIONS);
    assert_eq!(cfg.seed, twoclocks::tui::app::JobPreset::SEED);
    assert_eq!(
        cfg.checkpoint_every,
        Some(twoclocks::tui::dials::CHECKPOINT_DEFAULT)
    );
    let plain = ui(&["--events", "2000"]);
    assert!(plain.trace().job().is_none());
    assert_eq!(
        plain.job_config().parallelism,
        twoclocks::tui::app::JobPreset::OPERATORS
    );
}

#[test]
fn batch_only_flags_say_what_to_do_in_the_ui() {
    for (args, needle) in [
        (&["--crash-at", "100s"][..], "press c"),
        (&["--crash-at", "100s", "--crash-operator", "1"], "press c"),
        (&["--sink", "additive"], "all three sinks"),
        (&["--parallelism", "65"], "between 1 and 64"),
    ] {
        let err = ui_of(args).map(|_| ()).unwrap_err();
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

#[test]
fn the_binary_takes_the_pipeline_flags_without_a_subcommand() {
    let o = Command::new(env!("CARGO_BIN_EXE_twoclocks"))
        .args(["--parallelism", "8", "--barriers", "at-least-once"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("the binary runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    // Past the flags: only the missing terminal stops it.
    assert!(err.contains("needs a terminal"), "{err}");
}
