//! `twoclocks completions SHELL` and `twoclocks man [COMMAND]`: each shell's script completes
//! every command, bash's parses, and the manual pages name every command and their flags.

use std::process::Command;

use clap::CommandFactory;
use twoclocks::cli::Cli;

use crate::cli_common::{refused, twoclocks_text};

/// The commands, as `--help` lists them.
fn commands() -> Vec<String> {
    Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .filter(|n| n != "help")
        .collect()
}

fn printed(args: &[&str]) -> String {
    let (code, out, err) = twoclocks_text(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    assert!(err.is_empty(), "{args:?}: {err}");
    out
}

#[test]
fn every_shells_script_completes_every_command() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = printed(&["completions", shell]);
        for command in commands() {
            assert!(
                script.contains(&command),
                "the {shell} script does not complete `{command}`"
            );
        }
        // A flag of a command and a value of a flag.
        assert!(script.contains("input-format"), "{shell}");
        assert!(script.contains("beam-python"), "{shell}");
    }
    assert!(printed(&["completions", "bash"]).contains("complete -F _twoclocks"));
    assert!(printed(&["completions", "zsh"]).starts_with("#compdef twoclocks"));
    assert!(printed(&["completions", "fish"]).contains("complete -c twoclocks"));
}

#[test]
fn the_bash_script_parses() {
    let Ok(bash) = Command::new("bash").arg("--version").output() else {
        eprintln!("no bash: the script's syntax is not checked");
        return;
    };
    assert!(bash.status.success());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("twoclocks.bash");
    std::fs::write(&path, printed(&["completions", "bash"])).unwrap();
    let check = Command::new("bash").arg("-n").arg(&path).output().unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
}

#[test]
fn the_manual_names_every_command_and_each_command_has_a_page() {
    let page = printed(&["man"]);
    assert!(page.contains(".TH twoclocks 1 "), "{page}");
    for command in commands() {
        assert!(
            page.contains(&format!("twoclocks\\-{command}(1)")),
            "twoclocks(1) does not name `{command}`"
        );
        let own = printed(&["man", &command]);
        assert!(
            own.contains(&format!(".TH twoclocks-{command} 1 ")),
            "{command}: {own}"
        );
        assert!(own.contains(".SH OPTIONS"), "{command}");
    }
    assert!(printed(&["man", "run"]).contains("\\-\\-input\\-format"));
    let err = refused(&["man", "tun"]);
    assert!(
        err.contains("'tun' is not a command: give one of report, run,"),
        "{err}"
    );
    refused(&["completions", "tcsh"]);
}
