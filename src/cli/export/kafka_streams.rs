//! The policy as Kafka Streams DSL code (Java, Kafka 3.0 or later): `TimeWindows.ofSizeAndGrace`
//! (hopping with `advanceBy`), `SessionWindows.ofInactivityGapAndGrace`, and `suppress` for
//! final results only. Kafka Streams has no watermark: stream time (the highest timestamp a
//! task has seen) closes windows, so the watermark's lag joins the grace.

use super::{java_duration, measured_note, nearest_lag, shape, summary, Code, Policy, Shape};
use crate::engine::duration::Duration;
use crate::engine::window::{Ttl, TtlTime};
use crate::engine::{Accumulation, WindowFn};

const C: &str = "//";
const I: &str = "        ";
/// The indent of a comment inside a method chain.
const K: &str = "                ";

pub(super) fn write(out: &mut Code, p: &Policy) {
    let c = &p.config;
    out.line("// twoclocks export --to kafka-streams");
    out.comment("", C, &format!("Policy: {}.", summary(p)));
    out.comment(
        "",
        C,
        "Kafka Streams 3.0 or later. `Event` is your record type with `long eventTimeMs` (ms \
         since the epoch), keyed by its key on topic \"events\"; eventSerde reads and writes \
         it. The topology counts events per key and window.",
    );
    out.blank();
    imports(out, p);
    out.blank();
    out.line("public final class TwoclocksPolicy {");
    out.blank();
    out.line("    public static void build(StreamsBuilder builder, Serde<Event> eventSerde) {");
    out.line(format!(
        "{I}KStream<String, Event> events = builder.stream(\"events\","
    ));
    out.line(format!(
        "{I}        Consumed.with(Serdes.String(), eventSerde)"
    ));
    out.line(format!(
        "{I}                .withTimestampExtractor((record, partitionTime) -> ((Event) record.value()).eventTimeMs));"
    ));
    match c.window {
        WindowFn::Global { ttl } => global(out, p, ttl),
        WindowFn::Tumbling { .. } | WindowFn::Sliding { .. } | WindowFn::Session { .. } => {
            windowed(out, p)
        }
    }
    out.line("    }");
    out.line("}");
}

fn imports(out: &mut Code, p: &Policy) {
    let c = &p.config;
    let mut lines = vec![
        "org.apache.kafka.common.serialization.Serde",
        "org.apache.kafka.common.serialization.Serdes",
        "org.apache.kafka.streams.StreamsBuilder",
        "org.apache.kafka.streams.kstream.Consumed",
        "org.apache.kafka.streams.kstream.KStream",
        "org.apache.kafka.streams.kstream.KTable",
    ];
    let session_ttl = matches!(c.window, WindowFn::Global { ttl: Some(_) });
    if !matches!(c.window, WindowFn::Global { .. }) || session_ttl {
        lines.extend([
            "java.time.Duration",
            "org.apache.kafka.streams.kstream.Suppressed",
            "org.apache.kafka.streams.kstream.Suppressed.BufferConfig",
            "org.apache.kafka.streams.kstream.Windowed",
        ]);
    }
    match c.window {
        WindowFn::Tumbling { .. } | WindowFn::Sliding { .. } => {
            lines.push("org.apache.kafka.streams.kstream.TimeWindows")
        }
        WindowFn::Session { .. } => lines.push("org.apache.kafka.streams.kstream.SessionWindows"),
        WindowFn::Global { .. } => {
            if session_ttl {
                lines.push("org.apache.kafka.streams.kstream.SessionWindows");
            }
        }
    }
    lines.sort_by_key(|l| (!l.starts_with("java"), *l));
    for l in lines {
        out.line(format!("import {l};"));
    }
}

/// The grace Kafka Streams needs: the watermark's lag (stream time plays the watermark's part)
/// plus twoclocks' grace, with the comments that say why.
fn grace(out: &mut Code, p: &Policy) -> String {
    let c = &p.config;
    let lag = nearest_lag(p);
    match shape(c.watermark) {
        Shape::EventTimeBound { bound } => out.comment(
            I,
            C,
            &format!(
                "No watermark in Kafka Streams: stream time, the highest event time the task \
                 has seen, closes windows, and a window takes events until stream time ≥ end + \
                 grace. twoclocks' bounded:{b} is stream time − {b}, so its drop rule end + {g} \
                 ≤ W is exactly a grace of {b} + {g}.",
                b = Duration::short(bound),
                g = Duration::short(c.grace)
            ),
        ),
        Shape::ProcessingLag { lag } => out.differs(
            I,
            C,
            &format!(
                "fixed:{l} trails processing time, and Kafka Streams closes windows on stream \
                 time (event time) only: a processing-time lag has no equivalent. The nearest is \
                 a grace of {l} + {g} on stream time, which is the same when events arrive in \
                 event-time order with no delay.",
                l = Duration::short(lag),
                g = Duration::short(c.grace)
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
                    "Kafka Streams closes windows on stream time (event time); the nearest is a \
                     grace of {} + {}.",
                    Duration::short(lag),
                    Duration::short(c.grace)
                ),
            );
        }
    }
    if let Some(t) = p.idle_timeout {
        out.differs(
            I,
            C,
            &format!(
                "--idle-timeout {}: stream time is a task's highest timestamp, not the minimum \
                 over partitions, so a silent partition never holds it back and there is no idle \
                 timeout to set (max.task.idle.ms only orders records across partitions).",
                Duration::short(t)
            ),
        );
    }
    let total = lag + c.grace;
    if total.is_infinite() {
        out.differs(
            I,
            C,
            "--grace inf: a window store must keep size + grace, so Kafka Streams needs a finite \
             grace; 36500 days stands in for one that never drops.",
        );
        "Duration.ofDays(36500)".to_string()
    } else {
        if total.fract() != 0.0 {
            out.differs(
                I,
                C,
                &format!(
                    "the grace is rounded to whole milliseconds ({}).",
                    Duration::short(total.round())
                ),
            );
        }
        java_duration(total)
    }
}

fn windowed(out: &mut Code, p: &Policy) {
    let c = &p.config;
    let g = grace(out, p);
    out.line(format!("{I}KTable<Windowed<String>, Long> counts = events"));
    out.line(format!("{I}        .groupByKey()"));
    let offset = c.window.offset();
    if offset != 0 {
        out.differs(
            K,
            C,
            &format!(
                "Kafka Streams' windows take no offset: they lie on the epoch's grid (UTC's \
                 hours and midnights), where twoclocks' start {h} past it, on the log's zone's. \
                 To count in twoclocks' windows, subtract {h} from each record's time in the \
                 TimestampExtractor and add it back to the window bounds of the results.",
                h = crate::engine::duration::Duration::human(offset as f64)
            ),
        );
    }
    match c.window {
        WindowFn::Tumbling { size, .. } => {
            out.comment(K, C, "Windows are [start, end), as in twoclocks.");
            out.line(format!(
                "{I}        .windowedBy(TimeWindows.ofSizeAndGrace({}, {g}))",
                java_duration(size as f64)
            ));
        }
        WindowFn::Sliding { size, slide, .. } => {
            out.comment(
                K,
                C,
                "twoclocks' sliding windows are Kafka's hopping windows, [start, end) (Kafka's \
                 SlidingWindows are another thing: one window per record, by time difference).",
            );
            out.line(format!(
                "{I}        .windowedBy(TimeWindows.ofSizeAndGrace({}, {g}).advanceBy({}))",
                java_duration(size as f64),
                java_duration(slide as f64)
            ));
        }
        WindowFn::Session { gap } => {
            out.differs(
                K,
                C,
                &format!(
                    "a Kafka session is [first, last] event time, both inclusive, and merges \
                     events up to {g} apart inclusive: two events exactly {g} apart are one \
                     session here, two in twoclocks, whose session is [first, last + {g}). An \
                     event is dropped when its merged session's last event + {g} + grace < stream \
                     time (twoclocks: its own window's end + grace ≤ watermark).",
                    g = Duration::short(gap as f64)
                ),
            );
            out.line(format!(
                "{I}        .windowedBy(SessionWindows.ofInactivityGapAndGrace({}, {g}))",
                java_duration(gap as f64)
            ));
        }
        WindowFn::Global { .. } => {}
    }
    out.line(format!("{I}        .count();"));
    out.blank();
    accumulation(out, p);
    out.comment(
        I,
        C,
        "Final results only: one record per window and key once stream time passes end + \
         grace, twoclocks' final value. Without suppress, Kafka Streams emits every update \
         (coalesced by the record cache and commit.interval.ms). Since 3.3, \
         .emitStrategy(EmitStrategy.onWindowClose()) on the windowed stream does the same.",
    );
    out.differs(
        I,
        C,
        "stream time moves only with new records: the last windows close when later events \
         come, not at the end of input as in twoclocks.",
    );
    out.line(format!(
        "{I}counts.suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()))"
    ));
    out.line(format!("{I}        .toStream()"));
    out.line(format!("{I}        .to(\"final-counts\");"));
    early(out, p, "counts");
}

fn accumulation(out: &mut Code, p: &Policy) {
    match p.config.accumulation {
        Accumulation::Accumulating => out.comment(
            I,
            C,
            "Accumulating, as Kafka Streams' aggregations always are: each update carries the \
             whole count so far.",
        ),
        Accumulation::Discarding => out.differs(
            I,
            C,
            "Kafka Streams' aggregations emit the whole count so far (accumulating); for \
             discarding panes subtract the previous value per window and key downstream.",
        ),
        Accumulation::Retracting => out.differs(
            I,
            C,
            "each update carries the whole count (accumulating) and replaces the previous one \
             in a KTable: an upsert, not a separate retraction. Session merges do forward a \
             null (a tombstone) for each session replaced, which is a retraction.",
        ),
    }
}

fn early(out: &mut Code, p: &Policy, table: &str) {
    let Some(every) = p.config.early else {
        return;
    };
    out.blank();
    out.differs(
        I,
        C,
        &format!(
            "early panes: Kafka Streams has no processing-time trigger. untilTimeLimit emits a \
             key's latest update {e} of stream time after its first buffered update, then waits \
             for the next update; twoclocks fires every {e} of processing time and re-arms \
             whether or not events came.",
            e = Duration::short(every)
        ),
    );
    out.line(format!(
        "{I}{table}.suppress(Suppressed.untilTimeLimit({}, BufferConfig.unbounded()))",
        java_duration(every)
    ));
    out.line(format!("{I}        .toStream()"));
    out.line(format!("{I}        .to(\"early-counts\");"));
}

fn global(out: &mut Code, p: &Policy, ttl: Option<Ttl>) {
    let c = &p.config;
    match ttl {
        None => {
            out.comment(
                I,
                C,
                "twoclocks' global window is a running count per key that never closes: a \
                 KTable.",
            );
            out.line(format!("{I}KTable<String, Long> counts = events"));
            out.line(format!("{I}        .groupByKey()"));
            out.line(format!("{I}        .count();"));
            out.line(format!("{I}counts.toStream().to(\"counts\");"));
            if let Some(every) = c.early {
                out.differs(
                    I,
                    C,
                    &format!(
                        "every update is emitted (coalesced by the record cache and \
                         commit.interval.ms, which may be set to {}); twoclocks emits the count \
                         every {} of processing time.",
                        Duration::short(every),
                        Duration::short(every)
                    ),
                );
            }
            accumulation(out, p);
        }
        Some(Ttl { ms, time }) => {
            out.differs(
                I,
                C,
                &format!(
                    "--ttl {}: Kafka Streams has no state TTL. The nearest is a session window \
                     with that gap: a key's count restarts after {} of event time without \
                     events{}.",
                    Duration::short(ms as f64),
                    Duration::short(ms as f64),
                    match time {
                        TtlTime::Event =>
                            " (twoclocks' event-time TTL, up to the session's \
                                           inclusive merging rule)",
                        TtlTime::Processing =>
                            "; twoclocks' TTL here runs on processing time, \
                                                which Kafka Streams cannot",
                    }
                ),
            );
            out.line(format!("{I}KTable<Windowed<String>, Long> counts = events"));
            out.line(format!("{I}        .groupByKey()"));
            out.line(format!(
                "{I}        .windowedBy(SessionWindows.ofInactivityGapWithNoGrace({}))",
                java_duration(ms as f64)
            ));
            out.line(format!("{I}        .count();"));
            accumulation(out, p);
            out.comment(I, C, "Each segment's final count, once its session closes.");
            out.line(format!(
                "{I}counts.suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()))"
            ));
            out.line(format!("{I}        .toStream()"));
            out.line(format!("{I}        .to(\"final-counts\");"));
            early(out, p, "counts");
        }
    }
}
