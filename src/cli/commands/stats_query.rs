//! The query `advise --sql` prints: it computes a log's slack statistics where the log lives
//! (Spark, Flink or DuckDB), from a table or view named `events` with the columns the column
//! flags name, so that `advise --stats` can finish the advice without the log. It computes
//! what the engine's `SlackStats::of` computes on a stream: per watermark kind (fixed: the
//! largest processing time seen; bounded: the largest event time seen), per window and key,
//! the clock at the cell's first arrival and how many arrivals fell in each slack bin.
//! tests/sql_engines/ runs each dialect's query on its engine (by hand: Spark and Flink are too
//! heavy for CI) and checks the advice from its result against the advice from the log.

use anyhow::{bail, Result};
use clap::ValueEnum;

use crate::engine::frontier::slack::SlackStats;
use crate::engine::WindowFn;
use crate::io::source::{TimeFormat, TIME_LIMIT};

/// The SQL engine the query is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
#[allow(missing_docs)]
pub enum Dialect {
    // Apache Spark SQL (3.1 or later; checked on 3.5 and 4.3).
    Spark,
    // Apache Flink SQL, in batch mode (checked on 1.20 and 2.3).
    Flink,
    // DuckDB.
    Duckdb,
}

impl Dialect {
    /// The engine's name, as the query's comment gives it.
    pub fn title(self) -> &'static str {
        match self {
            Dialect::Spark => "Spark SQL (3.1 or later; checked on 3.5 and 4.3)",
            Dialect::Flink => {
                "Flink SQL (checked on 1.20 and 2.3; batch mode: SET 'execution.runtime-mode' = 'batch';)"
            }
            Dialect::Duckdb => "DuckDB",
        }
    }

    /// A column name quoted as this dialect quotes identifiers.
    fn ident(self, name: &str) -> String {
        match self {
            Dialect::Duckdb => format!("\"{}\"", name.replace('"', "\"\"")),
            Dialect::Spark | Dialect::Flink => format!("`{}`", name.replace('`', "``")),
        }
    }

    /// The header's lines on RFC 3339 times: which column types the query takes, and the
    /// session time zone that reads a timestamp without a zone as UTC, as twoclocks reads it.
    fn zone_note(self) -> &'static str {
        match self {
            Dialect::Spark => {
                "\
-- Times: TIMESTAMP, TIMESTAMP_NTZ or RFC 3339 text. A TIMESTAMP_NTZ is read in the session
-- time zone, and twoclocks reads times without a zone as UTC: first SET TIME ZONE 'UTC';\n"
            }
            Dialect::Flink => {
                "\
-- Times: TIMESTAMP or TIMESTAMP_LTZ (Flink does not cast RFC 3339 text: parse it first, e.g.
-- with TO_TIMESTAMP). They are read in the session time zone, and twoclocks reads times
-- without a zone as UTC: first SET 'table.local-time-zone' = 'UTC';\n"
            }
            Dialect::Duckdb => {
                "\
-- Times: TIMESTAMP, TIMESTAMPTZ or RFC 3339 text. A TIMESTAMP is read in the TimeZone
-- setting, and twoclocks reads times without a zone as UTC: first SET TimeZone = 'UTC';\n"
            }
        }
    }

    /// The header's lines on saving the result, where the engine's own way needs a word.
    fn save_note(self) -> String {
        match self {
            Dialect::Flink => format!(
                "\
-- To save it, INSERT INTO a table of the filesystem connector; its format 'csv' writes no
-- header line, so put this one first:\n--   {}\n",
                crate::io::stats::COLUMNS.join(",")
            ),
            Dialect::Spark | Dialect::Duckdb => String::new(),
        }
    }

    /// The text type.
    fn text(self) -> &'static str {
        match self {
            Dialect::Duckdb => "VARCHAR",
            Dialect::Spark | Dialect::Flink => "STRING",
        }
    }

    /// Milliseconds since the epoch, as a DOUBLE, of a timestamp (or RFC 3339 text) column.
    fn timestamp_ms(self, col: &str) -> String {
        match self {
            Dialect::Duckdb => format!("CAST(epoch_us(CAST({col} AS TIMESTAMPTZ)) AS DOUBLE) / 1000"),
            Dialect::Spark => format!("CAST(unix_micros(CAST({col} AS TIMESTAMP)) AS DOUBLE) / 1000"),
            Dialect::Flink => format!(
                "CAST(UNIX_TIMESTAMP(DATE_FORMAT(CAST({col} AS TIMESTAMP(3)), 'yyyy-MM-dd HH:mm:ss')) AS DOUBLE) * 1000 \
                 + CAST(DATE_FORMAT(CAST({col} AS TIMESTAMP(3)), 'SSS') AS DOUBLE)"
            ),
        }
    }
}

/// What the query is asked for: the window, the columns, their time unit, the grid's step.
#[derive(Debug, Clone)]
pub struct QuerySpec {
    /// The SQL engine.
    pub dialect: Dialect,
    /// The window (tumbling or sliding).
    pub window: WindowFn,
    /// The event-time column.
    pub event_time_col: String,
    /// The processing-time column.
    pub proc_time_col: String,
    /// The key column.
    pub key_col: String,
    /// What a time is (`None`: a number of ms).
    pub time_format: Option<TimeFormat>,
    /// The grid's step, whole ms.
    pub step: i64,
}

/// A whole number of ms as a duration flag: in seconds where it is whole seconds.
fn duration_flag(ms: i64) -> String {
    if ms % 1000 == 0 {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

/// The minute of processing time the running maximum of event times is taken within, before
/// it is carried across minutes: no engine sorts the whole table on one node.
const BUCKET_MS: i64 = 60_000;

impl QuerySpec {
    /// A column's time in ms, as a DOUBLE.
    fn time_ms(&self, col: &str) -> String {
        let c = self.dialect.ident(col);
        match self.time_format {
            None | Some(TimeFormat::Ms) => format!("CAST({c} AS DOUBLE)"),
            Some(TimeFormat::S) => format!("CAST({c} AS DOUBLE) * 1000"),
            Some(TimeFormat::Us) => format!("CAST({c} AS DOUBLE) / 1000"),
            Some(TimeFormat::Ns) => format!("CAST({c} AS DOUBLE) / 1000000"),
            Some(TimeFormat::Rfc3339) => self.dialect.timestamp_ms(&c),
        }
    }

    /// The query's text.
    pub fn text(&self) -> Result<String> {
        let (size, slide) = match self.window {
            WindowFn::Tumbling { size, .. } => (size, size),
            WindowFn::Sliding { size, slide, .. } => (size, slide),
            _ => bail!(
                "advise --sql computes statistics for tumbling and sliding windows; {} windows \
                 merge or never end, and need the log itself: give --input",
                self.window.describe()
            ),
        };
        if self.window.offset() != 0 {
            bail!(
                "advise --sql bins windows on the epoch's grid; {} windows start off it: drop \
                 --window-offset, or give --input",
                self.window.describe()
            );
        }
        let d = self.dialect;
        let step = self.step;
        let top = SlackStats::TOP_BIN;
        let bottom = SlackStats::BOTTOM_BIN;
        // Windows per event: those whose start is within one size before it.
        let per_event = (size + slide - 1) / slide;
        let offsets = (0..per_event)
            .map(|i| format!("({i})"))
            .collect::<Vec<_>>()
            .join(", ");
        let et = self.time_ms(&self.event_time_col);
        let pt = self.time_ms(&self.proc_time_col);
        let key = format!("CAST({} AS {})", d.ident(&self.key_col), d.text());
        // A row is used when its key is a text that is not empty and its times are numbers
        // within ±2^53 ms (NaN and infinities are not): what `--input` reads without error.
        let valid = format!(
            "k IS NOT NULL AND k <> ''\n    AND et IS NOT NULL AND pt IS NOT NULL\n    \
             AND ABS(et) <= {TIME_LIMIT} AND ABS(pt) <= {TIME_LIMIT}"
        );
        let window = self.window.describe();
        let max_delay = step * crate::engine::advice::Request::GRID_STEPS as i64;
        let max_delay_flag = duration_flag(max_delay);
        let window_flags = if slide == size {
            format!("--window {}", duration_flag(size))
        } else {
            format!(
                "--window {} --slide {}",
                duration_flag(size),
                duration_flag(slide)
            )
        };
        Ok(format!(
            "\
-- Slack statistics for `twoclocks advise --stats`, for {title}.
-- Window: {window}. Grid: lags and graces 0 to {max_delay_flag} in steps of {step} ms.
-- Reads the table or view `events`; rows with a NULL time or key, an empty key, or a time
-- that is not finite or beyond 2^53 ms are counted (rows_left_out), not used.
-- Per watermark kind (fixed: its clock is the largest processing time seen; bounded: the
-- largest event time seen in processing order), window and key: the clock at the cell's
-- first arrival, and how many arrivals had each slack bin,
-- floor((clock - window end) / {step} ms), from {bottom} (before the end) to {top}.
-- Rows with equal processing times have no order in a table: under the bounded watermark
-- each of them sees the largest event time among them, the most any order of them would
-- drop (twoclocks --input takes them in file order: the same, sorted by event time down).
{zone_note}{save_note}-- Save the result as CSV or Parquet and run:
--   twoclocks advise --stats FILE {window_flags} --max-delay {max_delay_flag}
WITH converted AS (
  SELECT {key} AS k,
         {et} AS et,
         {pt} AS pt
  FROM events
),
timed AS (
  SELECT k, et, pt FROM converted WHERE {valid}
),
bucketed AS (
  SELECT k, et, pt, FLOOR(pt / {BUCKET_MS}) AS b FROM timed
),
bucket_high AS (
  SELECT b, MAX(et) AS high FROM bucketed GROUP BY b
),
before_bucket AS (
  SELECT b, MAX(high) OVER (ORDER BY b ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS high
  FROM bucket_high
),
clocked AS (
  SELECT x.k, x.et, x.pt,
         CASE WHEN p.high IS NULL OR x.high_in_b > p.high THEN x.high_in_b ELSE p.high END AS high_et
  FROM (
    SELECT k, et, pt, b,
           MAX(et) OVER (PARTITION BY b ORDER BY pt
                         RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS high_in_b
    FROM bucketed
  ) x
  JOIN before_bucket p ON x.b = p.b
),
placed AS (
  SELECT c.k, c.et, c.pt, c.high_et,
         CAST((FLOOR(c.et / {slide}) - o.i) * {slide} AS BIGINT) AS ws
  FROM clocked c
  CROSS JOIN (VALUES {offsets}) AS o(i)
),
windowed AS (
  SELECT k, pt, high_et, ws, ws + {size} AS we FROM placed WHERE ws + {size} > et
),
clocks AS (
  SELECT 'fixed' AS kind, ws, we, k, pt AS clock FROM windowed
  UNION ALL
  SELECT 'bounded' AS kind, ws, we, k, high_et AS clock FROM windowed
),
binned AS (
  SELECT kind, ws, we, k,
         MIN(clock) OVER (PARTITION BY kind, ws, k) AS first_clock,
         CASE WHEN clock - we < 0 THEN {bottom}
              WHEN clock - we >= {top_ms} THEN {top}
              ELSE CAST(FLOOR((clock - we) / {step}) AS BIGINT) END AS bin
  FROM clocks
)
SELECT kind AS {watermark_out},
       ws AS window_start_ms,
       we AS window_end_ms,
       k AS {key_out},
       first_clock AS first_clock_ms,
       bin AS slack_bin,
       CAST({step} AS BIGINT) AS slack_bin_ms,
       COUNT(*) AS events,
       CAST({size} AS BIGINT) AS window_size_ms,
       CAST({slide} AS BIGINT) AS window_slide_ms
FROM binned
GROUP BY kind, ws, we, k, first_clock, bin
UNION ALL
SELECT '{left_out}' AS {watermark_out},
       CAST(NULL AS BIGINT) AS window_start_ms,
       CAST(NULL AS BIGINT) AS window_end_ms,
       CAST(NULL AS {text}) AS {key_out},
       CAST(NULL AS DOUBLE) AS first_clock_ms,
       CAST(NULL AS BIGINT) AS slack_bin,
       CAST({step} AS BIGINT) AS slack_bin_ms,
       COUNT(*) AS events,
       CAST({size} AS BIGINT) AS window_size_ms,
       CAST({slide} AS BIGINT) AS window_slide_ms
FROM converted
WHERE NOT ({valid})
HAVING COUNT(*) > 0
ORDER BY {watermark_out}, window_start_ms, {key_out}, slack_bin;
",
            title = d.title(),
            save_note = d.save_note(),
            zone_note = if self.time_format == Some(TimeFormat::Rfc3339) {
                d.zone_note()
            } else {
                ""
            },
            top_ms = SlackStats::TOP_BIN * step,
            left_out = crate::io::stats::LEFT_OUT,
            key_out = d.ident("key"),
            watermark_out = d.ident("watermark"),
            text = d.text(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(dialect: Dialect, window: WindowFn) -> QuerySpec {
        QuerySpec {
            dialect,
            window,
            event_time_col: "event_time_ms".into(),
            proc_time_col: "proc_time_ms".into(),
            key_col: "key".into(),
            time_format: None,
            step: 5000,
        }
    }

    /// The query's words outside comments, quoted names and string literals.
    fn bare_words(text: &str) -> Vec<String> {
        let mut outside = String::new();
        for line in text.lines().filter(|l| !l.trim_start().starts_with("--")) {
            let mut quote: Option<char> = None;
            for c in line.chars() {
                match quote {
                    Some(q) if c == q => quote = None,
                    Some(_) => {}
                    None if matches!(c, '`' | '"' | '\'') => quote = Some(c),
                    None => outside.push(c),
                }
                if quote.is_some() {
                    outside.push(' ');
                }
            }
            outside.push('\n');
        }
        outside
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    }

    /// Flink's parser reserves WATERMARK and WITHIN (and Calcite WINDOW and VALUE): the query
    /// quotes the output column `watermark` and names nothing else so, in every dialect.
    #[test]
    fn no_reserved_word_is_a_bare_name() {
        let windows = [
            WindowFn::tumbling(60_000).unwrap(),
            WindowFn::sliding(7_000, 3_000).unwrap(),
        ];
        for dialect in [Dialect::Spark, Dialect::Flink, Dialect::Duckdb] {
            for window in windows {
                let text = spec(dialect, window).text().unwrap();
                let words = bare_words(&text);
                assert!(
                    words.contains(&"select".to_string()),
                    "{dialect:?}: {words:?}"
                );
                for reserved in ["watermark", "within", "window", "value"] {
                    assert!(
                        !words.iter().any(|w| w == reserved),
                        "{dialect:?}: `{reserved}` is a bare name in\n{text}"
                    );
                }
                assert!(text.contains(&format!("AS {}", dialect.ident("watermark"))));
            }
        }
    }

    /// Only RFC 3339 times bring the time-zone lines, and only Flink the CSV header line.
    #[test]
    fn header_notes_follow_the_time_format_and_engine() {
        for dialect in [Dialect::Spark, Dialect::Flink, Dialect::Duckdb] {
            let mut s = spec(dialect, WindowFn::tumbling(60_000).unwrap());
            assert!(!s.text().unwrap().contains("UTC"), "{dialect:?}");
            s.time_format = Some(TimeFormat::Rfc3339);
            assert!(s.text().unwrap().contains("'UTC'"), "{dialect:?}");
            let header = crate::io::stats::COLUMNS.join(",");
            assert_eq!(
                s.text().unwrap().contains(&header),
                dialect == Dialect::Flink,
                "{dialect:?}"
            );
        }
    }
}
