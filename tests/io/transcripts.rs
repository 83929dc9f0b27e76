//! Reading scripts (Beam's transcript YAML): any text, and any mangling of Beam's own file,
//! is read or refused with one message naming the file and a line, never a panic; and a script
//! read back runs to its end.

use proptest::prelude::*;
use twoclocks::engine::Conventions;
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
