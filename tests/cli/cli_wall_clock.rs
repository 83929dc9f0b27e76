//! The command line at a log's own scale: where no setting within the largest emit delay
//! reaches the target, `advise` names the `--max-delay` that would (or says none up to the
//! stream's largest delay does), on every stream; and a stream whose target is met reads as
//! it did.

use crate::cli_common::twoclocks_text;

#[test]
fn advise_names_the_max_delay_that_would_reach_the_target() {
    let (code, out, err) = twoclocks_text(&[
        "advise",
        "--events",
        "3000",
        "--watermarks",
        "fixed",
        "--max-delay",
        "5s",
        "--target-accuracy",
        "100",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("no setting reaches 100%"), "{out}");
    // 24 steps of 1 s and of 2 s do not reach it; 24 steps of 5 s do.
    assert!(
        out.contains(
            "no setting within an emit delay of 5.0s reaches 100%; --max-delay 2m would: fixed \
             watermark, lag 0s, grace 90s, emit delay 90s (100.000%)"
        ),
        "{out}"
    );
    // What it names, given, meets the target.
    let (code, out, err) = twoclocks_text(&[
        "advise",
        "--events",
        "3000",
        "--watermarks",
        "fixed",
        "--max-delay",
        "2m",
        "--target-accuracy",
        "100",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("advised: fixed watermark, lag 0s, grace 90s"),
        "{out}"
    );
    assert!(!out.contains("would:"), "{out}");
}

#[test]
fn a_target_met_adds_no_line() {
    let (code, out, err) = twoclocks_text(&["advise", "--events", "3000", "--watermarks", "fixed"]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("--max-delay"), "{out}");
    assert!(!out.contains("arrive before their event time"), "{out}");
    assert!(err.is_empty(), "{err}");
}
