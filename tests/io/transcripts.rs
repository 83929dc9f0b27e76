//! Reading scripts (Beam's transcript YAML): any text, and any mangling of Beam's own file,
//! is read or refused with one message naming the file and a line, never a panic; and a script
//! read back runs to its end.

use proptest::prelude::*;
use twoclocks::engine::{Accumulation, Conventions};
use twoclocks::io::transcript::read;

const BEAM: &str = include_str!("../transcripts/beam_trigger_transcripts.yaml");

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn any_text_is_read_or_refused_by_line(text in "\\PC{0,200}") {
        match read(&text, "any.yaml") {
            Ok(file) => for s in &file.scripts {
                s.run(Conventions::Beam);
            },
            Err(e) => prop_assert!(e.to_string().starts_with("any.yaml"), "{e}"),
        }
    }

    #[test]
    fn beams_file_cut_or_spliced_is_read_or_refused(
        cut in 0usize..BEAM.len(),
        len in 0usize..40,
        insert in "[\\[\\]{}:,\\-0-9a-zA-Z_() \n]{0,12}",
    ) {
        let mut text: String = BEAM.chars().take(cut).collect();
        text.push_str(&insert);
        text.extend(BEAM.chars().skip(cut + len));
        match read(&text, "beam.yaml") {
            Ok(file) => for s in &file.scripts {
                for c in Conventions::ALL {
                    s.run(c);
                }
            },
            Err(e) => prop_assert!(e.to_string().starts_with("beam.yaml"), "{e}"),
        }
    }
}

/// A transcript's accumulation mode is read by the engine's grammar, in any case, and must be
/// one Beam has: the Dataflow model's retracting, which Beam never shipped, is refused with the
/// file, the line, and the modes Beam has.
#[test]
fn a_transcripts_accumulation_mode_is_one_beam_has() {
    let script = |mode: &str| {
        format!(
            "name: m\nwindow_fn: FixedWindows(10)\naccumulation_mode: {mode}\n\
             transcript:\n  - input: [1]\n"
        )
    };
    for (mode, expected) in [
        ("accumulating", Accumulation::Accumulating),
        ("DISCARDING", Accumulation::Discarding),
    ] {
        let file = read(&script(mode), "m.yaml").unwrap_or_else(|e| panic!("{mode}: {e}"));
        assert_eq!(file.scripts[0].accumulation, expected, "{mode}");
    }
    for mode in ["retracting", "RETRACTING", "purging"] {
        let err = read(&script(mode), "m.yaml").unwrap_err().to_string();
        assert!(
            err.starts_with("m.yaml:3") && err.contains("expected accumulating or discarding"),
            "{mode}: {err}"
        );
    }
}
