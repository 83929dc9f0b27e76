//! The `twoclocks` binary: a thin entry point into the command line.

fn main() -> std::process::ExitCode {
    twoclocks::cli::main()
}
