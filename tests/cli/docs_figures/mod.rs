//! The pages of the guide quote the program, and every figure they quote is the program's
//! answer today, so no page can drift from the tour, the scenarios or the commands. For every
//! page in [`PAGES`]:
//!
//! - a ```` ```text ```` block whose first line is `$ twoclocks …` is that command's output
//!   (`| head -N` or `| tail -N` after it keeps the first or last lines, `| sed -n A,Bp` some
//!   of them, `| grep -E 'A|B'` those holding one of the plain words, `.` any character), run
//!   here through the binary;
//! - a block whose first line is `$ twoclocks tour --from NAME` (maybe `# then press KEYS`)
//!   is that step's title and its caption as the tour fills it at the step's settings (after
//!   those keys), the step found by its name, never by its number;
//! - a Markdown table after `<!-- drops: ARGS -->` lists the events `twoclocks run ARGS`
//!   drops, each with its window's end and the watermark at its arrival;
//! - a figure in prose is followed by `<!--= SOURCE: FIELD -->`, where SOURCE is
//!   `tour NAME` (maybe `then KEYS`) and FIELD a caption placeholder (`dropped`), or a
//!   command (`run …`, `advise …`, `frontier …`) and FIELD a path into its `--format json`
//!   answer (`dropped`, `advised.grace_ms in s`, `first(accuracy>=99.9).lag_ms in s`: the
//!   first point of the array that is so; `crashes.0.additive_overcount`: an array's item;
//!   `sum(crashes.additive_overcount)`: a field added up over an array's items;
//!   `count(panes.timing==LATE)`: how many items have that text; `in s.1`: seconds to one
//!   place, as the tables print them), or `exit status`, the status of a command refused;
//! - a figure in prose that is no answer of the program and reads badly as code (a count of a
//!   list, a hash's name) is followed by `<!--: why -->` saying in a few words what it is
//!   (`given`: the reader's or the world's, `measured`: a time no command gives, `the test's
//!   count`), never after a figure the program computes; a literal input is code (`--grace
//!   30s`, `80×24`) instead;
//! - the README's tour table, from `<!-- tour: written …` to `<!-- tour: end -->`, is
//!   `tests/cli/guide.rs`'s to write and check, and the keys table, from `<!-- keys: written
//!   …` to `<!-- keys: end -->`, `tests/tui/readme_keys.rs`'s: both are left as they are here;
//! - in the teacher's guide, every key a sentence says to press is pressed at the tour step
//!   its section opens, and must do something there; `<!--shows: "TEXT" -->` right after a
//!   key names what the screen then holds (`keys.rs` says how the guide is read);
//! - and no other figure stands in the prose: a number outside code, outside a checked block
//!   and without a marker or a note is refused (a plan's minutes, `5 min`, are the teacher's).
//!
//! A page joins [`PAGES`] once its every figure is so. `TWOCLOCKS_WRITE_GOLDEN=1 cargo test
//! --test cli docs_figures` writes every checked block and figure of every page anew from the
//! program.

mod keys;
mod page;
mod sources;

use page::{notes, regenerate, Note};
use twoclocks::tui::tour::Tour;

/// The pages held to the rule, from the crate's root.
const PAGES: &[&str] = &[
    "docs/teaching.md",
    "docs/README.md",
    "docs/jobs-and-crashes.md",
    "docs/outputs.md",
    "docs/rules.md",
    "docs/scripts.md",
    "docs/cli.md",
    "docs/export-and-advice.md",
    "docs/your-data.md",
    "docs/presenting.md",
    "docs/screen.md",
    "README.md",
];

/// The teacher's guide, whose quotes are checked to cover the tour.
const GUIDE: &str = "docs/teaching.md";

fn read(page: &str) -> String {
    std::fs::read_to_string(format!("{}/{page}", env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_else(|e| panic!("{page}: {e}"))
}

#[test]
fn every_figure_in_the_docs_is_the_programs_today() {
    let write = std::env::var_os("TWOCLOCKS_WRITE_GOLDEN").is_some();
    let mut faults = Vec::new();
    for page in PAGES {
        let text = read(page);
        let (new, found) = regenerate(page, &text);
        if write {
            std::fs::write(format!("{}/{page}", env!("CARGO_MANIFEST_DIR")), &new).unwrap();
            let (_, left) = regenerate(page, &new);
            faults.extend(left.into_iter().filter(|f| f.contains("nothing checks")));
        } else {
            faults.extend(found);
        }
    }
    assert!(
        faults.is_empty(),
        "the pages are not what the program says today \
         (TWOCLOCKS_WRITE_GOLDEN=1 cargo test --test cli docs_figures writes them anew):\n\n{}",
        faults.join("\n\n")
    );
}

#[test]
fn every_page_of_the_guide_is_held_to_the_rule() {
    // All but the performance page, which benches/measure.py writes and
    // tests/cli/performance_page.rs checks.
    let dir = format!("{}/docs", env!("CARGO_MANIFEST_DIR"));
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        if name.ends_with(".md") && name != "performance.md" {
            let page = format!("docs/{name}");
            assert!(PAGES.contains(&page.as_str()), "{page} is not in PAGES");
        }
    }
}

#[test]
fn the_guide_checks_what_it_quotes() {
    let text = read(GUIDE);
    // A section for every step of the tour, found by its name: its caption quoted in a
    // checked block, or (a step whose figures the guide leaves to the room, as a vote) its
    // command named.
    let tour = Tour::built_in().unwrap();
    for step in &tour.steps {
        let name = step.name.as_deref().expect("every step has a name");
        assert!(
            text.contains(&format!("twoclocks tour --from {name}\n"))
                || text.contains(&format!("`twoclocks tour --from {name}`")),
            "{GUIDE} has no section for the step {name:?}"
        );
    }
    // The three exercises' commands, each checked above.
    for cmd in [
        "$ twoclocks frontier",
        "$ twoclocks advise",
        "$ twoclocks report",
    ] {
        assert!(text.contains(cmd), "{GUIDE} quotes no `{cmd}`");
    }
    // A wrong figure is caught, in a block and in prose.
    for command in [
        "$ twoclocks tour --from late-data\n",
        "$ twoclocks advise\n",
    ] {
        let at = text.find(command).expect("the block") + command.len();
        let mut wrong = text.clone();
        wrong.insert(at, '1');
        assert!(
            !regenerate(GUIDE, &wrong).1.is_empty(),
            "a wrong figure after `{command}` passes"
        );
    }
    let first = first_marker(&text).expect("a figure in prose");
    let mut wrong = text.clone();
    wrong.replace_range(first.0..first.1, "9999");
    assert!(
        regenerate(GUIDE, &wrong)
            .1
            .iter()
            .any(|f| f.contains("9999") && f.starts_with(&format!("{GUIDE}, line "))),
        "a wrong figure in prose passes"
    );
    let stray = text.replacen("\n\n", "\n\nOnly 17 events are dropped.\n\n", 1);
    assert!(regenerate(GUIDE, &stray)
        .1
        .iter()
        .any(|f| f.contains("nothing checks") && f.starts_with(&format!("{GUIDE}, line "))));
}

#[test]
fn a_figure_noted_as_given_is_no_claim_and_a_note_needs_a_reason() {
    let page = "a page";
    assert_eq!(
        regenerate(page, "Keys hash with FNV-1a<!--: given --> mod N.\n").1,
        Vec::<String>::new()
    );
    assert_eq!(
        notes(page, "it took 12 ms<!--: measured --> here")[0].2,
        Note::Given("measured".into())
    );
    assert!(regenerate(page, "Keys hash with FNV-1a mod N.\n").1[0].contains("nothing checks"));
    let empty = std::panic::catch_unwind(|| notes(page, "a 12<!--: --> b"));
    assert!(empty.is_err(), "a note without a reason passes");
}

/// The byte range of the first figure in a page's prose with a marker.
fn first_marker(text: &str) -> Option<(usize, usize)> {
    let mut offset = 0;
    let mut fenced = false;
    for line in text.split_inclusive('\n') {
        if line.starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            let checked = notes(GUIDE, line)
                .into_iter()
                .find(|(_, _, n)| matches!(n, Note::Checked(_)));
            if let Some((s, e, _)) = checked {
                return Some((offset + s, offset + e));
            }
        }
        offset += line.len();
    }
    None
}
