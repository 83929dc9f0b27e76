//! End to end: the real binary in a pseudo-terminal, read through a vt100 screen parser. Jump
//! to the end of the classroom stream, pick the dashboard policy and read the dropped counter
//! (1283, the reference's figure), then billing (0), then quit with `q` and exit 0; in job mode
//! crash the job and read the crash report.
//! Every wait polls the screen with a generous deadline, so a loaded machine only makes it
//! slower, not flaky.

use crate::pty_common::{ui, ui_in};

/// The number after "✕ dropped" in the counters panel.
fn dropped(screen: &str) -> Option<u64> {
    screen.lines().find_map(|l| {
        let i = l.find("✕ dropped")?;
        let rest = l[i + "✕ dropped".len()..].trim_start();
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        digits.parse().ok()
    })
}

#[test]
fn end_then_dashboard_and_billing_policies_read_the_reference_drops() {
    let mut s = ui((120, 40), &["--paused"]);
    s.wait_for("the UI", |t| {
        t.contains("Two clocks") && t.contains("paused")
    });
    s.press(b"\x1b[F"); // End
    s.wait_for("the end of input", |t| t.contains("end of input"));
    s.press(b"1");
    let t = s.wait_for("dashboard's drops", |t| dropped(t) == Some(1283));
    assert!(t.contains("lag") && t.contains("2s"), "{t}");
    s.press(b"3");
    s.wait_for("billing's drops", |t| dropped(t) == Some(0));
    s.press(b"q");
    s.expect_clean_exit();
}

#[test]
fn ctrl_c_quits_the_compact_layout_while_playing() {
    let mut s = ui((80, 24), &["--speed", "50"]);
    s.wait_for("the UI playing", |t| t.contains("playing"));
    s.press(b"1");
    s.wait_for("some events", |t| dropped(t).is_some_and(|d| d > 0));
    s.press(b"\x03"); // Ctrl-C
    s.expect_clean_exit();
}

#[test]
fn job_mode_crash_says_what_happened_at_80x24() {
    let mut s = ui((80, 24), &["--speed", "100"]);
    s.wait_for("the UI playing", |t| t.contains("playing"));
    s.press(b"j");
    s.wait_for("the topology panel", |t| t.contains("Topology"));
    // The topology's checkpoint line names the latest completed one.
    s.wait_for("a completed checkpoint", |t| t.contains("ckpt ╾ #"));
    s.press(b"c");
    let t = s.wait_for("the crash report", |t| t.contains("crashed at"));
    assert!(t.contains("Sinks"), "{t}");
    s.press(b"q");
    s.expect_clean_exit();
}

#[test]
fn a_script_steps_on_and_back_in_the_terminal_and_quits_clean() {
    let mut s = ui_in(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")),
        (80, 24),
        &[
            "script",
            "tests/transcripts/conventions/flink.yaml",
            "--conventions",
            "flink",
            "--name",
            "late_event_bridges_sessions",
            "--ui",
        ],
    );
    s.wait_for("the player", |t| {
        t.contains("Transcript") && t.contains("step 0 of 6")
    });
    for _ in 0..5 {
        s.press(b"\x1b[C"); // →
    }
    let t = s.wait_for("the late pane", |t| t.contains("step 5 of 6"));
    assert!(t.contains("LATE     window [8, 24]"), "{t}");
    s.press(b"R"); // Kafka Streams' rules next: the same step, their drop rule.
    s.wait_for("Kafka Streams' rules", |t| {
        t.contains("Kafka Streams rules")
    });
    s.press(b"\x1b[D"); // ←
    s.wait_for("a step back", |t| t.contains("step 4 of 6"));
    s.press(b"?");
    s.wait_for("the keys", |t| t.contains("any key closes"));
    s.press(b"q");
    s.expect_clean_exit();
}
