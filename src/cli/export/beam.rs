//! The policy as Beam Java code: KafkaIO with a timestamp policy for the watermark,
//! `Window.into` with the window function, `AfterWatermark.pastEndOfWindow()` with early and
//! late firings, `withAllowedLateness` and the accumulation mode.

use super::{
    joda_duration, measured_note, nearest_lag, offset_note, rounding_note, shape, summary, whole,
    Code, Policy, Shape,
};
use crate::engine::duration::Duration;
use crate::engine::trigger::{ClosingBehavior, OnTimeBehavior};
use crate::engine::window::{Ttl, TtlTime};
use crate::engine::{Accumulation, WindowFn};

const C: &str = "//";
const I: &str = "        ";
/// The indent of the trigger's own chain.
const T: &str = "                                ";

pub(super) fn write(out: &mut Code, p: &Policy) {
    let c = &p.config;
    out.line("// twoclocks export --to beam");
    out.comment("", C, &format!("Policy: {}.", summary(p)));
    out.comment(
        "",
        C,
        "Beam Java SDK, reading Kafka with KafkaIO. `Event` is your record type with `long \
         eventTimeMs` (ms since the epoch) and `String key`; EventDeserializer reads it. The \
         pipeline counts events per key and window. Beam's rules match twoclocks' where no \
         comment says otherwise: windows are [start, end), a window fires ON_TIME once the \
         watermark reaches its end, and an event is dropped once the watermark reaches end + \
         allowed lateness.",
    );
    out.blank();
    imports(out, p);
    out.blank();
    out.line("public final class TwoclocksPolicy {");
    out.blank();
    out.line("    public static PCollection<KV<String, Long>> apply(Pipeline pipeline) {");
    out.line(format!("{I}PCollection<Event> events = pipeline"));
    out.line(format!("{I}        .apply(KafkaIO.<String, Event>read()"));
    out.line(format!(
        "{I}                .withBootstrapServers(\"localhost:9092\")"
    ));
    out.line(format!("{I}                .withTopic(\"events\")"));
    out.line(format!(
        "{I}                .withKeyDeserializer(StringDeserializer.class)"
    ));
    out.line(format!(
        "{I}                .withValueDeserializer(EventDeserializer.class)"
    ));
    watermark(out, p);
    out.line(format!("{I}                .withoutMetadata())"));
    out.line(format!("{I}        .apply(Values.create());"));
    out.line(format!("{I}return events"));
    window(out, p);
    out.line(format!(
        "{I}        .apply(MapElements.into(TypeDescriptors.strings()).via((Event event) -> event.key))"
    ));
    out.line(format!("{I}        .apply(Count.perElement());"));
    out.line("    }");
    policy_class(out, p);
    out.line("}");
    let _ = c;
}

fn imports(out: &mut Code, p: &Policy) {
    let c = &p.config;
    let mut lines = vec![
        "org.apache.beam.sdk.Pipeline",
        "org.apache.beam.sdk.io.kafka.KafkaIO",
        "org.apache.beam.sdk.transforms.Count",
        "org.apache.beam.sdk.transforms.MapElements",
        "org.apache.beam.sdk.transforms.Values",
        "org.apache.beam.sdk.transforms.windowing.Window",
        "org.apache.beam.sdk.values.KV",
        "org.apache.beam.sdk.values.PCollection",
        "org.apache.beam.sdk.values.TypeDescriptors",
        "org.apache.kafka.common.serialization.StringDeserializer",
        "org.joda.time.Duration",
    ];
    match shape(c.watermark) {
        Shape::EventTimeBound { .. } => {
            lines.extend([
                "org.apache.beam.sdk.io.kafka.CustomTimestampPolicyWithLimitedDelay",
                "org.joda.time.Instant",
            ]);
        }
        Shape::LargestDelay | Shape::ProcessingLag { .. } | Shape::Quantile { .. } => {
            lines.extend([
                "java.util.Optional",
                "org.apache.beam.sdk.io.kafka.KafkaRecord",
                "org.apache.beam.sdk.io.kafka.TimestampPolicy",
                "org.apache.beam.sdk.transforms.windowing.BoundedWindow",
                "org.joda.time.Instant",
            ])
        }
    }
    if matches!(shape(c.watermark), Shape::Quantile { .. }) {
        lines.push("java.util.Arrays");
    }
    match c.window {
        WindowFn::Tumbling { .. } => {
            lines.push("org.apache.beam.sdk.transforms.windowing.FixedWindows")
        }
        WindowFn::Sliding { .. } => {
            lines.push("org.apache.beam.sdk.transforms.windowing.SlidingWindows")
        }
        WindowFn::Session { .. } => lines.push("org.apache.beam.sdk.transforms.windowing.Sessions"),
        WindowFn::Global { .. } => {
            lines.push("org.apache.beam.sdk.transforms.windowing.GlobalWindows")
        }
    }
    if c.window.is_global() {
        if c.early.is_some() {
            lines.extend([
                "org.apache.beam.sdk.transforms.windowing.AfterProcessingTime",
                "org.apache.beam.sdk.transforms.windowing.Repeatedly",
            ]);
        }
    } else {
        lines.push("org.apache.beam.sdk.transforms.windowing.AfterWatermark");
        if c.early.is_some() {
            lines.push("org.apache.beam.sdk.transforms.windowing.AfterProcessingTime");
        }
        if c.grace > 0.0 {
            lines.push("org.apache.beam.sdk.transforms.windowing.AfterPane");
        }
    }
    lines.sort_by_key(|l| (!l.starts_with("java"), *l));
    lines.dedup();
    for l in lines {
        out.line(format!("import {l};"));
    }
}

/// The `.withTimestampPolicyFactory(...)` line: the watermark.
fn watermark(out: &mut Code, p: &Policy) {
    const J: &str = "                        ";
    match shape(p.config.watermark) {
        Shape::EventTimeBound { bound } => {
            out.comment(
                J,
                C,
                &format!(
                    "bounded:{b}: KafkaIO's limited-delay policy holds each partition's \
                     watermark at the highest event time seen − {b}, as twoclocks does.",
                    b = Duration::short(bound)
                ),
            );
            out.differs(
                J,
                C,
                "the policy caps its watermark at wall clock − the bound (an event time from the \
                 future moves it no further), and when the partition has no backlog and the \
                 reader's last backlog check − the bound is past the highest event time seen, \
                 the watermark moves on to that check time − the bound; twoclocks has neither.",
            );
            rounding_note(out, J, C, "the bound", bound);
            out.line(format!(
                "{J}.withTimestampPolicyFactory((partition, previousWatermark) ->"
            ));
            out.line(format!(
                "{J}        new CustomTimestampPolicyWithLimitedDelay<String, Event>("
            ));
            out.line(format!(
                "{J}                record -> new Instant(record.getKV().getValue().eventTimeMs),"
            ));
            out.line(format!("{J}                {},", joda_duration(bound)));
            out.line(format!("{J}                previousWatermark))"));
        }
        Shape::Quantile { q, n } => {
            if let Some(note) = measured_note(p) {
                out.differs(J, C, &note);
            }
            out.comment(
                J,
                C,
                &format!(
                    "A custom TimestampPolicy runs the same rule: QuantileOfDelays keeps the \
                     last {n} delays (wall clock at arrival − event time) and answers wall \
                     clock − their {q} quantile."
                ),
            );
            out.line(format!(
                "{J}.withTimestampPolicyFactory((partition, previousWatermark) ->"
            ));
            out.line(format!(
                "{J}        new QuantileOfDelays({q}, {n}, previousWatermark))"
            ));
            out.differs(
                J,
                C,
                "twoclocks' processing time is the log's arrival time and moves at every \
                 event; here it is the reader's wall clock when the runner asks.",
            );
        }
        Shape::LargestDelay | Shape::ProcessingLag { .. } => {
            if let Some(note) = measured_note(p) {
                out.differs(J, C, &note);
            }
            let lag = nearest_lag(p);
            out.comment(
                J,
                C,
                &format!(
                    "A processing-time lag: Beam has no built-in policy for it (the \
                     limited-delay policy is event-time: twoclocks' bounded:B). \
                     ProcessingTimeLag below answers wall clock − {}.",
                    Duration::short(lag)
                ),
            );
            rounding_note(out, J, C, "the lag", lag);
            out.line(format!(
                "{J}.withTimestampPolicyFactory((partition, previousWatermark) ->"
            ));
            out.line(format!(
                "{J}        new ProcessingTimeLag({}, previousWatermark))",
                joda_duration(lag)
            ));
            out.differs(
                J,
                C,
                "twoclocks' processing time is the log's arrival time and moves at every \
                 event; here it is the reader's wall clock when the runner asks.",
            );
        }
    }
    if let Some(t) = p.idle_timeout {
        let how = match shape(p.config.watermark) {
            Shape::EventTimeBound { bound } => format!(
                "the limited-delay policy's rule above stands in: a silent partition stops \
                 holding the watermark back once the wall clock (at the reader's backlog check) \
                 is more than {b} past its highest event time, not {t} after its last record",
                b = Duration::short(bound),
                t = Duration::short(t)
            ),
            Shape::Quantile { .. } => "none is needed: the policy below answers from \
                 the wall clock whether or not the partition has new records (once it has read \
                 one), so a silent partition does not hold the watermark back"
                .to_string(),
            Shape::LargestDelay | Shape::ProcessingLag { .. } => {
                "none is needed: the policy below answers from the wall clock \
                 whether or not \
                 the partition has records, so a silent partition does not hold the watermark \
                 back"
                    .to_string()
            }
        };
        out.differs(
            J,
            C,
            &format!(
                "--idle-timeout {}: KafkaIO has no idle timeout to set; {how}.",
                Duration::short(t)
            ),
        );
    }
}

fn window(out: &mut Code, p: &Policy) {
    let c = &p.config;
    let offset = c.window.offset();
    if offset != 0 {
        out.comment("                ", C, &offset_note(offset));
    }
    // Beam takes an offset from 0 to the period, as twoclocks keeps it; none when it is 0.
    let with_offset = match offset {
        0 => String::new(),
        o => format!(".withOffset({})", joda_duration(o as f64)),
    };
    let into = match c.window {
        WindowFn::Tumbling { size, .. } => format!(
            "FixedWindows.of({}){with_offset}",
            joda_duration(size as f64)
        ),
        WindowFn::Sliding { size, slide, .. } => format!(
            "SlidingWindows.of({}).every({}){with_offset}",
            joda_duration(size as f64),
            joda_duration(slide as f64)
        ),
        WindowFn::Session { gap } => {
            out.comment(
                "                ",
                C,
                &format!(
                    "Sessions as in twoclocks: each event opens [t, t + {}), overlapping windows \
                     merge, windows that only touch do not.",
                    Duration::short(gap as f64)
                ),
            );
            format!("Sessions.withGapDuration({})", joda_duration(gap as f64))
        }
        WindowFn::Global { ttl } => {
            if let Some(Ttl { ms, time }) = ttl {
                out.differs(
                    "                ",
                    C,
                    &format!(
                        "--ttl {}: Beam has no state TTL on a window. The nearest is \
                         Sessions.withGapDuration({}): a key's count restarts after that much \
                         event time without events{}.",
                        Duration::short(ms as f64),
                        joda_duration(ms as f64),
                        match time {
                            TtlTime::Event =>
                                " (twoclocks' event-time TTL, up to the \
                                               session's touching rule and late events)",
                            TtlTime::Processing =>
                                "; twoclocks' TTL here runs on processing \
                                                    time, which Beam's windows cannot",
                        }
                    ),
                );
            }
            "new GlobalWindows()".to_string()
        }
    };
    out.line(format!("{I}        .apply(Window.<Event>into({into})"));
    triggering(out, p);
    accumulation(out, p);
}

fn triggering(out: &mut Code, p: &Policy) {
    let c = &p.config;
    const J: &str = "                        ";
    if c.window.is_global() {
        match c.early {
            Some(every) => {
                early_note(out, J, every);
                out.line(format!(
                    "{J}.triggering(Repeatedly.forever(AfterProcessingTime.pastFirstElementInPane()"
                ));
                out.line(format!(
                    "{J}        .plusDelayOf({})))",
                    joda_duration(every)
                ));
            }
            None => out.comment(
                J,
                C,
                "No --early: twoclocks emits the global counts at the end of input only; so does \
                 Beam's default trigger on a bounded input (on an unbounded one, Beam refuses \
                 the default trigger in the global window: give --early).",
            ),
        }
        if c.grace > 0.0 {
            out.comment(
                J,
                C,
                "The global window never ends, so no event is late and the grace does not apply \
                 (as in twoclocks).",
            );
        }
        out.line(format!("{J}.withAllowedLateness(Duration.ZERO)"));
        return;
    }
    out.line(format!("{J}.triggering(AfterWatermark.pastEndOfWindow()"));
    if let Some(every) = c.early {
        early_note(out, T, every);
        out.line(format!(
            "{J}        .withEarlyFirings(AfterProcessingTime.pastFirstElementInPane()"
        ));
        out.line(format!(
            "{J}                .plusDelayOf({}))",
            joda_duration(every)
        ));
    }
    if c.grace > 0.0 {
        out.comment(
            T,
            C,
            "One LATE pane per late event, as twoclocks emits one per arrival that changes a \
             fired window.",
        );
        out.line(format!(
            "{J}        .withLateFirings(AfterPane.elementCountAtLeast(1)))"
        ));
    } else {
        let last = out.text.pop();
        debug_assert_eq!(last, Some('\n'));
        out.line(")");
    }
    if c.grace.is_infinite() {
        out.comment(
            J,
            C,
            "--grace inf: nothing is ever dropped; Beam caps the garbage-collection time at the \
             end of the global window, so window state is never freed, as in twoclocks.",
        );
        out.line(format!(
            "{J}.withAllowedLateness(Duration.millis(Long.MAX_VALUE))"
        ));
    } else {
        out.comment(
            J,
            C,
            &format!(
                "Dropped once the watermark reaches end + {g} (Beam: maxTimestamp + lateness < \
                 watermark, maxTimestamp = end − 1), as in twoclocks. Beam counts drops in \
                 droppedDueToLateness and has no side output for them.",
                g = Duration::short(c.grace)
            ),
        );
        rounding_note(out, J, C, "--grace", c.grace);
        match c.empty_panes.closing {
            ClosingBehavior::FireIfNonEmpty => out.line(format!(
                "{J}.withAllowedLateness({})",
                joda_duration(c.grace)
            )),
            ClosingBehavior::FireAlways => {
                out.comment(
                    J,
                    C,
                    "--closing fire-always: at garbage collection each window emits a last pane, \
                     empty if nothing came since its last, as twoclocks does.",
                );
                out.line(format!(
                    "{J}.withAllowedLateness({}, Window.ClosingBehavior.FIRE_ALWAYS)",
                    joda_duration(c.grace)
                ));
            }
        }
    }
    if c.empty_panes.on_time == OnTimeBehavior::FireIfNonEmpty {
        out.comment(
            J,
            C,
            "--on-time fire-if-non-empty: no ON_TIME pane when nothing came since the last \
             early pane, as twoclocks does.",
        );
        out.line(format!(
            "{J}.withOnTimeBehavior(Window.OnTimeBehavior.FIRE_IF_NON_EMPTY)"
        ));
    }
}

fn early_note(out: &mut Code, indent: &str, every: f64) {
    out.differs(
        indent,
        C,
        &format!(
            "Beam's early pane comes {e} after the first event of a pane, and the next timer \
             waits for the next event; twoclocks re-arms at {e} after each firing whether or not \
             events came, so a quiet window keeps emitting unchanged EARLY panes.",
            e = Duration::short(every)
        ),
    );
    rounding_note(out, indent, C, "--early", every);
    let _ = whole;
}

fn accumulation(out: &mut Code, p: &Policy) {
    const J: &str = "                        ";
    match p.config.accumulation {
        Accumulation::Accumulating => out.line(format!("{J}.accumulatingFiredPanes())")),
        Accumulation::Discarding => out.line(format!("{J}.discardingFiredPanes())")),
        Accumulation::Retracting => {
            out.differs(
                J,
                C,
                "Beam has no retractions: RETRACTING_FIRED_PANES is in the model but no runner \
                 implements it. Panes carry the whole value so far; keep the last per window and \
                 key downstream (an upsert on the pane's window and key).",
            );
            out.line(format!("{J}.accumulatingFiredPanes())"));
        }
    }
}

fn policy_class(out: &mut Code, p: &Policy) {
    match shape(p.config.watermark) {
        Shape::EventTimeBound { .. } => {}
        Shape::Quantile { .. } => {
            out.blank();
            out.line("    /** Wall clock − the quantile of the last n delays (wall clock at arrival − event time). */");
            out.line("    public static final class QuantileOfDelays extends TimestampPolicy<String, Event> {");
            out.line("        private final double q;");
            out.line("        private final long[] delays;");
            out.line("        private int held;");
            out.line("        private int next;");
            out.line("        private Instant watermark;");
            out.blank();
            out.line("        public QuantileOfDelays(double q, int n, Optional<Instant> previousWatermark) {");
            out.line("            this.q = q;");
            out.line("            this.delays = new long[n];");
            out.line("            this.watermark = previousWatermark.orElse(BoundedWindow.TIMESTAMP_MIN_VALUE);");
            out.line("        }");
            out.blank();
            out.line("        @Override");
            out.line("        public Instant getTimestampForRecord(PartitionContext ctx, KafkaRecord<String, Event> record) {");
            out.line("            long eventTime = record.getKV().getValue().eventTimeMs;");
            out.line("            delays[next] = System.currentTimeMillis() - eventTime;");
            out.line("            next = (next + 1) % delays.length;");
            out.line("            held = Math.min(held + 1, delays.length);");
            out.line("            return new Instant(eventTime);");
            out.line("        }");
            out.blank();
            out.line("        @Override");
            out.line("        public Instant getWatermark(PartitionContext ctx) {");
            out.line("            if (held > 0) {");
            out.line("                long[] sorted = Arrays.copyOf(delays, held);");
            out.line("                Arrays.sort(sorted);");
            out.line("                Instant estimate = Instant.now().minus(Duration.millis(sorted[(int) (q * (held - 1))]));");
            out.line("                if (estimate.isAfter(watermark)) {");
            out.line(
                "                    watermark = estimate; // held monotone, as twoclocks holds it",
            );
            out.line("                }");
            out.line("            }");
            out.line("            return watermark;");
            out.line("        }");
            out.line("    }");
        }
        Shape::LargestDelay | Shape::ProcessingLag { .. } => {
            out.blank();
            out.line(
                "    /** Wall clock − a fixed lag: a watermark that trails processing time. */",
            );
            out.line("    public static final class ProcessingTimeLag extends TimestampPolicy<String, Event> {");
            out.line("        private final Duration lag;");
            out.line("        private Instant watermark;");
            out.blank();
            out.line("        public ProcessingTimeLag(Duration lag, Optional<Instant> previousWatermark) {");
            out.line("            this.lag = lag;");
            out.line("            this.watermark = previousWatermark.orElse(BoundedWindow.TIMESTAMP_MIN_VALUE);");
            out.line("        }");
            out.blank();
            out.line("        @Override");
            out.line("        public Instant getTimestampForRecord(PartitionContext ctx, KafkaRecord<String, Event> record) {");
            out.line("            return new Instant(record.getKV().getValue().eventTimeMs);");
            out.line("        }");
            out.blank();
            out.line("        @Override");
            out.line("        public Instant getWatermark(PartitionContext ctx) {");
            out.line("            Instant estimate = Instant.now().minus(lag);");
            out.line("            if (estimate.isAfter(watermark)) {");
            out.line("                watermark = estimate;");
            out.line("            }");
            out.line("            return watermark;");
            out.line("        }");
            out.line("    }");
        }
    }
}
