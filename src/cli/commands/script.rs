//! `twoclocks script FILE`: runs scripted streams (Beam's trigger-transcript YAML) under one
//! engine's conventions, prints every step and every pane, checks what each script expects,
//! and fails (exit status 1) naming the first script that did not pass.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Result;
use clap::Args;
use serde_json::{json, Value};

use crate::cli::args::parse_conventions;
use crate::engine::script::{Action, Outcome, Run, Script, ScriptPane, Verdict};
use crate::engine::trigger::Timing;
use crate::engine::Conventions;

use super::TableOrJson;

/// `script`'s flags.
#[derive(Debug, Args)]
pub struct ScriptArgs {
    /// The script file: YAML in the format of Beam's trigger transcripts, one script per
    /// document (`-` reads standard input).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Whose rules: beam (Beam Java's, the default), beam-python, flink or kafka-streams.
    #[arg(long, default_value = "beam", value_parser = parse_conventions)]
    pub conventions: Conventions,
    /// Run only the scripts with this name.
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// table (each step, each pane) or json.
    #[arg(long, value_enum, default_value = "table", conflicts_with = "ui")]
    pub format: TableOrJson,
    /// Open the script in the terminal, one step per key (→ on, ← back, n/p another script,
    /// R another engine's rules, ? every key): the first script, or the one --name gives.
    #[arg(long)]
    pub ui: bool,
    /// With --ui: colours, dark, light (for projectors) or mono. NO_COLOR selects mono.
    #[arg(long, value_parser = crate::cli::choice::one_of::<crate::tui::theme::ThemeName>(), requires = "ui")]
    pub theme: Option<crate::tui::theme::ThemeName>,
}

/// Scripts that did not pass: exit status 1, not 2 (the input was read; the check failed).
#[derive(Debug)]
pub struct ScriptsFailed(pub String);

impl std::fmt::Display for ScriptsFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ScriptsFailed {}

/// Runs `script`.
pub fn script(a: &ScriptArgs, out: &mut dyn std::io::Write) -> Result<()> {
    let shown = a.file.display().to_string();
    let bytes = if shown == "-" {
        crate::io::bounded::read(std::io::stdin().lock(), crate::io::bounded::SCRIPT)
            .map_err(|e| anyhow::anyhow!("standard input: {e}"))?
    } else {
        crate::io::bounded::read_file(&a.file, crate::io::bounded::SCRIPT)
            .map_err(|e| anyhow::anyhow!("{shown}: {e}"))?
    };
    let text = String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{shown}: not text (UTF-8) at byte {}",
            e.utf8_error().valid_up_to()
        )
    })?;
    let file = crate::io::transcript::read(&text, &shown)?;
    for w in &file.warnings {
        eprintln!("twoclocks: warning: {w}");
    }
    let scripts: Vec<&Script> = file
        .scripts
        .iter()
        .filter(|s| a.name.as_deref().is_none_or(|n| s.name == n))
        .collect();
    if scripts.is_empty() {
        let names: Vec<&str> = file.scripts.iter().map(|s| s.name.as_str()).collect();
        anyhow::bail!(
            "--name: no script named {} in {shown} (it has {})",
            crate::io::quote::quoted(a.name.as_deref().unwrap_or_default()),
            names.join(", ")
        );
    }
    // Kafka Streams has no triggers: a script whose trigger it has no counterpart for is
    // refused (the player opens the first script chosen; the others it shows by Beam's rules).
    let checked = if a.ui { &scripts[..1] } else { &scripts[..] };
    if let Some(s) = checked
        .iter()
        .find(|s| !s.trigger.runs_under(a.conventions))
    {
        anyhow::bail!(
            "{shown}: script {} (line {}) has trigger {}, and Kafka Streams has no triggers: \
             under --conventions kafka-streams a script's trigger is Always or \
             Repeatedly(AfterCount(1)) (an update per record) or the default (one result \
             when the window closes){}",
            s.name,
            s.line,
            s.trigger,
            if checked.len() > 1 {
                "; --name runs one script"
            } else {
                ""
            }
        );
    }
    // Beam Java's closing and on-time behaviours: the other engines' rules have none, and
    // run the script as they always do (Beam Python's driver ignores keys it does not know).
    if a.conventions != Conventions::Beam {
        for s in scripts.iter().filter(|s| !s.empty_panes.is_default()) {
            eprintln!(
                "twoclocks: warning: {shown}: script {} (line {}) sets closing_behavior or \
                 on_time_behavior, Beam Java's switches; under --conventions {} ({}) they do \
                 not apply",
                s.name,
                s.line,
                a.conventions,
                a.conventions.engine()
            );
        }
    }
    if a.ui {
        if !std::io::IsTerminal::is_terminal(&std::io::stdout()) {
            anyhow::bail!("--ui needs a terminal: standard output is not one");
        }
        let index = file
            .scripts
            .iter()
            .position(|s| std::ptr::eq(s, scripts[0]))
            .unwrap_or(0);
        let theme =
            crate::tui::theme::Theme::resolve(a.theme, std::env::var("NO_COLOR").ok().as_deref());
        let player = crate::tui::transcript::Player::new(
            shown,
            file.scripts.clone(),
            index,
            a.conventions,
            theme,
        )?;
        return crate::tui::transcript::run(player);
    }
    let runs: Vec<(&Script, Run)> = scripts.iter().map(|s| (*s, s.run(a.conventions))).collect();
    match a.format {
        TableOrJson::Table => {
            for (s, r) in &runs {
                write!(out, "{}", table(s, r, a.conventions))?;
            }
            writeln!(out, "{}", summary(&runs, a.conventions))?;
        }
        TableOrJson::Json => {
            let doc = json!({
                "file": shown,
                "conventions": a.conventions.name(),
                "scripts": runs.iter().map(|(s, r)| script_json(s, r)).collect::<Vec<_>>(),
                "passed": runs.iter().filter(|(_, r)| r.verdict.passed()).count(),
                "failed": runs.iter().filter(|(_, r)| !r.verdict.passed()).count(),
            });
            serde_json::to_writer_pretty(&mut *out, &doc)?;
            writeln!(out)?;
        }
    }
    out.flush()?;
    if let Some((s, r)) = runs.iter().find(|(_, r)| !r.verdict.passed()) {
        let failed = runs.iter().filter(|(_, r)| !r.verdict.passed()).count();
        return Err(ScriptsFailed(format!(
            "{shown}: {failed} of {} script{} did not pass; the first, {} (line {}): {}",
            runs.len(),
            if runs.len() == 1 { "" } else { "s" },
            s.name,
            s.line,
            why(s, r)
        ))
        .into());
    }
    Ok(())
}

/// Why a script did not pass, in one sentence.
fn why(s: &Script, r: &Run) -> String {
    let at = |o: &Outcome| match o {
        Outcome::Clean => String::new(),
        Outcome::Unmatched { line, message } | Outcome::Unexpected { line, message } => {
            format!("line {line}: {message}")
        }
    };
    match r.verdict {
        Verdict::DeclaredErrorMissing => match &r.outcome {
            Outcome::Clean => format!(
                "it declares the error `{}` but ran clean",
                s.error.as_deref().unwrap_or_default()
            ),
            other => format!(
                "it declares the error `{}` but failed otherwise: {}",
                s.error.as_deref().unwrap_or_default(),
                at(other)
            ),
        },
        _ => at(&r.outcome),
    }
}

fn table(s: &Script, r: &Run, c: Conventions) -> String {
    let mut t = String::new();
    let _ = writeln!(t, "{} (line {}): {}", s.name, s.line, s.strategy());
    for step in &r.steps {
        let _ = write!(t, "  line {:<4} {}", step.step.line, step.step.action);
        match &step.step.action {
            Action::Expect(es) if step.matched == es.len() => {
                let _ = write!(t, ": matched");
            }
            Action::State(_) => {
                let _ = write!(t, " (not checked: no Beam driver checks state)");
            }
            _ => {}
        }
        let _ = writeln!(t);
        for p in &step.panes {
            let _ = writeln!(t, "             {}", p.summary());
        }
        for (e, w) in &step.dropped {
            let _ = writeln!(
                t,
                "             dropped  {e} from window [{}, {}]: {}",
                w.start_ms(),
                w.max_timestamp(),
                c.explain_drop(
                    w.end_ms(),
                    step.watermark,
                    s.allowed_lateness,
                    s.windows.window.is_merging()
                )
            );
        }
    }
    let verdict = match r.verdict {
        Verdict::Passed => "passed".to_string(),
        Verdict::Unchecked => "shown, not checked (it has no `expect` step)".to_string(),
        Verdict::FailedAsDeclared => format!(
            "passed: failed as declared (`error: {}`): {}",
            s.error.as_deref().unwrap_or_default(),
            r.outcome.message().unwrap_or_default()
        ),
        Verdict::Failed | Verdict::DeclaredErrorMissing => format!("FAILED: {}", why(s, r)),
    };
    let _ = writeln!(t, "  {verdict}\n");
    t
}

fn summary(runs: &[(&Script, Run)], c: Conventions) -> String {
    let count = |v: Verdict| runs.iter().filter(|(_, r)| r.verdict == v).count();
    let failed = runs.iter().filter(|(_, r)| !r.verdict.passed()).count();
    let unchecked = match count(Verdict::Unchecked) {
        0 => String::new(),
        n => format!(", {n} shown unchecked (no expect step)"),
    };
    format!(
        "{} script{} under {} rules ({}): {} passed ({} clean, {} failed as declared), {} failed{unchecked}",
        runs.len(),
        if runs.len() == 1 { "" } else { "s" },
        c.engine(),
        c.name(),
        count(Verdict::Passed) + count(Verdict::FailedAsDeclared),
        count(Verdict::Passed),
        count(Verdict::FailedAsDeclared),
        failed
    )
}

fn pane_json(p: &ScriptPane) -> Value {
    json!({
        "window_start": p.window.start_ms(),
        "window_end": p.window.end_ms(),
        "max_timestamp": p.window.max_timestamp(),
        "values": p.values,
        "timestamp": p.timestamp,
        "timing": p.info.timing.label(),
        "is_first": p.info.is_first,
        "is_last": p.info.is_last,
        "index": p.info.index,
        "nonspeculative_index": p.info.nonspeculative_index,
        "early": p.info.timing == Timing::Early,
        "late": p.info.timing == Timing::Late,
    })
}

fn script_json(s: &Script, r: &Run) -> Value {
    let verdict = match r.verdict {
        Verdict::Passed => "passed",
        Verdict::Unchecked => "unchecked",
        Verdict::FailedAsDeclared => "failed as declared",
        Verdict::Failed => "failed",
        Verdict::DeclaredErrorMissing => "declared error missing",
    };
    let (kind, line, message) = match &r.outcome {
        Outcome::Clean => ("clean", None, None),
        Outcome::Unmatched { line, message } => ("unmatched output", Some(*line), Some(message)),
        Outcome::Unexpected { line, message } => ("unexpected output", Some(*line), Some(message)),
    };
    json!({
        "name": s.name,
        "line": s.line,
        "window_fn": s.windows.to_string(),
        "trigger_fn": s.trigger.to_string(),
        "accumulation_mode": s.accumulation.name(),
        "timestamp_combiner": s.combiner.beam_name(),
        "allowed_lateness": s.allowed_lateness,
        "error": s.error,
        "passed": r.verdict.passed(),
        "verdict": verdict,
        "outcome": {"kind": kind, "line": line, "message": message},
        "steps": r.steps.iter().map(|st| json!({
            "line": st.step.line,
            "step": st.step.action.keyword(),
            "shown": st.step.action.to_string(),
            "panes": st.panes.iter().map(pane_json).collect::<Vec<_>>(),
            "dropped": st.dropped.iter().map(|(e, w)| json!({
                "element": e, "window_start": w.start_ms(), "window_end": w.end_ms()
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}
