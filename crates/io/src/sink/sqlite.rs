//! The SQLite sink: a database with the panes the sink received (`panes`, the fields of
//! `run --format json`'s `panes`), what the chosen sink kind holds (`results`: one row per
//! window, key and pane index), each cell's value as its panes add up (the `finals` view) and
//! the run's settings (`meta`).
//!
//! `results` follows the engine's sink writes: the additive kind adds
//! (`value = value + excluded.value`, so a replayed pane counts again), the idempotent kind
//! upserts on (window, key, pane index), the transactional kind writes one SQLite transaction
//! per completed checkpoint, so what a crash left uncommitted is never in the file. Writes
//! outside those transactions are batched for speed: batching changes no row.

use anyhow::{Context, Result};
use rusqlite::{params, Connection};

use super::{PaneRow, RunMeta, Sink};
use crate::staged::StagedFile;

/// The `results` table's columns, in order.
pub const RESULTS_COLUMNS: [&str; 7] = [
    "window",
    "start_ms",
    "end_ms",
    "key",
    "pane_index",
    "value",
    "retraction",
];

/// Writes outside a checkpoint's transaction are committed in batches of this many.
const BATCH: usize = 4096;

const SCHEMA: &str = r#"
CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE panes (
    "window" INTEGER,
    start_ms REAL,
    end_ms REAL,
    key TEXT NOT NULL,
    timing TEXT NOT NULL,
    "index" INTEGER NOT NULL,
    nonspeculative_index INTEGER NOT NULL,
    is_first INTEGER NOT NULL,
    is_last INTEGER NOT NULL,
    timestamp_ms REAL,
    proc_time_ms REAL NOT NULL,
    watermark_ms REAL,
    value INTEGER NOT NULL,
    retraction INTEGER
);
CREATE TABLE results (
    "window" INTEGER,
    start_ms REAL,
    end_ms REAL,
    key TEXT NOT NULL,
    pane_index INTEGER NOT NULL,
    value INTEGER NOT NULL,
    retraction INTEGER
);
CREATE UNIQUE INDEX results_pane
    ON results(key, ifnull(start_ms, 0), ifnull(end_ms, 0), pane_index);
"#;

const INSERT_PANE: &str = r#"INSERT INTO panes ("window", start_ms, end_ms, key, timing, "index",
    nonspeculative_index, is_first, is_last, timestamp_ms, proc_time_ms, watermark_ms, value,
    retraction) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)"#;

const ADD: &str = r#"INSERT INTO results ("window", start_ms, end_ms, key, pane_index, value,
    retraction) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
    ON CONFLICT DO UPDATE SET value = value + excluded.value,
        retraction = retraction + excluded.retraction"#;

const UPSERT: &str = r#"INSERT INTO results ("window", start_ms, end_ms, key, pane_index, value,
    retraction) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
    ON CONFLICT DO UPDATE SET value = excluded.value, retraction = excluded.retraction"#;

/// The `finals` view: each cell's value as its panes in `results` add up under the run's
/// accumulation mode (accumulating: the last pane's; discarding: their sum; retracting: their
/// sum less what they retract).
fn finals_view(accumulation: &str) -> String {
    let body = match accumulation {
        "accumulating" => {
            r#"SELECT "window", start_ms, end_ms, key, value FROM results r
            WHERE pane_index = (SELECT max(pane_index) FROM results s
                WHERE s.key = r.key AND s.start_ms IS r.start_ms AND s.end_ms IS r.end_ms)"#
        }
        "retracting" => {
            r#"SELECT "window", start_ms, end_ms, key, sum(value - ifnull(retraction, 0)) AS value
            FROM results GROUP BY key, start_ms, end_ms"#
        }
        _ => {
            r#"SELECT "window", start_ms, end_ms, key, sum(value) AS value
            FROM results GROUP BY key, start_ms, end_ms"#
        }
    };
    format!("CREATE VIEW finals AS {body};")
}

/// Writes a run's panes and results to a SQLite database.
pub struct SqliteSink {
    conn: Connection,
    /// The database's file: its unfinished copy until the run has finished.
    file: StagedFile,
    /// Writes in the open batch transaction, if one is open.
    pending: usize,
    /// The flag that names it in messages.
    flag: String,
}

impl SqliteSink {
    /// Creates the database in `file`'s unfinished copy, with its schema and the run's
    /// settings; `meta`'s `completed` row says `false` until [`SqliteSink::finish`].
    ///
    /// The copy is renamed into place only when the run has finished, so it needs no
    /// journal on disk: the rollback journal is kept in memory (no `-journal`, `-wal` or
    /// `-shm` file is ever made), and the file is synced once, when it is put in place.
    /// An error says `flag` first, the output it names.
    pub fn create(file: StagedFile, meta: &RunMeta, flag: String) -> Result<SqliteSink> {
        Self::created(file, meta)
            .map(|(conn, file)| SqliteSink {
                conn,
                file,
                pending: 0,
                flag: flag.clone(),
            })
            .map_err(|e| anyhow::anyhow!("{flag}: {e:#}"))
    }

    /// The database made in `file`'s copy, with its schema and settings.
    fn created(file: StagedFile, meta: &RunMeta) -> Result<(Connection, StagedFile)> {
        let conn = Connection::open(file.write_path()).context("cannot create the database")?;
        conn.pragma_update(None, "journal_mode", "MEMORY")
            .context("cannot write the database")?;
        conn.pragma_update(None, "synchronous", "OFF")
            .context("cannot write the database")?;
        conn.execute_batch(&format!(
            "BEGIN;{SCHEMA}{}COMMIT;",
            finals_view(meta.accumulation)
        ))
        .context("cannot write the database")?;
        let sink = meta.sink.map_or("none (single processor)", |k| k.name());
        let mut rows = vec![
            ("completed".to_string(), "false".to_string()),
            ("sink".to_string(), sink.to_string()),
            ("accumulation".to_string(), meta.accumulation.to_string()),
        ];
        rows.extend(meta.settings.iter().cloned());
        for (name, value) in rows {
            conn.execute(
                "INSERT OR REPLACE INTO meta (name, value) VALUES (?1, ?2)",
                params![name, value],
            )?;
        }
        Ok((conn, file))
    }

    fn batch(&mut self) -> Result<()> {
        if self.pending == 0 {
            self.conn.execute_batch("BEGIN")?;
        }
        self.pending += 1;
        Ok(())
    }

    fn after_batch_write(&mut self) -> Result<()> {
        if self.pending >= BATCH {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if self.pending > 0 {
            self.conn.execute_batch("COMMIT")?;
            self.pending = 0;
        }
        Ok(())
    }

    /// A pane the sink received: a row of `panes`.
    fn insert_pane(&mut self, r: &PaneRow) -> Result<()> {
        self.batch()?;
        self.conn.prepare_cached(INSERT_PANE)?.execute(params![
            r.window,
            r.start_ms,
            r.end_ms,
            r.key,
            r.timing,
            r.index,
            r.nonspeculative_index,
            r.is_first,
            r.is_last,
            r.timestamp_ms,
            r.proc_time_ms,
            r.watermark_ms,
            r.value,
            r.retraction
        ])?;
        self.after_batch_write()
    }

    fn result(&mut self, sql: &str, r: &PaneRow) -> Result<()> {
        self.conn.prepare_cached(sql)?.execute(params![
            r.window,
            r.start_ms,
            r.end_ms,
            r.key,
            r.index,
            r.value,
            r.retraction
        ])?;
        Ok(())
    }

    /// The additive kind: the pane's value is added to its row (a replay counts again).
    fn add_result(&mut self, r: &PaneRow) -> Result<()> {
        self.batch()?;
        self.result(ADD, r)?;
        self.after_batch_write()
    }

    /// The idempotent kind: the pane is upserted on (window, key, pane index).
    fn upsert_result(&mut self, r: &PaneRow) -> Result<()> {
        self.batch()?;
        self.result(UPSERT, r)?;
        self.after_batch_write()
    }

    /// The transactional kind: a checkpoint's panes, in one transaction of their own.
    fn commit_results(&mut self, rows: &[PaneRow]) -> Result<()> {
        self.flush()?;
        self.conn.execute_batch("BEGIN")?;
        for r in rows {
            self.result(UPSERT, r)?;
        }
        self.conn.execute_batch("COMMIT")?;
        Ok(())
    }

    /// The run is over: commits the open batch with `meta`'s `completed` row set to
    /// `true`, closes the database and hands back its file, to be put in place.
    fn close(mut self) -> Result<StagedFile> {
        self.batch()?;
        self.conn.execute(
            "UPDATE meta SET value = 'true' WHERE name = 'completed'",
            [],
        )?;
        self.flush()?;
        let SqliteSink { conn, file, .. } = self;
        conn.close()
            .map_err(|(_, e)| anyhow::Error::from(e))
            .context("cannot close the database")?;
        Ok(file)
    }
}

impl Sink for SqliteSink {
    fn flag(&self) -> &str {
        &self.flag
    }

    fn received(&mut self, row: &PaneRow) -> Result<()> {
        self.insert_pane(row)
            .with_context(|| format!("{}: cannot write", self.flag))
    }

    fn add(&mut self, row: &PaneRow) -> Result<()> {
        self.add_result(row)
            .with_context(|| format!("{}: cannot write", self.flag))
    }

    fn upsert(&mut self, row: &PaneRow) -> Result<()> {
        self.upsert_result(row)
            .with_context(|| format!("{}: cannot write", self.flag))
    }

    fn commit(&mut self, rows: &[PaneRow]) -> Result<()> {
        self.commit_results(rows)
            .with_context(|| format!("{}: cannot write", self.flag))
    }

    fn finish(self: Box<Self>) -> Result<Option<StagedFile>> {
        let flag = self.flag.clone();
        (*self)
            .close()
            .map(Some)
            .with_context(|| format!("{flag}: cannot finish"))
    }
}
