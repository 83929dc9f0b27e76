//! The command line: `report`, `run`, `stream`, `frontier`, `advise`, `script` and `export`
//! print what the engine computes; `completions` and `man` what a shell and `man` read of the
//! command line itself; `tour` opens the UI on a tour of the blocks (the built-in one, or
//! `--tour FILE`, checked whole first); `script --ui` opens it on a script; with no
//! subcommand, the terminal UI opens on the classroom stream (or the stream and dials the
//! top-level flags preset).
pub mod args;
pub mod choice;
pub mod commands;
pub mod export;
pub mod input;
pub mod plot;
pub mod report;
pub mod stop;

use std::process::ExitCode;

use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::engine::scenario::{JobShape, ScenarioName};
use crate::engine::steered::JobPreset;
use crate::engine::EngineConfig;
use crate::io::quote::{escaped, quoted};
use crate::tui::opening::Opening;
use crate::tui::scenario::Scenario;
use crate::tui::theme::{Theme, ThemeName};
use args::{EngineArgs, Given, SourceArgs};

/// twoclocks: stream processing made visible. Events arrive in processing time, are placed by
/// event time, a watermark claims completeness, windows fire early, on time and late.
#[derive(Debug, Parser)]
#[command(name = "twoclocks", version, about, long_about = None)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Cli {
    /// The subcommand, if one is given; without one the terminal UI opens.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The terminal UI's flags, taken when no subcommand is given.
    #[command(flatten)]
    pub ui: UiArgs,
}

/// The terminal UI's flags (no subcommand): how it looks, how fast it plays, and the stream
/// and dials it opens on.
#[derive(Debug, Clone, clap::Args)]
pub struct UiArgs {
    /// Colours: dark, light (for projectors) or mono. NO_COLOR selects mono.
    #[arg(long, value_parser = choice::one_of::<ThemeName>())]
    pub theme: Option<ThemeName>,
    /// Playback speed: seconds of processing time per real second (10, or the scenario's).
    #[arg(long, default_value_t = 10.0, value_parser = parse_speed, allow_negative_numbers = true)]
    pub speed: f64,
    /// A built-in stream to open on, with its dials; the flags given override its presets.
    #[arg(long, value_parser = crate::cli::args::scenario_parser(), conflicts_with = "input")]
    pub scenario: Option<ScenarioName>,
    /// Open paused instead of playing (the lesson always opens paused).
    #[arg(long)]
    pub paused: bool,
    /// The stream to open on: a CSV file, or the generator's dials (over the scenario's presets).
    #[command(flatten)]
    pub source: SourceArgs,
    /// The engine's dials to open on: window, watermark, grace, early trigger, accumulation.
    #[command(flatten)]
    pub engine: EngineArgs,
    /// The parallel job's flags: any of them opens the UI in job mode on that job (--crash-at,
    /// --crash-operator and --sink are for `run`; in the UI, keys crash and all sinks show).
    #[command(flatten)]
    pub pipeline: commands::PipelineArgs,
    /// A rehearsable demo: record the inputs, play a recording back, cast the screen.
    #[command(flatten)]
    pub demo: args::DemoArgs,
}

fn parse_speed(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .trim_end_matches(['x', '×'])
        .parse()
        .map_err(|_| format!("{} is not a speed: give a number, e.g. 10", quoted(s)))?;
    if !v.is_finite() || v <= 0.0 || v > 100_000.0 {
        return Err(format!(
            "{} is not a speed: give a number above 0 and at most 100000",
            quoted(s)
        ));
    }
    Ok(v)
}

/// The subcommands: each prints what the engine computes instead of opening the UI.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// The seven blocks, their assembly and a silent partition on the classroom stream, with
    /// every figure.
    Report(commands::ReportArgs),
    /// One configuration of the engine over a stream: final values, panes, drops.
    Run(commands::RunArgs),
    /// The events of a stream, as CSV or JSON lines, at full precision.
    Stream(commands::StreamArgs),
    /// The accuracy/latency sweep over lags and graces.
    Frontier(commands::FrontierArgs),
    /// The Pareto-optimal settings of each watermark kind and the cheapest that meets an
    /// accuracy target, with the state it costs.
    Advise(commands::AdviseArgs),
    /// A lesson that runs itself: the UI on a tour of the blocks, one step at a time (n next,
    /// N back, r puts the step back).
    Tour(TourArgs),
    /// Scripted streams (Beam's trigger-transcript YAML): every step and pane under one
    /// engine's rules, each script's expectations checked (exit status 1 if one fails).
    Script(commands::ScriptArgs),
    /// The policy (the engine's dials) as Flink, Flink SQL, Beam or Kafka Streams code, with
    /// comments where that engine's rules differ.
    Export(commands::ExportArgs),
    /// A shell's completion script for twoclocks, on standard output (bash, elvish, fish,
    /// powershell or zsh).
    Completions(commands::CompletionsArgs),
    /// The manual page of twoclocks, or of one of its commands, in roff on standard output.
    Man(commands::ManArgs),
}

/// The tour's flags.
#[derive(Debug, Clone, clap::Args)]
pub struct TourArgs {
    /// A tour file to give instead of the built-in one (TOML; see assets/tour.toml).
    #[arg(long, value_name = "FILE")]
    pub tour: Option<std::path::PathBuf>,
    /// Open on this step: its name (partition, sessions, …) or its number from 1.
    #[arg(long, value_name = "NAME")]
    pub from: Option<String>,
    /// Colours: dark, light (for projectors) or mono. NO_COLOR selects mono.
    #[arg(long, value_parser = choice::one_of::<ThemeName>())]
    pub theme: Option<ThemeName>,
    /// A rehearsable lesson: record the inputs, play a recording back, cast the screen.
    #[command(flatten)]
    pub demo: args::DemoArgs,
}

impl TourArgs {
    /// The tour these flags give, read and checked whole, on the step `--from` names
    /// (before any terminal is touched).
    pub fn tour(&self) -> anyhow::Result<crate::tui::tour::Tour> {
        let tour = match &self.tour {
            Some(path) => crate::tui::tour::Tour::load(path)?,
            None => crate::tui::tour::Tour::built_in()?,
        };
        Ok(match &self.from {
            Some(name) => {
                let at = tour
                    .find(name)
                    .map_err(|e| anyhow::anyhow!("--from: {e}"))?;
                tour.from(at)
            }
            None => tour,
        })
    }
}

/// Runs the program; errors are printed as one line and give exit code 2.
pub fn main() -> ExitCode {
    stop::fail_writes_past_the_file_size_limit();
    let result = match parse(std::env::args_os()) {
        Err(line) => {
            eprintln!("twoclocks: {line} (see --help)");
            return ExitCode::from(2);
        }
        Ok(Invocation::Help(e)) => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Ok(Invocation::Command(cmd)) if matches!(*cmd, Command::Tour(_)) => match *cmd {
            Command::Tour(a) => tour(&a),
            _ => Ok(()),
        },
        Ok(Invocation::Command(cmd)) => {
            let mut out = std::io::BufWriter::new(StandardOutput(std::io::stdout().lock()));
            execute(&cmd, &mut out).and_then(|()| Ok(std::io::Write::flush(&mut out)?))
        }
        Ok(Invocation::Ui(a, matches)) => ui(&a, &matches),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // The reader stopped reading (`twoclocks run | head`): stop quietly, as coreutils
            // do, but with status 0 rather than their 141 (killed by SIGPIPE), so that a script
            // under `set -o pipefail` taking the head of the output does not fail for it.
            if is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            eprintln!("twoclocks: {}", error_line(&e));
            // A check that ran and failed is not a usage error.
            if e.downcast_ref::<commands::ScriptsFailed>().is_some() {
                return ExitCode::from(1);
            }
            ExitCode::from(2)
        }
    }
}

/// Standard output, whose write errors say that it was standard output that could not be
/// written (`> /dev/full`), keeping their kind (a reader gone away is still a broken pipe).
struct StandardOutput<W>(W);

impl<W: std::io::Write> StandardOutput<W> {
    fn named(e: std::io::Error) -> std::io::Error {
        std::io::Error::new(e.kind(), format!("cannot write standard output: {e}"))
    }
}

impl<W: std::io::Write> std::io::Write for StandardOutput<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf).map_err(Self::named)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush().map_err(Self::named)
    }
}

/// What a command line asks for, once parsed.
#[derive(Debug)]
pub enum Invocation {
    /// `--help` or `--version`: clap prints it.
    Help(clap::Error),
    /// A subcommand, to [`execute`].
    Command(Box<Command>),
    /// No subcommand: the UI, with its flags (and where each came from).
    Ui(Box<UiArgs>, Box<ArgMatches>),
}

/// Parses a command line (the program's name first); a bad flag gives the one line that says
/// what is wrong ([`flag_error_line`]).
pub fn parse<I, T>(args: I) -> Result<Invocation, String>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let matches = match Cli::command().try_get_matches_from(args) {
        Ok(m) => m,
        Err(e) if is_help(&e) => return Ok(Invocation::Help(e)),
        Err(e) => return Err(flag_error_line(&e)),
    };
    let cli = Cli::from_arg_matches(&matches).map_err(|e| flag_error_line(&e))?;
    Ok(match cli.command {
        Some(mut cmd) => {
            if let Some((_, sub)) = matches.subcommand() {
                let given = Given::of(sub);
                match &mut cmd {
                    Command::Run(a) => a.given = given,
                    Command::Stream(a) => a.given = given,
                    Command::Frontier(a) => a.given = given,
                    Command::Export(a) => a.given = given,
                    Command::Advise(a) => a.given = given,
                    Command::Report(_)
                    | Command::Tour(_)
                    | Command::Script(_)
                    | Command::Completions(_)
                    | Command::Man(_) => {}
                }
            }
            Invocation::Command(Box::new(cmd))
        }
        None => Invocation::Ui(Box::new(cli.ui), Box::new(matches)),
    })
}

/// Help and version "errors": printed as clap prints them, with exit code 0.
fn is_help(e: &clap::Error) -> bool {
    use clap::error::ErrorKind;
    matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    )
}

/// Runs a subcommand, writing its answer to `out`.
pub fn execute(cmd: &Command, out: &mut dyn std::io::Write) -> anyhow::Result<()> {
    match cmd {
        Command::Report(a) => commands::report(a, out),
        Command::Run(a) => match &a.trigger {
            Some(trigger) => commands::run_triggered(a, trigger, out),
            None => commands::run(a, out),
        },
        Command::Stream(a) => commands::stream(a, out),
        Command::Frontier(a) => commands::frontier(a, out),
        Command::Export(a) => commands::export(a, out),
        Command::Advise(a) => commands::advise(a, out),
        Command::Script(a) => commands::script(a, out),
        Command::Completions(a) => commands::completions(a, Cli::command(), out),
        Command::Man(a) => commands::man(a, Cli::command(), out),
        // The tour opens the UI; asked to print, it checks the tour and lists its steps.
        Command::Tour(a) => {
            let tour = a.tour()?;
            for (i, s) in tour.steps.iter().enumerate() {
                writeln!(out, "step {}/{}: {}", i + 1, tour.steps.len(), s.title)?;
            }
            Ok(())
        }
    }
}

/// The one line an error is printed as (after `twoclocks: `): its causes joined by `: `,
/// control characters escaped, at most [`MAX_ERROR_LINE`] characters.
pub fn error_line(e: &anyhow::Error) -> String {
    cut_line(&escaped(&crate::io::quote::file_size_limit_named(
        &format!("{e:#}"),
    )))
}

/// The longest error line printed.
pub const MAX_ERROR_LINE: usize = 400;

fn cut_line(line: &str) -> String {
    match line.char_indices().nth(MAX_ERROR_LINE) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_string(),
    }
}

/// Opens the terminal UI on a tour: the demo's files first (as for the UI), then the tour
/// file read and every step checked, all before the terminal is touched.
fn tour(a: &TourArgs) -> anyhow::Result<()> {
    let flags = crate::tui::record::demo_flags(
        std::env::args_os()
            .skip(1)
            .map(|a| a.to_string_lossy().into_owned()),
    );
    let inputs: Vec<&std::path::Path> = a.tour.as_deref().into_iter().collect();
    let demo = a.demo.open(&flags, &inputs)?;
    let opened = || {
        let tour = a.tour()?;
        if !has_terminal() {
            anyhow::bail!("the tour needs a terminal to draw in and read keys from");
        }
        let theme = Theme::resolve(a.theme, std::env::var("NO_COLOR").ok().as_deref());
        crate::tui::app::App::open_tour(tour, theme)
            .ok_or_else(|| anyhow::anyhow!("the tour has no step to open on"))
    };
    match opened() {
        Ok(app) => crate::tui::run_app(app, demo),
        Err(e) => {
            // The demo's files were never put in place: dropped, their copies go.
            drop(demo);
            Err(e)
        }
    }
}

/// Opens the terminal UI with the flags' stream and dials.
fn ui(a: &UiArgs, matches: &ArgMatches) -> anyhow::Result<()> {
    // The demo's files first: a path that cannot be written is an error before any work.
    let flags = crate::tui::record::demo_flags(
        std::env::args_os()
            .skip(1)
            .map(|a| a.to_string_lossy().into_owned()),
    );
    let inputs: Vec<&std::path::Path> = a.source.input.as_deref().into_iter().collect();
    let demo = a.demo.open(&flags, &inputs)?;
    let opened = || {
        let (options, job) = ui_options(a, matches)?;
        if !has_terminal() {
            anyhow::bail!(
                "the UI needs a terminal to draw in and read keys from; `twoclocks run` prints \
                 the same engine's answer as text"
            );
        }
        Ok((options, job))
    };
    match opened() {
        Ok((options, job)) if options.scenario.open => {
            crate::tui::run_live(options, job, demo, a.source.read.options())
        }
        Ok((options, job)) => crate::tui::run(options, job, demo),
        Err(e) => {
            // The demo's files were never put in place: dropped, their copies go.
            drop(demo);
            Err(e)
        }
    }
}

/// What the UI opens on for these flags: the stream, the dials and, when a pipeline flag is
/// given or the scenario is a job, the job's shape and outages (the UI's own job where neither
/// says: 2 partitions, 4 operators, checkpoints every 10 s). A scenario presets the dials, the
/// job, the speed and whether it opens paused; the flags given override them.
pub fn ui_options(
    a: &UiArgs,
    matches: &ArgMatches,
) -> anyhow::Result<(crate::tui::Options, Option<JobPreset>)> {
    let given = Given::of(matches);
    let preset = a.scenario.unwrap_or_default().preset();
    let opening = Opening::of(a.scenario.unwrap_or_default());
    let config = args::scenario_config(&preset, &a.engine, &given)?;
    if config.conventions == crate::engine::Conventions::KafkaStreams {
        anyhow::bail!(
            "--conventions kafka-streams is for `twoclocks run` and `twoclocks script`: the UI \
             draws a watermark, which Kafka Streams does not have. In the UI R turns the rules \
             of Beam Java, Beam Python and Flink"
        );
    }
    let mut job = ui_job(&a.pipeline, config, preset.job.as_ref())?;
    let mut config = config;
    let scenario = load_scenario(a, &given, &mut config)?;
    if let Some(job) = &mut job {
        // The windows as they fall in the log's zone, the job's as the stream's.
        job.config.engine.window = config.window;
    }
    if scenario.is_empty() && !scenario.open {
        anyhow::bail!("the stream is empty: nothing to show");
    }
    let theme = Theme::resolve(a.theme, std::env::var("NO_COLOR").ok().as_deref());
    let options = crate::tui::Options {
        scenario,
        config,
        speed: match opening.speed {
            Some(speed) if !given.has("speed") => speed,
            _ => a.speed,
        },
        theme,
        play: !a.paused && !opening.paused,
    };
    Ok((options, job))
}

/// The job the pipeline flags (over the scenario's job, if it has one) open the UI on, if any
/// is given, with its outages.
fn ui_job(
    p: &commands::PipelineArgs,
    engine: EngineConfig,
    scenario_job: Option<&JobShape>,
) -> anyhow::Result<Option<JobPreset>> {
    use crate::engine::steered::JobPreset;
    if p.crash_at.is_some() || p.crash_operator.is_some() {
        anyhow::bail!(
            "--crash-at and --crash-operator are for `twoclocks run`; in the UI press c to crash \
             the job at the playhead, or C to pick an operator and then c"
        );
    }
    if p.sink.is_some() {
        anyhow::bail!(
            "--sink chooses the sink `twoclocks run` lists; the UI shows all three sinks side \
             by side"
        );
    }
    let over;
    let p = match scenario_job {
        Some(job) => {
            over = p.over(job);
            &over
        }
        None => p,
    };
    if !p.given() {
        return Ok(None);
    }
    let mut cfg = p.config(engine)?;
    cfg.partitions = p.partitions.unwrap_or(JobPreset::PARTITIONS);
    cfg.parallelism = p.parallelism.unwrap_or(JobPreset::OPERATORS);
    cfg.seed = p.schedule_seed.unwrap_or(JobPreset::SEED);
    cfg.checkpoint_every = p
        .checkpoint_every
        .or(Some(crate::tui::dials::CHECKPOINT_DEFAULT));
    cfg.keep_outputs = false;
    cfg.validate()?;
    // The outages are checked against the job's partitions, the UI's own 2 if none is given.
    let outages = commands::PipelineArgs {
        partitions: Some(cfg.partitions),
        ..p.clone()
    }
    .outages()?;
    Ok(Some(JobPreset {
        config: cfg,
        outages,
    }))
}

/// The stream the UI opens on: a CSV file, a built-in scenario (generator flags given on the
/// command line override its presets), or the generator flags alone (the classroom stream).
/// A log's windows are set as they fall in its zone ([`args::EngineArgs::in_zone`]).
fn load_scenario(a: &UiArgs, given: &Given, config: &mut EngineConfig) -> anyhow::Result<Scenario> {
    let window = &config.window;
    if let Some(path) = &a.source.input {
        if path.as_os_str() == "-" && !std::io::IsTerminal::is_terminal(&std::io::stdin()) {
            // A producer's pipe: read live, as its rows arrive, once the UI is open.
            return Ok(Scenario::live(crate::io::live::NAME, window));
        }
        let (stream, report) = a.source.load_reported()?;
        *config = a
            .engine
            .in_zone(*config, &stream.clock, args::first_event_time(&stream));
        let window = &config.window;
        let name = match report.as_ref() {
            Some(r) if path.as_os_str() == "-" => r.name.clone(),
            _ => path.display().to_string(),
        };
        let mut scenario = Scenario::new(name, stream, window);
        scenario.skipped_rows = report.map_or(0, |r| r.skipped_rows);
        return Ok(scenario);
    }
    let name = a.scenario.unwrap_or_default();
    let (stream, label) = args::scenario_stream(name, &a.source, given)?;
    let mut scenario = Scenario::new(label, stream, window);
    scenario.built_in = Some(name);
    Ok(scenario)
}

/// Whether the UI can draw (standard output is a terminal) and read keys (standard input is
/// one, or the controlling terminal can be opened, as the terminal library does).
fn has_terminal() -> bool {
    use std::io::IsTerminal;
    std::io::stdout().is_terminal()
        && (std::io::stdin().is_terminal() || std::fs::File::open("/dev/tty").is_ok())
}

/// The one line that says what is wrong with the flags: the values it quotes cut and escaped
/// (before the text is split into lines, so a value with a newline stays on its line).
pub fn flag_error_line(e: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue};
    let mut text = e.render().to_string();
    for kind in [
        ContextKind::InvalidValue,
        ContextKind::InvalidArg,
        ContextKind::InvalidSubcommand,
    ] {
        if let Some(ContextValue::String(v)) = e.get(kind) {
            let raw = format!("'{v}'");
            if !v.is_empty() && text.contains(&raw) {
                text = text.replace(&raw, &quoted(v));
            }
        }
    }
    let mut lines = text.lines().skip_while(|l| l.trim().is_empty());
    let first = lines.next().unwrap_or("bad arguments");
    let mut line = first.strip_prefix("error: ").unwrap_or(first).to_string();
    // "cannot be used with:" and the like list their items on the indented lines below.
    if line.ends_with(':') {
        let items: Vec<&str> = lines
            .take_while(|l| l.starts_with(' ') && !l.trim().is_empty())
            .map(str::trim)
            .collect();
        line = format!("{line} {}", items.join(", "));
    }
    cut_line(&escaped(line.trim_end()))
}

/// Whether an error is the reader of standard output having gone away (`| head`): the write
/// failed with EPIPE, whether it came as an `io::Error` or wrapped in a `serde_json::Error`
/// (whose `source()` skips the `io::Error` it holds, so the chain alone does not show it).
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    use std::io::ErrorKind::BrokenPipe;
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == BrokenPipe)
            || c.downcast_ref::<serde_json::Error>()
                .is_some_and(|j| j.io_error_kind() == Some(BrokenPipe))
    })
}

/// The classroom stream's source flags.
pub fn default_source() -> SourceArgs {
    #[derive(Parser)]
    struct Only {
        #[command(flatten)]
        source: SourceArgs,
    }
    Only::parse_from(["twoclocks"]).source
}

/// The default engine flags.
pub fn default_engine() -> EngineArgs {
    #[derive(Parser)]
    struct Only {
        #[command(flatten)]
        engine: EngineArgs,
    }
    Only::parse_from(["twoclocks"]).engine
}
