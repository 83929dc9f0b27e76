//! Sinks at the edge of the program: where `run --output` writes the panes a run emits. A
//! JSON Lines file (or standard output) takes every pane the sink received as one line; a
//! SQLite database takes the same panes in its `panes` table and, in its `results` table,
//! what the chosen sink kind holds: the engine says what to write and when to commit
//! ([`SinkWrite`]), the writers here carry it out.
//!
//! Every output is checked and its file's unfinished copy taken before any work starts
//! ([`reserve_outputs`]: a missing folder, a directory, an existing file without `--force`, a
//! read-only file, one of the run's inputs, another run writing it), so a path that cannot be
//! written is a clear error and never the end of a long run. The files are written whole or
//! not at all ([`StagedFile`]): renamed into place when the run has finished, removed when it
//! fails or is stopped.

mod jsonl;
mod sqlite;

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::Serialize;

use crate::quote::quoted;
use crate::staged::{Accepts, StagedFile};
use twoclocks_engine::pipeline::SinkWrite;
use twoclocks_engine::{Pane, SinkKind};

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
    /// Beam's `PaneInfo`: its index among the cell's on-time and late panes, −1 if early.
    pub nonspeculative_index: i64,
    /// Whether it is the cell's first pane.
    pub is_first: bool,
    /// Whether it is the cell's last: its window is past its allowed lateness as it fires
    /// (collected with it), or the input has ended; never under Beam Python's or Flink's
    /// rules (`Conventions::last_pane`).
    pub is_last: bool,
    /// Its output time, ms: the window's last instant (`end − 1`); `null` for the global
    /// window.
    pub timestamp_ms: Option<f64>,
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

    /// The flag that names it in messages: `--output 'jsonl:out.jsonl'`.
    pub fn flag(&self) -> String {
        format!("--output {}", quoted(&self.spelled()))
    }
}

/// A run's outputs, checked and their unfinished copies taken ([`StagedFile`]) before any
/// work starts: what [`Outputs::open`] then writes to.
#[derive(Debug)]
pub struct Reserved {
    outputs: Vec<(OutputSpec, Option<StagedFile>)>,
}

impl Reserved {
    /// No output at all.
    pub fn none() -> Reserved {
        Reserved {
            outputs: Vec::new(),
        }
    }
}

/// Checks a run's outputs before any work and takes each file's unfinished copy: no file
/// named twice, standard output taken at most once, each path as [`StagedFile::create`]
/// says (an existing file only with `force`, never one of `inputs`, another run's output
/// refused). Nothing appears at an output's path until the run has finished.
pub fn reserve_outputs(specs: &[OutputSpec], force: bool, inputs: &[&Path]) -> Result<Reserved> {
    for (i, s) in specs.iter().enumerate() {
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
    let mut outputs = Vec::with_capacity(specs.len());
    for s in specs {
        let staged = match s {
            OutputSpec::Jsonl(Target::Stdout) => None,
            OutputSpec::Jsonl(Target::File(p)) => Some(StagedFile::create(
                p,
                force,
                Accepts::Streams,
                inputs,
                &s.flag(),
            )?),
            OutputSpec::Sqlite(p) => Some(StagedFile::create(
                p,
                force,
                Accepts::RegularFiles,
                inputs,
                &s.flag(),
            )?),
        };
        outputs.push((s.clone(), staged));
    }
    Ok(Reserved { outputs })
}

/// Whether two paths name the same file: the same file on disk if both exist, else their
/// folders (which exist, checked) resolved and the same file name.
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
        use std::os::unix::fs::MetadataExt;
        return x.dev() == y.dev() && x.ino() == y.ino();
    }
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

/// What every output of `run --output` does, whatever it writes to: it is opened before the
/// run (a constructor of its own, taking its reserved [`StagedFile`]), takes each pane the
/// sink received and, if it keeps results, the engine's writes for the chosen sink kind, and
/// is finished when the run is over. Its errors name it (`--output 'jsonl:…': cannot write`).
/// A new output is a file here implementing it, an [`OutputSpec`] variant and its opening in
/// [`Outputs::open`].
pub trait Sink {
    /// The flag that names it in messages: `--output 'jsonl:out.jsonl'`.
    fn flag(&self) -> &str;

    /// A pane the sink received, in the order received.
    fn received(&mut self, row: &PaneRow) -> Result<()>;

    /// The additive kind's write: the pane's value added to its result (a replay counts
    /// again). An output that keeps no results ignores it.
    fn add(&mut self, _row: &PaneRow) -> Result<()> {
        Ok(())
    }

    /// The idempotent kind's write: the pane upserted on (window, key, pane index).
    fn upsert(&mut self, _row: &PaneRow) -> Result<()> {
        Ok(())
    }

    /// The transactional kind's write: a checkpoint's panes, in one transaction.
    fn commit(&mut self, _rows: &[PaneRow]) -> Result<()> {
        Ok(())
    }

    /// The run is over: what is buffered is written out, and the file it wrote (none for
    /// standard output) is handed back, to be put in place with the others.
    fn finish(self: Box<Self>) -> Result<Option<StagedFile>>;
}

/// A run's open outputs, written as the run goes. Dropped before [`Outputs::finish`] (the
/// run failed or was stopped), every file's unfinished copy is removed and no output path is
/// touched.
pub struct Outputs<'a> {
    /// The JSON Lines outputs, then the databases: each pane goes to the lines first, and the
    /// files are put in place in that order.
    sinks: Vec<Box<dyn Sink + 'a>>,
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

impl<'a> Outputs<'a> {
    /// Opens every output reserved by [`reserve_outputs`] (`stdout` is where `jsonl:-`
    /// writes), before the engine runs.
    pub fn open(
        reserved: Reserved,
        meta: &RunMeta,
        stdout: Box<dyn Write + 'a>,
    ) -> Result<Outputs<'a>> {
        let mut stdout = Some(stdout);
        let mut lines: Vec<Box<dyn Sink + 'a>> = Vec::new();
        let mut databases: Vec<Box<dyn Sink + 'a>> = Vec::new();
        for (s, staged) in reserved.outputs {
            let flag = s.flag();
            match (s, staged) {
                (OutputSpec::Jsonl(_), None) => {
                    if let Some(w) = stdout.take() {
                        lines.push(Box::new(JsonlSink::new(w, flag)));
                    }
                }
                (OutputSpec::Jsonl(_), Some(file)) => {
                    lines.push(Box::new(JsonlSink::to_file(file, flag)?));
                }
                (OutputSpec::Sqlite(_), Some(file)) => {
                    databases.push(Box::new(SqliteSink::create(file, meta, flag)?));
                }
                (OutputSpec::Sqlite(_), None) => bail!("{flag}: a database needs a file"),
            }
        }
        lines.extend(databases);
        Ok(Outputs { sinks: lines })
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
        let others = self.sinks.len() > 1;
        let mut closed = None;
        for (i, sink) in self.sinks.iter_mut().enumerate() {
            if let Err(e) = sink.received(row) {
                // A reader of standard output that stops (`| head`) ends that output only:
                // the files beside it are written to the end, not removed with a failed run.
                if others && broken_pipe(&e) {
                    closed = Some(i);
                    continue;
                }
                return Err(e);
            }
        }
        if let Some(i) = closed {
            self.sinks.remove(i);
        }
        Ok(())
    }

    fn results(&mut self, mut f: impl FnMut(&mut dyn Sink) -> Result<()>) -> Result<()> {
        for sink in &mut self.sinks {
            f(sink.as_mut())?;
        }
        Ok(())
    }

    /// The run is over: flushes the lines and commits what the databases hold, then puts
    /// every file in place at once. If any of that fails, no output path is touched (a
    /// device or pipe written directly keeps what it took).
    pub fn finish(mut self) -> Result<()> {
        let others = self.sinks.len() > 1;
        let mut finished = Vec::new();
        for sink in std::mem::take(&mut self.sinks) {
            let flag = sink.flag().to_string();
            match sink.finish() {
                Ok(file) => finished.extend(file.map(|f| (flag, f))),
                Err(e) if others && broken_pipe(&e) => {}
                Err(e) => return Err(e),
            }
        }
        for (flag, file) in finished {
            file.commit().context(flag)?;
        }
        Ok(())
    }
}
