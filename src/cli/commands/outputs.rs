//! `run --output`'s sinks driven through a run ([`SinkDriver`]), the engine's dials as their
//! `meta` table keeps them, and a pane as every output writes it. The single processor's run
//! (`run`) and the pipeline's (`pipeline`) both feed them; this file imports neither.

use std::io::Write;

use anyhow::Result;

use super::json::{bound, finite};
use crate::cli::args::OutputArgs;
use crate::engine::duration::Duration;
use crate::engine::pipeline::SinkWrite;
use crate::engine::{EngineConfig, Pane, Stream};
use crate::io::sink::{Outputs, PaneRow, Reserved, RunMeta};

/// A pane as the JSON's `panes`, the JSON Lines sink and the SQLite sink write it, with
/// Beam's `PaneInfo` under the run's rules (`cfg`).
pub(super) fn pane_row(p: &Pane, cfg: &EngineConfig, stream: &Stream) -> PaneRow {
    pane_row_named(p, cfg, stream.key_name(p.cell.key))
}

/// [`pane_row`], its key named `key`.
pub(super) fn pane_row_named(p: &Pane, cfg: &EngineConfig, key: &str) -> PaneRow {
    PaneRow {
        window: cfg.window.number(p.cell.window),
        start_ms: bound(p.window_start),
        end_ms: bound(p.window_end),
        key: key.to_string(),
        timing: p.timing.label(),
        index: p.index,
        nonspeculative_index: p.nonspeculative_index,
        is_first: p.index == 0,
        is_last: cfg.conventions.last_pane(
            p.window_end,
            p.watermark,
            cfg.grace,
            cfg.window.is_merging(),
        ),
        timestamp_ms: bound(p.window_end - 1.0),
        proc_time_ms: p.proc_time,
        watermark_ms: finite(p.watermark),
        value: p.value,
        retraction: p.retraction,
    }
}

/// The engine's dials as the database's `meta` table keeps them.
pub(super) fn settings(cfg: &EngineConfig) -> Vec<(String, String)> {
    vec![
        ("window".to_string(), cfg.window.describe()),
        ("watermark".to_string(), cfg.watermark.to_string()),
        ("grace".to_string(), Duration::short(cfg.grace)),
        (
            "early".to_string(),
            cfg.early.map_or("off".to_string(), Duration::short),
        ),
    ]
}

/// `--output`'s sinks through a run: opened once the dials are checked, before the engine
/// runs, then fed the engine's sink writes as they happen.
pub(super) struct SinkDriver<'a> {
    pub(super) args: &'a OutputArgs,
    pub(super) stream: &'a Stream,
    /// The run's dials: its windows, and the rules a pane's `PaneInfo` is told by.
    pub(super) config: EngineConfig,
    /// Where `jsonl:-` writes.
    pub(super) stdout: Option<Box<dyn Write + 'a>>,
    /// The outputs checked and their files taken, until they are opened.
    pub(super) reserved: Option<Reserved>,
    pub(super) outputs: Option<Outputs<'a>>,
}

impl SinkDriver<'_> {
    /// Whether any output was asked for.
    pub(super) fn wanted(&self) -> bool {
        !self.args.output.is_empty()
    }

    /// Creates the outputs (nothing when none was asked for).
    pub(super) fn open(&mut self, meta: RunMeta) -> Result<()> {
        if !self.wanted() {
            return Ok(());
        }
        let stdout = self
            .stdout
            .take()
            .unwrap_or_else(|| Box::new(std::io::sink()));
        let reserved = self.reserved.take().unwrap_or_else(Reserved::none);
        self.outputs = Some(Outputs::open(reserved, &meta, stdout)?);
        Ok(())
    }

    /// Carries out one of the engine's sink writes.
    pub(super) fn write(&mut self, w: &SinkWrite) -> Result<()> {
        let (config, stream) = (&self.config, self.stream);
        match &mut self.outputs {
            Some(o) => o.write(w, |p| pane_row(p, config, stream)),
            None => Ok(()),
        }
    }

    /// Flushes and closes the outputs.
    pub(super) fn finish(&mut self) -> Result<()> {
        match self.outputs.take() {
            Some(o) => o.finish(),
            None => Ok(()),
        }
    }
}
