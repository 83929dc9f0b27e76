//! The policy as Flink SQL (1.19 or later): a `CREATE TABLE` whose `WATERMARK FOR` clause is
//! the watermark, a windowed count (window TVFs `TUMBLE`/`HOP`/`SESSION`, or the deprecated
//! GROUP BY `TUMBLE`/`HOP` window functions where the experimental early/late firing options
//! are needed: only those read them), and the table options for idleness, early firing,
//! allowed lateness and a state TTL.

use super::{
    config_duration, measured_note, nearest_lag, offset_note, shape, sql_interval, summary, whole,
    Code, CsvLog, Policy, Shape, Source,
};
use crate::engine::duration::Duration;
use crate::engine::window::{Ttl, TtlTime};
use crate::engine::{Accumulation, WindowFn};

const C: &str = "--";

pub(super) fn write(out: &mut Code, p: &Policy) {
    let c = &p.config;
    out.line("-- twoclocks export --to flink-sql");
    out.comment("", C, &format!("Policy: {}.", summary(p)));
    match &p.source {
        Source::Kafka => out.comment(
            "",
            C,
            "Flink SQL 1.19 or later. The table reads JSON events with `key` and `event_time_ms` \
             (ms since the epoch) from Kafka; the query counts events per key and window.",
        ),
        Source::File(log) => out.comment(
            "",
            C,
            &format!(
                "Flink SQL 1.19 or later. The table reads the log {} (CSV, event times in ms \
                 since the epoch) with the filesystem connector, once, as a backfill; the query \
                 counts events per key and window. Run it at parallelism 1 (SET \
                 'parallelism.default' = '1'): a second reader of the one file would have no \
                 rows and hold the watermark back until the end.",
                log.path
            ),
        ),
    }
    out.blank();
    if let Source::File(_) = p.source {
        out.comment(
            "",
            C,
            "A file is read faster than any periodic timer: with the default interval (200 ms) \
             Flink emits the watermark only when it rose by more than that much event time since \
             the last, or when the timer fires, so which rows come late would depend on the \
             read's speed. An interval of 0 emits it at every rise, after the row that raised \
             it, as twoclocks moves it at every event: each backfill gives the same rows.",
        );
        out.line("SET 'pipeline.auto-watermark-interval' = '0';");
        out.blank();
    }
    if let Some(t) = p.idle_timeout {
        out.differs(
            "",
            C,
            &format!(
                "twoclocks marks a partition idle {} after its last record; Flink checks \
                 periodically, so no earlier than that and a little later at worst.",
                Duration::short(t)
            ),
        );
        out.line(format!(
            "SET 'table.exec.source.idle-timeout' = '{}';",
            config_duration(t)
        ));
        out.blank();
    }
    table(out, p);
    out.blank();
    match c.window {
        WindowFn::Global { ttl } => global(out, p, ttl),
        // Sessions take no emit options in either syntax: always the TVF, differences stated.
        WindowFn::Session { .. } => tvf(out, p),
        WindowFn::Tumbling { .. } | WindowFn::Sliding { .. }
            if c.early.is_some() || c.grace > 0.0 =>
        {
            group_window(out, p)
        }
        WindowFn::Tumbling { .. } | WindowFn::Sliding { .. } => tvf(out, p),
    }
}

fn table(out: &mut Code, p: &Policy) {
    const I: &str = "  ";
    match &p.source {
        Source::Kafka => {
            out.line("CREATE TABLE events (");
            out.line(format!("{I}`key` STRING,"));
            out.line(format!("{I}event_time_ms BIGINT,"));
            out.line(format!("{I}ts AS TO_TIMESTAMP_LTZ(event_time_ms, 3),"));
        }
        Source::File(log) => {
            out.line("CREATE TABLE log_rows (");
            for c in &log.columns {
                let kind = if *c == log.event_time {
                    "BIGINT"
                } else {
                    "STRING"
                };
                out.line(format!("{I}`{}` {kind},", c.replace('`', "``")));
            }
            out.comment(
                I,
                C,
                "The CSV format has no header option: the header line reads as a row of NULLs \
                 (csv.ignore-parse-errors), which is given the earliest time here, so that it \
                 raises no watermark, and left out by the view `events` below.",
            );
            out.line(format!(
                "{I}ts AS TO_TIMESTAMP_LTZ(COALESCE(`{}`, -62135596800000), 3),",
                log.event_time.replace('`', "``")
            ));
        }
    }
    let lag = nearest_lag(p);
    match shape(p.config.watermark) {
        Shape::EventTimeBound { bound } => out.comment(
            I,
            C,
            &format!(
                "bounded:{b}: the highest event time seen − {b}. Flink SQL emits the \
                 expression's maximum as it is and fires a window at watermark ≥ end − 1 ms \
                 (its last timestamp), where twoclocks fires at watermark ≥ end: the extra 1 ms \
                 makes the two fire and drop at the same events.",
                b = Duration::short(bound)
            ),
        ),
        Shape::ProcessingLag { lag } => out.differs(
            I,
            C,
            &format!(
                "fixed:{l} trails processing time; a WATERMARK clause is an expression of the \
                 row's event time, so a processing-time lag has no equivalent. The nearest is \
                 the event-time bound of the same size (twoclocks' bounded:{l}), the same when \
                 events arrive in event-time order with no delay.",
                l = Duration::short(lag)
            ),
        ),
        Shape::LargestDelay | Shape::Quantile { .. } => {
            if let Some(note) = measured_note(p) {
                out.differs(I, C, &note);
            }
            out.comment(
                I,
                C,
                &format!(
                    "The nearest Flink SQL has: an event-time bound of {} (the extra 1 ms as \
                     for bounded: Flink fires at watermark ≥ end − 1 ms).",
                    Duration::short(lag)
                ),
            );
        }
    }
    if lag.fract() != 0.0 {
        out.differs(I, C, &format!("the bound is rounded to {} ms.", whole(lag)));
    }
    if let Source::Kafka = p.source {
        out.differs(
            I,
            C,
            "Flink emits the watermark every pipeline.auto-watermark-interval (200 ms by \
             default); twoclocks moves it at every event.",
        );
    }
    out.line(format!(
        "{I}WATERMARK FOR ts AS ts - {} - INTERVAL '0.001' SECOND",
        sql_interval(lag)
    ));
    out.line(") WITH (");
    if let Source::File(log) = &p.source {
        file_options(out, log);
        return;
    }
    out.line(format!("{I}'connector' = 'kafka',"));
    out.line(format!("{I}'topic' = 'events',"));
    out.line(format!(
        "{I}'properties.bootstrap.servers' = 'localhost:9092',"
    ));
    out.line(format!("{I}'scan.startup.mode' = 'earliest-offset',"));
    out.line(format!("{I}'format' = 'json'"));
    out.line(");");
}

/// The filesystem connector's options over the log, and the view of its rows that the query
/// reads.
fn file_options(out: &mut Code, log: &CsvLog) {
    const I: &str = "  ";
    out.line(format!("{I}'connector' = 'filesystem',"));
    out.line(format!("{I}'path' = '{}',", log.path.replace('\'', "''")));
    out.line(format!("{I}'format' = 'csv',"));
    out.differs(
        I,
        C,
        "a row that does not parse (the header, or a bad row) is skipped by Flink where \
         twoclocks stops at it, naming its line: run `twoclocks run --input` on the log first.",
    );
    out.line(format!("{I}'csv.ignore-parse-errors' = 'true'"));
    out.line(");");
    out.blank();
    out.line("CREATE TEMPORARY VIEW events AS");
    out.line(format!(
        "  SELECT `{}` AS `key`, `{e}` AS event_time_ms, ts",
        log.key.replace('`', "``"),
        e = log.event_time.replace('`', "``")
    ));
    out.line("  FROM log_rows");
    out.line(format!(
        "  WHERE `{}` IS NOT NULL;",
        log.event_time.replace('`', "``")
    ));
}

/// A window TVF query: no early firings and no lateness (a window TVF aggregation refuses the
/// table.exec.emit.* options).
fn tvf(out: &mut Code, p: &Policy) {
    let c = &p.config;
    let offset = c.window.offset();
    if offset != 0 {
        out.comment("", C, &offset_note(offset));
    }
    // The window TVFs take the offset as a last argument, none when it is 0.
    let and_offset = match offset {
        0 => String::new(),
        o => format!(", {}", sql_interval(o as f64)),
    };
    let call = match c.window {
        WindowFn::Tumbling { size, .. } => {
            format!(
                "TUMBLE(TABLE events, DESCRIPTOR(ts), {}{and_offset})",
                sql_interval(size as f64)
            )
        }
        WindowFn::Sliding { size, slide, .. } => format!(
            "HOP(TABLE events, DESCRIPTOR(ts), {}, {}{and_offset})",
            sql_interval(slide as f64),
            sql_interval(size as f64)
        ),
        WindowFn::Session { gap } => {
            session_note(out, gap);
            session_emit_note(out, p);
            format!(
                "SESSION(TABLE events PARTITION BY `key`, DESCRIPTOR(ts), {})",
                sql_interval(gap as f64)
            )
        }
        WindowFn::Global { .. } => return,
    };
    out.comment(
        "",
        C,
        "Windows are [window_start, window_end), as in twoclocks. One result per window and key \
         when the watermark passes the window; no grace (--grace 0s): a later event is dropped.",
    );
    accumulation(out, p, false);
    out.line("SELECT `key`, window_start, window_end, COUNT(*) AS events");
    out.line(format!("FROM TABLE({call})"));
    out.line("GROUP BY `key`, window_start, window_end;");
}

fn session_note(out: &mut Code, gap: i64) {
    out.differs(
        "",
        C,
        &format!(
            "each event opens [t, t + {g}) and overlapping windows merge, as in twoclocks, but \
             Flink also merges windows that only touch: two events exactly {g} apart are one \
             session here, two in twoclocks.",
            g = Duration::short(gap as f64)
        ),
    );
}

/// What sessions lose in Flink SQL: neither syntax takes the emit options for them (the
/// deprecated GROUP BY SESSION refuses them: "Session window doesn't support EMIT strategy"),
/// so no early panes and no allowed lateness.
fn session_emit_note(out: &mut Code, p: &Policy) {
    let c = &p.config;
    if let Some(every) = c.early {
        out.differs(
            "",
            C,
            &format!(
                "--early {}: Flink SQL has no early firings for session windows. A window TVF \
                 aggregation refuses the table.exec.emit.* options, and so does the deprecated \
                 GROUP BY SESSION (\"Session window doesn't support EMIT strategy\"): one result \
                 per session once the watermark passes its end, no EARLY panes.",
                Duration::short(every)
            ),
        );
    }
    if c.grace > 0.0 {
        out.differs(
            "",
            C,
            &format!(
                "--grace {}: no allowed lateness for session windows either (it comes only with \
                 the late-fire option, refused as above): an event whose window [t, t + gap) \
                 the watermark has passed is dropped, as twoclocks drops it with --grace 0s.",
                Duration::short(c.grace)
            ),
        );
    }
}

/// The deprecated GROUP BY window functions (TUMBLE, HOP) with the experimental emit options:
/// only they read them; a window TVF aggregation refuses them at planning.
fn group_window(out: &mut Code, p: &Policy) {
    let c = &p.config;
    out.comment(
        "",
        C,
        "Early firings and allowed lateness are the experimental table.exec.emit.* options. Only \
         the deprecated GROUP BY window functions read them: a window TVF aggregation refuses \
         them (\"window table function based aggregate doesn't support early-fire and late-fire \
         configuration\", through Flink 2.x), hence TUMBLE/HOP in GROUP BY here.",
    );
    if let Some(every) = c.early {
        out.differs(
            "",
            C,
            &format!(
                "Flink's early-fire timer is set {e} after a window's first element and re-armed \
                 {e} after each firing, as twoclocks' is, but a firing emits only if the count \
                 changed since the last one: a quiet window emits nothing where twoclocks emits \
                 an unchanged EARLY pane every {e}.",
                e = Duration::short(every)
            ),
        );
        out.line("SET 'table.exec.emit.early-fire.enabled' = 'true';");
        out.line(format!(
            "SET 'table.exec.emit.early-fire.delay' = '{}';",
            config_duration(every)
        ));
    }
    if c.grace > 0.0 {
        out.comment(
            "",
            C,
            "A late-fire delay of 0 fires on every late element: one update per late event, as \
             twoclocks emits one LATE pane per arrival that changes a fired window. \
             allow-lateness is read only with late-fire enabled.",
        );
        out.line("SET 'table.exec.emit.late-fire.enabled' = 'true';");
        out.line("SET 'table.exec.emit.late-fire.delay' = '0 s';");
        if c.grace.is_infinite() {
            out.differs(
                "",
                C,
                "--grace inf: allow-lateness needs a finite duration; 36500 days stands in for \
                 one that never drops.",
            );
            out.line("SET 'table.exec.emit.allow-lateness' = '52560000 min';");
        } else {
            out.comment(
                "",
                C,
                &format!(
                    "An event is dropped once the watermark passes window_end − 1 ms + {g}: with \
                     the watermark above, when end + {g} ≤ twoclocks' watermark, as in \
                     twoclocks.",
                    g = Duration::short(c.grace)
                ),
            );
            out.line(format!(
                "SET 'table.exec.emit.allow-lateness' = '{}';",
                config_duration(c.grace)
            ));
        }
    }
    out.blank();
    let offset = c.window.offset();
    if offset != 0 {
        out.differs(
            "",
            C,
            &format!(
                "the GROUP BY window functions take no offset: these windows lie on the \
                 epoch's grid (UTC's hours and midnights), where twoclocks' start {} past it, on \
                 the log's zone's. Only the window TVFs take an offset, and they refuse the \
                 early and late firings this policy needs.",
                crate::engine::duration::Duration::human(offset as f64)
            ),
        );
    }
    let (func, args) = match c.window {
        WindowFn::Tumbling { size, .. } => ("TUMBLE", sql_interval(size as f64)),
        WindowFn::Sliding { size, slide, .. } => (
            "HOP",
            format!(
                "{}, {}",
                sql_interval(slide as f64),
                sql_interval(size as f64)
            ),
        ),
        // Sessions and the global window never come here (see `write`).
        WindowFn::Session { .. } | WindowFn::Global { .. } => return,
    };
    accumulation(out, p, true);
    out.line("SELECT `key`,");
    out.line(format!("       {func}_START(ts, {args}) AS window_start,"));
    out.line(format!("       {func}_END(ts, {args}) AS window_end,"));
    out.line("       COUNT(*) AS events");
    out.line("FROM events");
    out.line(format!("GROUP BY `key`, {func}(ts, {args});"));
}

/// What the accumulation mode becomes; `updates` says whether the query emits more than one
/// result per window and key.
fn accumulation(out: &mut Code, p: &Policy, updates: bool) {
    let c = &p.config;
    match c.accumulation {
        Accumulation::Retracting if updates => out.comment(
            "",
            C,
            "Retracting, natively: each update is a changelog pair, −U retracting the previous \
             count and +U carrying the new one.",
        ),
        Accumulation::Accumulating if updates => out.comment(
            "",
            C,
            "Each update carries the whole count (accumulating); the changelog also retracts \
             the previous one (−U/+U): read it as an upsert on window and key.",
        ),
        Accumulation::Discarding if updates => out.differs(
            "",
            C,
            "Flink SQL's updates carry the whole count, with a retraction of the previous one \
             (−U/+U); for discarding panes, subtract the two downstream.",
        ),
        _ => {}
    }
}

fn global(out: &mut Code, p: &Policy, ttl: Option<Ttl>) {
    let c = &p.config;
    out.comment(
        "",
        C,
        "twoclocks' global window is a running count per key that never closes: a GROUP BY \
         without a window. No event is ever late, so the grace does not apply.",
    );
    match ttl {
        Some(Ttl {
            ms,
            time: TtlTime::Processing,
        }) => {
            out.comment(
                "",
                C,
                &format!(
                    "--ttl {}: Flink's state TTL, on processing time as twoclocks' default: a \
                     key idle that long starts from zero.",
                    Duration::short(ms as f64)
                ),
            );
            out.differs(
                "",
                C,
                "Flink's expiry is silent and lazy; twoclocks emits the expired count as a \
                 final value when it expires.",
            );
            out.line(format!(
                "SET 'table.exec.state.ttl' = '{}';",
                config_duration(ms as f64)
            ));
        }
        Some(Ttl {
            ms,
            time: TtlTime::Event,
        }) => out.differs(
            "",
            C,
            &format!(
                "--ttl {} --ttl-time event: Flink SQL's state TTL (table.exec.state.ttl) runs on \
                 processing time only. The nearest in event time is SESSION(TABLE events \
                 PARTITION BY `key`, DESCRIPTOR(ts), {}): a key's count restarts after that \
                 much event time without events.",
                Duration::short(ms as f64),
                sql_interval(ms as f64)
            ),
        ),
        None => {}
    }
    if let Some(every) = c.early {
        out.differs(
            "",
            C,
            &format!(
                "a GROUP BY emits an update per change; mini-batches hold them back up to {} of \
                 processing time. twoclocks emits the count every {} whether or not it changed.",
                Duration::short(every),
                Duration::short(every)
            ),
        );
        out.line("SET 'table.exec.mini-batch.enabled' = 'true';");
        out.line(format!(
            "SET 'table.exec.mini-batch.allow-latency' = '{}';",
            config_duration(every)
        ));
        out.line("SET 'table.exec.mini-batch.size' = '5000';");
    }
    out.blank();
    accumulation(out, p, true);
    out.line("SELECT `key`, COUNT(*) AS events");
    out.line("FROM events");
    out.line("GROUP BY `key`;");
}
