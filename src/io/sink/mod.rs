//! Sinks at the edge of the program: where `run --output` writes the panes a run emits. A
//! JSON Lines file (or standard output) takes every pane the sink received as one line; a
//! SQLite database takes the same panes in its `panes` table and, in its `results` table,
//! what the chosen sink kind holds: the engine says what to write and when to commit
//! ([`SinkWrite`]), the writers here carry it out.
//!
//! Every output is checked before any work starts ([`OutputSpec::check`]: a missing folder, a
//! directory, an existing file without `--force`, a read-only file), then created
//! ([`Outputs::open`]) before the engine runs, so a path that cannot be written is a clear
//! error and never the end of a long run.

mod jsonl;
mod sqlite;

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::Serialize;

use crate::engine::pipeline::SinkWrite;
use crate::engine::{Pane, SinkKind};
use crate::io::quote::quoted;

pub use jsonl::JsonlSink;
pub use sqlite::{SqliteSink, RESULTS_COLUMNS};

/// A pane as every output writes it: the fields of `panes` in `run --format json`, a line of
/// a JSON Lines sink and a row of the SQLite sink's `panes` table. Times in ms; `null` where
/// not finite or unbounded.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PaneRow {
    /// The window's number; `null` for sessions (known by their span) and the global window.
    pub window: Option<i64>,
    /// The window's start, ms; `null` for the global window.
    pub start_ms: Option<f64>,
    /// The window's end, ms; `null` for the global window.
    pub end_ms: Option<f64>,
    /// The key's name.
    pub key: String,
    /// `EARLY`, `ON_TIME` or `LATE`.
    pub timing: &'static str,
    /// The pane's index in its cell: 0 for the first pane.
    pub index: u32,
    /// Processing time the pane was emitted at, ms.
    pub proc_time_ms: f64,
    /// `null` for panes emitted at the end of input (watermark +∞).
    pub watermark_ms: Option<f64>,
    /// What the pane carries under the accumulation mode.
    pub value: i64,
    /// Retracting mode: the value the pane retracts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retraction: Option<i64>,
}

/// Where a stream of lines goes: a file, or standard output (`-`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// Standard output.
    Stdout,
    /// A file, created (or replaced with `--force`).
    File(PathBuf),
}

/// One `--output`: a format and where it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutputSpec {
    /// `jsonl:FILE` or `jsonl:-`: every pane as a JSON line.
    Jsonl(Target),
    /// `sqlite:FILE`: a database with `panes`, `results`, a `finals` view and `meta`.
    Sqlite(PathBuf),
}

/// How `--output` is written, for messages.
pub const OUTPUT_FORM: &str = "write it as jsonl:FILE, jsonl:- (standard output) or sqlite:FILE";

/// Reads `--output`'s `KIND:PATH`.
pub fn parse_output(s: &str) -> Result<OutputSpec, String> {
    let Some((kind, path)) = s.split_once(':') else {
        return Err(format!("{} has no kind; {OUTPUT_FORM}", quoted(s)));
    };
    if path.is_empty() {
        return Err(format!("{} has no path; {OUTPUT_FORM}", quoted(s)));
    }
    match kind {
        "jsonl" if path == "-" => Ok(OutputSpec::Jsonl(Target::Stdout)),
        "jsonl" => Ok(OutputSpec::Jsonl(Target::File(PathBuf::from(path)))),
        "sqlite" if path == "-" => Err(
            "sqlite:- cannot be: a database is a file, not a stream; give a file name".to_string(),
        ),
        "sqlite" => Ok(OutputSpec::Sqlite(PathBuf::from(path))),
        other => Err(format!(
            "{} is not an output kind; {OUTPUT_FORM}",
            quoted(other)
        )),
    }
}

impl OutputSpec {
    /// The file it writes, if it writes one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            OutputSpec::Jsonl(Target::File(p)) | OutputSpec::Sqlite(p) => Some(p),
            OutputSpec::Jsonl(Target::Stdout) => None,
        }
    }

    /// Whether it writes to standard output.
    pub fn is_stdout(&self) -> bool {
        matches!(self, OutputSpec::Jsonl(Target::Stdout))
    }

    /// The spec as given: `jsonl:out.jsonl`, `sqlite:run.db`, `jsonl:-`.
    pub fn spelled(&self) -> String {
        match self {
            OutputSpec::Jsonl(Target::Stdout) => "jsonl:-".to_string(),
            OutputSpec::Jsonl(Target::File(p)) => format!("jsonl:{}", p.display()),
            OutputSpec::Sqlite(p) => format!("sqlite:{}", p.display()),
        }
    }

    /// Whether the path can be written, checked without creating anything: its folder exists,
    /// it is not a directory, and an existing file is replaced only with `force` (and only if
    /// it is not read-only).
    pub fn check(&self, force: bool) -> Result<()> {
        let Some(path) = self.path() else {
            return Ok(());
        };
        let shown = quoted(&path.display().to_string());
        let flag = format!("--output {}", quoted(&self.spelled()));
        let folder = match path.parent() {
            Some(f) if !f.as_os_str().is_empty() => f,
            _ => Path::new("."),
        };
        match std::fs::metadata(folder) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => bail!(
                "{flag}: {} is not a folder",
                quoted(&folder.display().to_string())
            ),
            Err(_) => bail!(
                "{flag}: folder {} does not exist; create it first",
                quoted(&folder.display().to_string())
            ),
        }
        match std::fs::metadata(path) {
            Err(_) => Ok(()),
            Ok(m) if m.is_dir() => bail!("{flag}: {shown} is a directory; give a file name"),
            Ok(_) if !force => bail!(
                "{flag}: {shown} exists; --force replaces it (nothing is appended to an old run's output)"
            ),
            Ok(m) if m.permissions().readonly() => {
                bail!("{flag}: {shown} is read-only")
            }
            Ok(_) => Ok(()),
        }
    }
}

/// Checks a run's outputs before any work: each as [`OutputSpec::check`] says, no file named
/// twice, standard output taken at most once.
pub fn check_outputs(specs: &[OutputSpec], force: bool) -> Result<()> {
    for (i, s) in specs.iter().enumerate() {
        s.check(force)?;
        if let Some(twice) = specs[..i].iter().find(|t| match (t.path(), s.path()) {
            (Some(a), Some(b)) => same_file(a, b),
            _ => t.is_stdout() && s.is_stdout(),
        }) {
            if s.is_stdout() {
                bail!("--output 'jsonl:-' is given twice: standard output takes one sink");
            }
            bail!(
                "--output {} and --output {} name the same file; give each output once",
                quoted(&twice.spelled()),
                quoted(&s.spelled())
            );
        }
    }
    Ok(())
}

/// Whether two paths name the same file: their folders (which exist, checked) resolved, and
/// the same file name.
fn same_file(a: &Path, b: &Path) -> bool {
    let resolved = |p: &Path| {
        let folder = match p.parent() {
            Some(f) if !f.as_os_str().is_empty() => f,
            _ => Path::new("."),
        };
        (
            std::fs::canonicalize(folder).ok(),
            p.file_name().map(|n| n.to_owned()),
        )
    };
    a == b || resolved(a) == resolved(b)
}

/// What a run writes besides its panes: its settings, kept in the database's `meta` table.
#[derive(Debug, Clone, Default)]
pub struct RunMeta {
    /// The sink kind whose semantics `results` follows; `None` for the single processor
    /// (each pane once: written as upserts).
    pub sink: Option<SinkKind>,
    /// `accumulating`, `discarding` or `retracting`: how a cell's panes add up.
    pub accumulation: &'static str,
    /// Name and value pairs describing the run (window, watermark, pipeline dials).
    pub settings: Vec<(String, String)>,
}

/// A run's open outputs, written as the run goes.
pub struct Outputs<'a> {
    /// Each JSON Lines sink with its flag (`--output 'jsonl:…'`), which names it in errors.
    jsonl: Vec<(String, JsonlSink<'a>)>,
    /// Each database with its flag.
    sqlite: Vec<(String, SqliteSink)>,
    /// The files made: removed if the outputs are dropped before [`Outputs::finish`] ends
    /// well, so that a run that fails leaves no half-written output behind.
    made: Vec<PathBuf>,
}

/// Whether `e` is a write to a pipe whose reader has gone.
fn broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .map(std::io::Error::kind)
            .or_else(|| {
                c.downcast_ref::<serde_json::Error>()
                    .and_then(|j| j.io_error_kind())
            })
            == Some(std::io::ErrorKind::BrokenPipe)
    })
}

/// Whether `p` is a regular file (not a device, a pipe or a link): the only outputs removed.
fn regular_file(p: &Path) -> bool {
    std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_file())
}

impl Drop for Outputs<'_> {
    fn drop(&mut self) {
        if self.made.is_empty() {
            return;
        }
        // The sinks are closed first (a database's connection), then their files removed.
        self.jsonl.clear();
        self.sqlite.clear();
        for p in &self.made {
            let _ = std::fs::remove_file(p);
        }
    }
}

impl<'a> Outputs<'a> {
    /// Creates every output (`stdout` is where `jsonl:-` writes). Call after
    /// [`check_outputs`], before the engine runs.
    pub fn open(
        specs: &[OutputSpec],
        force: bool,
        meta: &RunMeta,
        stdout: Box<dyn Write + 'a>,
    ) -> Result<Outputs<'a>> {
        let mut stdout = Some(stdout);
        let mut outputs = Outputs {
            jsonl: Vec::new(),
            sqlite: Vec::new(),
            made: Vec::new(),
        };
        // The files made so far: one that cannot be made takes the others away with it, so
        // that a failed run leaves no output behind.
        let mut made: Vec<&Path> = Vec::new();
        for s in specs {
            let flag = format!("--output {}", quoted(&s.spelled()));
            // A sink that fails after making its file (a database's schema) takes it too.
            let new_file = s.path().filter(|p| !p.exists());
            let opened = match s {
                OutputSpec::Jsonl(Target::Stdout) => {
                    if let Some(w) = stdout.take() {
                        outputs.jsonl.push((flag.clone(), JsonlSink::new(w)));
                    }
                    Ok(())
                }
                OutputSpec::Jsonl(Target::File(p)) => JsonlSink::create(p).map(|j| {
                    outputs.jsonl.push((flag.clone(), j));
                    made.push(p);
                }),
                OutputSpec::Sqlite(p) => SqliteSink::create(p, force, meta).map(|q| {
                    outputs.sqlite.push((flag.clone(), q));
                    made.push(p);
                }),
            };
            if let Err(e) = opened {
                drop(outputs);
                for p in made.into_iter().chain(new_file).filter(|p| regular_file(p)) {
                    let _ = std::fs::remove_file(p);
                }
                return Err(anyhow::anyhow!("{flag}: {e:#}"));
            }
        }
        // Only regular files are ever removed (never `/dev/null` or a pipe given as a path).
        outputs.made = made
            .into_iter()
            .filter(|p| regular_file(p))
            .map(Path::to_path_buf)
            .collect();
        Ok(outputs)
    }

    /// Carries out one of the engine's sink writes, each pane made a row by `row`.
    pub fn write(&mut self, w: &SinkWrite, row: impl Fn(&Pane) -> PaneRow) -> Result<()> {
        match w {
            SinkWrite::Received(p) => self.received(&row(p)),
            SinkWrite::Add(p) => self.results(|s| s.add(&row(p))),
            SinkWrite::Upsert(p) => self.results(|s| s.upsert(&row(p))),
            SinkWrite::Commit { panes, .. } => {
                let rows: Vec<PaneRow> = panes.iter().map(row).collect();
                self.results(|s| s.commit(&rows))
            }
        }
    }

    /// A pane the sink received: a JSON line, a row of `panes`.
    pub fn received(&mut self, row: &PaneRow) -> Result<()> {
        let others = self.jsonl.len() + self.sqlite.len() > 1;
        let mut closed = None;
        for (i, (flag, j)) in self.jsonl.iter_mut().enumerate() {
            if let Err(e) = j.write(row) {
                // A reader of standard output that stops (`| head`) ends that output only:
                // the files beside it are written to the end, not removed with a failed run.
                if others && broken_pipe(&e) {
                    closed = Some(i);
                    continue;
                }
                return Err(e.context(format!("{flag}: cannot write")));
            }
        }
        if let Some(i) = closed {
            self.jsonl.remove(i);
        }
        for (flag, s) in &mut self.sqlite {
            s.received(row)
                .with_context(|| format!("{flag}: cannot write"))?;
        }
        Ok(())
    }

    fn results(&mut self, mut f: impl FnMut(&mut SqliteSink) -> Result<()>) -> Result<()> {
        for (flag, s) in &mut self.sqlite {
            f(s).with_context(|| format!("{flag}: cannot write"))?;
        }
        Ok(())
    }

    /// The run is over: flushes the lines and commits what the databases hold. If that
    /// fails, the files made are removed.
    pub fn finish(mut self) -> Result<()> {
        let others = self.jsonl.len() + self.sqlite.len() > 1;
        for (flag, j) in std::mem::take(&mut self.jsonl) {
            match j.finish() {
                Err(e) if others && broken_pipe(&e) => {}
                r => r.with_context(|| format!("{flag}: cannot write"))?,
            }
        }
        for (flag, s) in std::mem::take(&mut self.sqlite) {
            s.finish()
                .with_context(|| format!("{flag}: cannot finish"))?;
        }
        self.made.clear();
        Ok(())
    }
}
