//! The command-line reference (`docs/cli.md`, after its conventions) is every command's
//! `--help` as clap writes it, so it cannot drift from the flags. After changing a flag:
//! `TWOCLOCKS_WRITE_GOLDEN=1 cargo test --test cli cli_reference` writes it again.

use std::process::Command;

use clap::CommandFactory;
use twoclocks::cli::Cli;
use twoclocks::engine::WatermarkFamily;

const PAGE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/cli.md");
const BEGIN: &str = "<!-- cli: written from clap";
const END: &str = "<!-- cli: end -->";

/// What `twoclocks ARGS --help` prints, each line's trailing spaces left out.
fn help(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_twoclocks"))
        .args(args)
        .arg("--help")
        .env_remove("COLUMNS")
        .output()
        .expect("the binary runs");
    assert!(out.status.success(), "twoclocks {args:?} --help fails");
    String::from_utf8(out.stdout)
        .expect("UTF-8 help")
        .lines()
        .map(|l| format!("{}\n", l.trim_end()))
        .collect()
}

/// The reference: the UI's flags, then each subcommand's, in clap's order.
fn reference() -> String {
    let mut commands = vec![Vec::new()];
    for sub in Cli::command().get_subcommands() {
        if sub.get_name() != "help" {
            commands.push(vec![sub.get_name().to_string()]);
        }
    }
    let mut text = String::new();
    for args in commands {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let line = ["twoclocks"]
            .iter()
            .chain(&args)
            .copied()
            .collect::<Vec<_>>()
            .join(" ");
        text.push_str(&format!(
            "### `{line} --help`\n\n```text\n{}```\n\n",
            help(&args)
        ));
    }
    text
}

#[test]
fn the_reference_is_every_commands_help() {
    let page = std::fs::read_to_string(PAGE).unwrap();
    let begin = page.find(BEGIN).expect("docs/cli.md marks its reference");
    let body = begin + page[begin..].find('\n').unwrap() + 1;
    let end = body + page[body..].find(END).expect("the reference's end mark");
    let want = reference();
    if page[body..end] == want {
        return;
    }
    if std::env::var_os("TWOCLOCKS_WRITE_GOLDEN").is_some() {
        std::fs::write(PAGE, format!("{}{want}{}", &page[..body], &page[end..])).unwrap();
        return;
    }
    panic!(
        "docs/cli.md's reference is not what `--help` says: run \
         TWOCLOCKS_WRITE_GOLDEN=1 cargo test --test cli cli_reference"
    );
}

/// The conventions' line on watermarks, above the reference, names every kind the engine has
/// as the flag reads it (`perfect`, `fixed:LAG`, ...), so that a kind added is described there
/// too.
#[test]
fn the_watermarks_line_names_every_kind() {
    let page = std::fs::read_to_string(PAGE).unwrap();
    let line = page
        .split("\n- ")
        .find(|item| item.starts_with("Watermarks:"))
        .expect("docs/cli.md has a line on watermarks");
    for family in WatermarkFamily::ALL {
        let name = family.name();
        assert!(
            line.contains(&format!("`{name}`"))
                || line.contains(&format!("`{name}:"))
                || line.contains(&format!("`{name}[")),
            "docs/cli.md's line on watermarks does not name `{name}`:\n{line}"
        );
    }
}
