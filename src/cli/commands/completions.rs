//! `completions` and `man`: what a shell and `man` read to know twoclocks, written from the
//! same clap command as `--help`, so that neither can drift from the flags. Both print to
//! standard output, as a binary installed with `cargo install` has no files beside it to
//! install: docs/cli.md says where each shell and `man` look for them.

use std::io::Write;

use anyhow::{bail, Result};
use clap::Args;
use clap_complete::Shell;

/// The shell `completions` writes for.
#[derive(Debug, Clone, Args)]
pub struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Which page `man` writes.
#[derive(Debug, Clone, Args)]
pub struct ManArgs {
    /// A command whose page to write, twoclocks-COMMAND(1) (default: twoclocks(1), the terminal
    /// UI's flags and the list of commands).
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
}

/// Writes `shell`'s completion script for `cli`, the program's whole command line.
pub fn completions(a: &CompletionsArgs, mut cli: clap::Command, out: &mut dyn Write) -> Result<()> {
    // clap_complete panics when its writer fails (a reader that quit, a full device): the
    // script is made in memory and written through `out`, whose errors are the program's.
    let mut script = Vec::new();
    clap_complete::generate(a.shell, &mut cli, "twoclocks", &mut script);
    out.write_all(&script)?;
    Ok(())
}

/// Writes the manual page, in roff, of `cli` (the program's whole command line) or of the
/// command `a` names.
pub fn man(a: &ManArgs, cli: clap::Command, out: &mut dyn Write) -> Result<()> {
    let mut cli = cli.disable_help_subcommand(true);
    cli.build();
    let page = match &a.command {
        None => cli,
        Some(name) => match cli.find_subcommand(name) {
            Some(command) => command.clone(),
            None => bail!(
                "{} is not a command: give one of {}",
                crate::io::quote::quoted(name),
                command_names(&cli)
            ),
        },
    };
    clap_mangen::Man::new(page)
        .source(format!("twoclocks {}", env!("CARGO_PKG_VERSION")))
        .manual("twoclocks")
        .render(out)?;
    Ok(())
}

/// The commands' names, comma-separated, in `--help`'s order.
fn command_names(cli: &clap::Command) -> String {
    cli.get_subcommands()
        .map(|c| c.get_name())
        .collect::<Vec<_>>()
        .join(", ")
}
