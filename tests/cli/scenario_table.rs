//! The built-in scenarios' table in `docs/your-data.md` gives each scenario's stream, dials and
//! job as flags: those flags are the scenario. For every row, `run` with the row's flags
//! answers as `run --scenario NAME` does, byte for byte (a row whose stream is one of the
//! scenario generators of their own, `sessions` and `lesson`, names the scenario for its
//! stream and overrides its dials with the flags).

use crate::cli_common::twoclocks_text;

/// What `twoclocks run --format json ARGS` prints (it must succeed).
fn run_json(args: &[String]) -> String {
    let args: Vec<&str> = ["run", "--format", "json"]
        .into_iter()
        .chain(args.iter().map(String::as_str))
        .collect();
    let (code, out, err) = twoclocks_text(&args);
    assert_eq!(code, 0, "{}: {err}", args.join(" "));
    out
}

/// The code spans of a table cell.
fn spans(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

#[test]
fn the_scenario_tables_flags_are_the_scenarios() {
    let page =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/your-data.md")).unwrap();
    let start = page
        .find("| scenario | stream | dials | job, UI |")
        .expect("docs/your-data.md has the scenarios' table");
    let rows: Vec<&str> = page[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .collect();
    let mut checked = Vec::new();
    for row in rows {
        let cells: Vec<&str> = row.trim_matches('|').split(" | ").collect();
        let name = spans(cells[0])[0];
        let flags: Vec<String> = cells[1..]
            .iter()
            .flat_map(|c| spans(c))
            // Flags with their values (a flag named alone, as `--window`, is prose).
            .filter(|s| s.starts_with("--") && s.contains(' '))
            .flat_map(|s| s.split_whitespace().map(str::to_string))
            .collect();
        // A stream of the classroom generator is given by its flags (those not given are
        // the classroom's, as are dials "as classroom"); sessions and lesson have generators
        // of their own, which only `--scenario` names.
        let own_generator = ["sessions", "lesson"].contains(&name);
        let mut args = Vec::new();
        if own_generator {
            args.extend(["--scenario".to_string(), name.to_string()]);
        }
        args.extend(flags);
        let scenario = ["--scenario".to_string(), name.to_string()];
        assert_eq!(
            run_json(&args),
            run_json(&scenario),
            "docs/your-data.md: the row of {name} gives `run {}`, which is not the scenario",
            args.join(" ")
        );
        checked.push(name);
    }
    assert_eq!(
        checked,
        [
            "classroom",
            "punctual",
            "stormy",
            "outage",
            "sessions",
            "lesson"
        ],
        "a row for every scenario"
    );
}
