//! The policy as Flink DataStream code (Java, Flink 1.19 or later: `java.time.Duration`
//! throughout): a `WatermarkStrategy`, the window assigner, `allowedLateness`, a side output
//! for dropped events, a trigger for early panes and the accumulation mode; the global window
//! as a `KeyedProcessFunction` whose state has a TTL.

use super::{
    java_duration, measured_note, nearest_lag, offset_note, rounding_note, shape, summary, whole,
    Code, CsvLog, Policy, Shape, Source,
};
use crate::engine::duration::Duration;
use crate::engine::window::{Ttl, TtlTime};
use crate::engine::{Accumulation, WindowFn};

const C: &str = "//";
/// The indent of a comment inside a method chain.
const K: &str = "                ";

pub(super) fn write(out: &mut Code, p: &Policy) {
    let c = &p.config;
    out.line("// twoclocks export --to flink");
    out.comment("", C, &format!("Policy: {}.", summary(p)));
    out.comment(
        "",
        C,
        "Flink 1.19 or later (DataStream API): the window assigners, allowedLateness and \
         StateTtlConfig take java.time.Duration from 1.19 (Flink's Time is deprecated there and \
         gone in 2.x), and open(OpenContext) is 1.19's too. `Event` is your record type with \
         `long eventTimeMs` (ms since the epoch) and `String key`; the job counts events per key \
         and window.",
    );
    if let Source::File(log) = &p.source {
        out.comment(
            "",
            C,
            &format!(
                "A backfill from the log {}: main reads it with a FileSource, one row per line \
                 (CSV, event times in ms since the epoch, no quoted fields), runs the policy at \
                 parallelism 1 and prints each pane (`pane KEY START END COUNT WATERMARK`) and \
                 each dropped event (`dropped KEY EVENT_TIME_MS`). `Event` is defined below.",
                log.path
            ),
        );
    }
    out.blank();
    imports(out, p);
    out.blank();
    out.line("public final class TwoclocksPolicy {");
    out.blank();
    match c.window {
        WindowFn::Global { ttl } => global(out, p, ttl),
        WindowFn::Tumbling { .. } | WindowFn::Sliding { .. } | WindowFn::Session { .. } => {
            windowed(out, p)
        }
    }
    watermark_class(out, p);
    if let Source::File(log) = &p.source {
        file_job(out, p, log);
    }
    out.line("}");
}

/// Whether the policy reads the log and its watermark is the bounded one, moved at every row.
fn every_row(p: &Policy) -> bool {
    matches!(p.source, Source::File(_))
        && matches!(shape(p.config.watermark), Shape::EventTimeBound { .. })
}

/// A Java string literal.
fn java_string(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// `main` over the log, the `Event` it parses, the window function that prints a pane, and
/// the per-row bounded watermark.
fn file_job(out: &mut Code, p: &Policy, log: &CsvLog) {
    let windowed = !matches!(p.config.window, WindowFn::Global { .. });
    let at = |name: &str| log.columns.iter().position(|c| c == name).unwrap_or(0);
    let header = log.columns.join(",");
    out.line("    /** Runs the policy over the log and prints what it emits. */");
    out.line("    public static void main(String[] args) throws Exception {");
    out.line("        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();");
    out.line("        env.setParallelism(1);");
    out.line(format!(
        "        FileSource<String> log = FileSource.forRecordStreamFormat(new TextLineInputFormat(), new Path({})).build();",
        java_string(&log.path)
    ));
    out.line("        DataStream<Event> events = env");
    out.line("                .fromSource(log, WatermarkStrategy.noWatermarks(), \"log\")");
    out.line(format!(
        "                .filter(line -> !line.isBlank() && !line.equals({}))",
        java_string(&header)
    ));
    out.line("                .map(Event::parse)");
    out.line("                .returns(Event.class);");
    if windowed {
        out.line("        SingleOutputStreamOperator<String> panes = apply(events);");
        out.line("        panes.print();");
        out.line("        panes.getSideOutput(DROPPED).print();");
    } else {
        out.line("        apply(events).print();");
    }
    out.line(format!(
        "        env.execute({});",
        java_string(&format!("twoclocks policy over {}", log.path))
    ));
    out.line("    }");
    out.blank();
    out.line("    /** A row of the log: its event time (ms since the epoch) and key. */");
    out.line("    public static final class Event {");
    out.line("        public long eventTimeMs;");
    out.line("        public String key;");
    out.blank();
    out.line("        public Event() {}");
    out.blank();
    out.comment(
        "        ",
        C,
        "A row that does not parse fails the job, naming the value, as twoclocks stops at it.",
    );
    out.line("        public static Event parse(String line) {");
    out.line("            String[] fields = line.split(\",\", -1);");
    out.line("            Event event = new Event();");
    out.line(format!(
        "            event.eventTimeMs = Long.parseLong(fields[{}].trim());",
        at(&log.event_time)
    ));
    out.line(format!("            event.key = fields[{}];", at(&log.key)));
    out.line("            return event;");
    out.line("        }");
    out.blank();
    out.line("        @Override");
    out.line("        public String toString() {");
    out.line("            return \"dropped \" + key + \" \" + eventTimeMs;");
    out.line("        }");
    out.line("    }");
    out.blank();
    if windowed {
        out.line("    /** A pane as a line: key, window start and end (ms), count, the watermark at the firing. */");
        out.line("    public static final class Pane extends ProcessWindowFunction<Long, String, String, TimeWindow> {");
        out.line("        @Override");
        out.line("        public void process(String key, Context ctx, Iterable<Long> counts, Collector<String> out) {");
        out.line("            out.collect(\"pane \" + key + \" \" + ctx.window().getStart() + \" \" + ctx.window().getEnd()");
        out.line("                    + \" \" + counts.iterator().next() + \" \" + ctx.currentWatermark());");
        out.line("        }");
        out.line("    }");
        out.blank();
    }
    if every_row(p) {
        out.line("    /** The highest event time seen − B − 1 (BoundedOutOfOrderness), after every row. */");
        out.line(
            "    public static final class EveryRowBounded implements WatermarkGenerator<Event> {",
        );
        out.line("        private final long bound;");
        out.line("        private long max;");
        out.blank();
        out.line("        public EveryRowBounded(long bound) {");
        out.line("            this.bound = bound;");
        out.line("            this.max = Long.MIN_VALUE + bound + 1;");
        out.line("        }");
        out.blank();
        out.line("        @Override");
        out.line("        public void onEvent(Event event, long eventTimestamp, WatermarkOutput output) {");
        out.line("            max = Math.max(max, eventTimestamp);");
        out.line("            output.emitWatermark(new Watermark(max - bound - 1));");
        out.line("        }");
        out.blank();
        out.line("        @Override");
        out.line("        public void onPeriodicEmit(WatermarkOutput output) {}");
        out.line("    }");
        out.blank();
    }
}

fn imports(out: &mut Code, p: &Policy) {
    let c = &p.config;
    let mut lines = vec![
        "java.time.Duration",
        "org.apache.flink.api.common.eventtime.WatermarkStrategy",
    ];
    match shape(c.watermark) {
        Shape::EventTimeBound { .. } => {}
        Shape::LargestDelay | Shape::ProcessingLag { .. } | Shape::Quantile { .. } => {
            lines.extend([
                "org.apache.flink.api.common.eventtime.Watermark",
                "org.apache.flink.api.common.eventtime.WatermarkGenerator",
                "org.apache.flink.api.common.eventtime.WatermarkOutput",
            ])
        }
    }
    if matches!(shape(c.watermark), Shape::Quantile { .. }) {
        lines.push("java.util.Arrays");
    }
    lines.extend([
        "org.apache.flink.streaming.api.datastream.DataStream",
        "org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator",
    ]);
    match c.window {
        WindowFn::Global { ttl } => {
            lines.extend([
                "org.apache.flink.api.common.state.ValueState",
                "org.apache.flink.api.common.state.ValueStateDescriptor",
                "org.apache.flink.api.common.functions.OpenContext",
                "org.apache.flink.streaming.api.functions.KeyedProcessFunction",
                "org.apache.flink.util.Collector",
            ]);
            let event_ttl = ttl.is_some_and(|t| t.time == TtlTime::Event);
            if c.early.is_some() || event_ttl {
                lines.push("org.apache.flink.api.common.typeinfo.Types");
            }
            if event_ttl {
                lines.push("org.apache.flink.streaming.api.TimeDomain");
            } else if ttl.is_some() {
                lines.push("org.apache.flink.api.common.state.StateTtlConfig");
            }
        }
        w @ (WindowFn::Tumbling { .. } | WindowFn::Sliding { .. } | WindowFn::Session { .. }) => {
            lines.extend([
                "org.apache.flink.api.common.functions.AggregateFunction",
                "org.apache.flink.util.OutputTag",
            ]);
            lines.extend(assigner_class(w));
            if c.early.is_some() {
                lines.extend([
                    "org.apache.flink.streaming.api.windowing.windows.TimeWindow",
                    "org.apache.flink.api.common.functions.ReduceFunction",
                    "org.apache.flink.api.common.state.ReducingState",
                    "org.apache.flink.api.common.state.ReducingStateDescriptor",
                    "org.apache.flink.api.common.typeutils.base.LongSerializer",
                    "org.apache.flink.streaming.api.windowing.triggers.Trigger",
                    "org.apache.flink.streaming.api.windowing.triggers.TriggerResult",
                ]);
            } else if c.accumulation == Accumulation::Discarding {
                lines.extend([
                    "org.apache.flink.streaming.api.windowing.triggers.EventTimeTrigger",
                    "org.apache.flink.streaming.api.windowing.triggers.PurgingTrigger",
                ]);
            }
        }
    }
    if let Source::File(_) = p.source {
        lines.extend([
            "org.apache.flink.connector.file.src.FileSource",
            "org.apache.flink.connector.file.src.reader.TextLineInputFormat",
            "org.apache.flink.core.fs.Path",
            "org.apache.flink.streaming.api.environment.StreamExecutionEnvironment",
        ]);
        if !matches!(c.window, WindowFn::Global { .. }) {
            lines.extend([
                "org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction",
                "org.apache.flink.streaming.api.windowing.windows.TimeWindow",
                "org.apache.flink.util.Collector",
            ]);
        }
        if every_row(p) {
            lines.extend([
                "org.apache.flink.api.common.eventtime.Watermark",
                "org.apache.flink.api.common.eventtime.WatermarkGenerator",
                "org.apache.flink.api.common.eventtime.WatermarkOutput",
            ]);
        }
    }
    lines.sort_by_key(|l| (!l.starts_with("java"), *l));
    lines.dedup();
    for l in lines {
        out.line(format!("import {l};"));
    }
}

/// The class of Flink's window assigner for `w`; the global window has none (a running count
/// in a keyed process function).
fn assigner_class(w: WindowFn) -> Option<&'static str> {
    match w {
        WindowFn::Tumbling { .. } => {
            Some("org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows")
        }
        WindowFn::Sliding { .. } => {
            Some("org.apache.flink.streaming.api.windowing.assigners.SlidingEventTimeWindows")
        }
        WindowFn::Session { .. } => {
            Some("org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows")
        }
        WindowFn::Global { .. } => None,
    }
}

/// The `WatermarkStrategy` statement, indented for a method body.
fn strategy(out: &mut Code, p: &Policy) {
    let c = &p.config;
    const I: &str = "        ";
    out.line(format!(
        "{I}WatermarkStrategy<Event> watermarks = WatermarkStrategy"
    ));
    match shape(c.watermark) {
        Shape::EventTimeBound { bound } => {
            out.comment(
                K,
                C,
                &format!(
                    "bounded:{} is exactly this: the highest event time seen − {}. Flink emits \
                     max − B − 1 (its watermark t promises no more timestamps ≤ t) and fires a \
                     window at watermark ≥ end − 1: the two −1s cancel, so windows fire and \
                     drop at the same events as in twoclocks.",
                    Duration::short(bound),
                    Duration::short(bound)
                ),
            );
            rounding_note(out, K, C, "the bound", bound);
            if every_row(p) {
                out.comment(
                    K,
                    C,
                    "A file is read faster than the periodic emitter's 200 ms: which rows come \
                     late would depend on the read's speed. EveryRowBounded below emits the same \
                     max − B − 1 after every row instead, as twoclocks moves its watermark at \
                     every event, so each backfill gives the same panes.",
                );
                out.line(format!(
                    "{I}        .<Event>forGenerator(ctx -> new EveryRowBounded({}L))",
                    whole(bound)
                ));
            } else {
                out.differs(
                    K,
                    C,
                    "Flink emits the watermark every pipeline.auto-watermark-interval (200 ms by \
                     default) of wall-clock time; twoclocks moves it at every event.",
                );
                out.line(format!(
                    "{I}        .<Event>forBoundedOutOfOrderness({})",
                    java_duration(bound)
                ));
            }
        }
        Shape::Quantile { q, n } => {
            if let Some(note) = measured_note(p) {
                out.differs(I, C, &note);
            }
            out.comment(
                K,
                C,
                &format!(
                    "Flink's WatermarkGenerator lets user code run the same rule: \
                     QuantileOfDelays below keeps the last {n} delays (wall clock at \
                     arrival − event time) and emits wall clock − their {q} quantile."
                ),
            );
            out.differs(
                K,
                C,
                "twoclocks' processing time is the log's arrival time and the estimate \
                 is taken at each arrival; here it is the source task's wall clock, \
                 read every auto-watermark interval.",
            );
            out.line(format!(
                "{I}        .<Event>forGenerator(ctx -> new QuantileOfDelays({q}, {n}))"
            ));
        }
        Shape::LargestDelay | Shape::ProcessingLag { .. } => {
            if let Some(note) = measured_note(p) {
                out.differs(I, C, &note);
            }
            let lag = nearest_lag(p);
            out.comment(
                K,
                C,
                &format!(
                    "A processing-time lag: Flink has no built-in strategy for it (its \
                     forBoundedOutOfOrderness is event-time: that is twoclocks' \
                     bounded:B). ProcessingTimeLag below is the generator Flink's \
                     documentation sketches (TimeLagWatermarkGenerator): wall clock − \
                     {}.",
                    Duration::short(lag)
                ),
            );
            out.differs(
                K,
                C,
                "twoclocks' processing time is the log's arrival time (proc_time_ms) and \
                 moves at every event; here it is the source task's wall clock, read \
                 every auto-watermark interval. On a replayed log the two are not the \
                 same clock.",
            );
            rounding_note(out, K, C, "the lag", lag);
            out.line(format!(
                "{I}        .<Event>forGenerator(ctx -> new ProcessingTimeLag({}L))",
                whole(lag)
            ));
        }
    }
    out.line(format!(
        "{I}        .withTimestampAssigner((event, previous) -> event.eventTimeMs)"
    ));
    match p.idle_timeout {
        Some(t) => {
            out.differs(
                K,
                C,
                &format!(
                    "twoclocks marks a partition idle {} after its last record; Flink checks at \
                     each periodic emit, so no earlier than that and up to three \
                     auto-watermark intervals later.",
                    Duration::short(t)
                ),
            );
            out.line(format!("{I}        .withIdleness({});", java_duration(t)));
        }
        None => {
            let last = out.text.pop();
            debug_assert_eq!(last, Some('\n'));
            out.line(";");
            out.comment(
                I,
                C,
                "No idleness (no --idle-timeout): a silent partition holds the watermark back, \
                 as in twoclocks. Add .withIdleness(...) to move on without it.",
            );
        }
    }
}

fn windowed(out: &mut Code, p: &Policy) {
    let c = &p.config;
    const I: &str = "        ";
    out.line(
        "    /** Events dropped for lateness: twoclocks' dropped events, with their window. */",
    );
    out.line(
        "    public static final OutputTag<Event> DROPPED = new OutputTag<Event>(\"dropped\") {};",
    );
    out.blank();
    keyed_events(out, p);
    out.comment(
        K,
        C,
        "Windows are [start, end) as in twoclocks; Flink's window.maxTimestamp() is end − 1.",
    );
    let offset = c.window.offset();
    if offset != 0 {
        out.comment(
            K,
            C,
            &format!(
                "{} Flink's offset moves each window's start (TimeWindow.\
                 getWindowStartWithOffset), as twoclocks' does.",
                offset_note(offset)
            ),
        );
    }
    // Flink's assigners take the offset as a last argument, none when it is 0.
    let and_offset = match offset {
        0 => String::new(),
        o => format!(", {}", java_duration(o as f64)),
    };
    match c.window {
        WindowFn::Tumbling { size, .. } => out.line(format!(
            "{I}        .window(TumblingEventTimeWindows.of({}{and_offset}))",
            java_duration(size as f64)
        )),
        WindowFn::Sliding { size, slide, .. } => out.line(format!(
            "{I}        .window(SlidingEventTimeWindows.of({}, {}{and_offset}))",
            java_duration(size as f64),
            java_duration(slide as f64)
        )),
        WindowFn::Session { gap } => {
            out.differs(
                K,
                C,
                &format!(
                    "each event opens [t, t + {g}) and overlapping windows merge, as in \
                     twoclocks, but Flink also merges windows that only touch: two events \
                     exactly {g} apart are one session here, two in twoclocks (and Beam). \
                     And Flink tests lateness on the session an event merges into \
                     (WindowOperator.isWindowLate after merging), twoclocks and Beam on the \
                     event's own [t, t + {g}): a late event that joins a session still open \
                     is kept here where twoclocks drops it. `twoclocks run --conventions \
                     flink` runs Flink's rules.",
                    g = Duration::short(gap as f64)
                ),
            );
            out.line(format!(
                "{I}        .window(EventTimeSessionWindows.withGap({}))",
                java_duration(gap as f64)
            ));
        }
        WindowFn::Global { .. } => {}
    }
    trigger_line(out, p);
    if c.grace.is_infinite() {
        out.comment(
            K,
            C,
            "--grace inf: nothing is ever dropped; Flink's cleanup time saturates at \
             Long.MAX_VALUE, so window state is never freed, as in twoclocks.",
        );
        out.line(format!(
            "{I}        .allowedLateness(Duration.ofMillis(Long.MAX_VALUE))"
        ));
    } else {
        out.comment(
            K,
            C,
            &format!(
                "Flink drops an event for a window when window.maxTimestamp() + allowedLateness \
                 <= watermark, i.e. end − 1 + {g} ≤ W; twoclocks when end + {g} ≤ W. The watermark \
                 above is 1 ms behind twoclocks' (a Flink watermark t promises no more \
                 timestamps ≤ t), so the two agree on each window as assigned.",
                g = Duration::short(c.grace)
            ),
        );
        rounding_note(out, K, C, "--grace", c.grace);
        out.line(format!(
            "{I}        .allowedLateness({})",
            java_duration(c.grace)
        ));
    }
    out.comment(
        K,
        C,
        "Dropped events go to a side output (twoclocks' dropped events), once every window of \
         the event is past its lateness.",
    );
    out.line(format!("{I}        .sideOutputLateData(DROPPED)"));
    match p.source {
        Source::Kafka => out.line(format!("{I}        .aggregate(new CountEvents());")),
        Source::File(_) => out.line(format!(
            "{I}        .aggregate(new CountEvents(), new Pane());"
        )),
    }
    out.line("    }");
    out.blank();
    out.line("    /** Counts the events of a window and key. */");
    out.line("    public static final class CountEvents implements AggregateFunction<Event, Long, Long> {");
    out.line("        @Override public Long createAccumulator() { return 0L; }");
    out.line("        @Override public Long add(Event event, Long count) { return count + 1; }");
    out.line("        @Override public Long getResult(Long count) { return count; }");
    out.line("        @Override public Long merge(Long a, Long b) { return a + b; }");
    out.line("    }");
    out.blank();
    if let Some(every) = c.early {
        early_trigger_class(out, p, every);
    }
}

/// The `.trigger(...)` line and what the accumulation mode becomes.
fn trigger_line(out: &mut Code, p: &Policy) {
    let c = &p.config;
    const I: &str = "        ";
    match c.accumulation {
        Accumulation::Accumulating => {}
        Accumulation::Discarding => out.comment(
            K,
            C,
            "Discarding: each firing purges the window's contents (FIRE_AND_PURGE), so a pane \
             carries only what arrived since the previous one.",
        ),
        Accumulation::Retracting => out.differs(
            K,
            C,
            "the DataStream API has no retractions: panes carry the whole value so far \
             (accumulating); keep the last value per window and key downstream (an upsert), or \
             use Flink SQL, whose updates are retract/insert pairs (−U/+U).",
        ),
    }
    let purge = c.accumulation == Accumulation::Discarding;
    match c.early {
        Some(every) => {
            rounding_note(out, K, C, "--early", every);
            out.line(format!(
                "{I}        .trigger(new EarlyThenOnTime({}L, {purge}))",
                whole(every)
            ));
        }
        None if purge => out.line(format!(
            "{I}        .trigger(PurgingTrigger.of(EventTimeTrigger.create()))"
        )),
        None => out.comment(
            K,
            C,
            "The default EventTimeTrigger: one ON_TIME firing when the watermark passes the \
             window, then one LATE firing per late event, as twoclocks' panes.",
        ),
    }
}

fn early_trigger_class(out: &mut Code, p: &Policy, every: f64) {
    let c = &p.config;
    let _ = c;
    out.line("    /**");
    out.line(format!(
        "     * twoclocks' trigger: EARLY firings every {} of processing time from a window and",
        Duration::short(every)
    ));
    out.line(
        "     * key's first event, re-armed after each firing whether or not new events came,",
    );
    out.line("     * until the watermark passes the window; then one ON_TIME firing, and one LATE");
    out.line("     * firing per late event. (Flink's ContinuousProcessingTimeTrigger alone would");
    out.line(
        "     * align its timers to multiples of the interval and never fire at the window's end.)",
    );
    out.line("     */");
    out.line("    public static final class EarlyThenOnTime extends Trigger<Event, TimeWindow> {");
    out.line("        private final long everyMs;");
    out.line("        private final boolean purge;");
    out.line("        private final ReducingStateDescriptor<Long> timer =");
    out.line("                new ReducingStateDescriptor<>(\"early-timer\", new Min(), LongSerializer.INSTANCE);");
    out.blank();
    out.line("        public EarlyThenOnTime(long everyMs, boolean purge) {");
    out.line("            this.everyMs = everyMs;");
    out.line("            this.purge = purge;");
    out.line("        }");
    out.blank();
    out.line("        @Override");
    out.line("        public TriggerResult onElement(Event event, long timestamp, TimeWindow window, TriggerContext ctx)");
    out.line("                throws Exception {");
    out.line("            if (window.maxTimestamp() <= ctx.getCurrentWatermark()) {");
    out.line("                return fire(); // late, within allowedLateness: a LATE firing");
    out.line("            }");
    out.line("            ctx.registerEventTimeTimer(window.maxTimestamp());");
    out.line("            ReducingState<Long> next = ctx.getPartitionedState(timer);");
    out.line("            if (next.get() == null) { // the first event: arm the early timer");
    out.line("                long at = ctx.getCurrentProcessingTime() + everyMs;");
    out.line("                next.add(at);");
    out.line("                ctx.registerProcessingTimeTimer(at);");
    out.line("            }");
    out.line("            return TriggerResult.CONTINUE;");
    out.line("        }");
    out.blank();
    out.line("        @Override");
    out.line("        public TriggerResult onProcessingTime(long time, TimeWindow window, TriggerContext ctx)");
    out.line("                throws Exception {");
    out.line("            ReducingState<Long> next = ctx.getPartitionedState(timer);");
    out.line("            Long due = next.get();");
    out.line("            if (due == null || time < due) {");
    out.line("                return TriggerResult.CONTINUE;");
    out.line("            }");
    out.line("            next.clear();");
    out.line("            if (window.maxTimestamp() <= ctx.getCurrentWatermark()) {");
    out.line(
        "                return TriggerResult.CONTINUE; // fired on time: no more early panes",
    );
    out.line("            }");
    out.line("            long at = time + everyMs; // re-armed whether or not events came since");
    out.line("            next.add(at);");
    out.line("            ctx.registerProcessingTimeTimer(at);");
    out.line("            return fire();");
    out.line("        }");
    out.blank();
    out.line("        @Override");
    out.line("        public TriggerResult onEventTime(long time, TimeWindow window, TriggerContext ctx) {");
    out.line("            return time == window.maxTimestamp() ? fire() : TriggerResult.CONTINUE;");
    out.line("        }");
    out.blank();
    out.line("        @Override");
    out.line("        public boolean canMerge() {");
    out.line("            return true;");
    out.line("        }");
    out.blank();
    out.line("        @Override");
    out.line(
        "        public void onMerge(TimeWindow window, OnMergeContext ctx) throws Exception {",
    );
    out.line(
        "            // A merged session keeps the earliest early timer of the sessions it joins.",
    );
    out.line("            ctx.mergePartitionedState(timer);");
    out.line("            Long due = ctx.getPartitionedState(timer).get();");
    out.line("            if (due != null) {");
    out.line("                ctx.registerProcessingTimeTimer(due);");
    out.line("            }");
    out.line("            if (window.maxTimestamp() > ctx.getCurrentWatermark()) {");
    out.line("                ctx.registerEventTimeTimer(window.maxTimestamp());");
    out.line("            }");
    out.line("        }");
    out.blank();
    out.line("        @Override");
    out.line("        public void clear(TimeWindow window, TriggerContext ctx) throws Exception {");
    out.line("            ReducingState<Long> next = ctx.getPartitionedState(timer);");
    out.line("            Long due = next.get();");
    out.line("            if (due != null) {");
    out.line("                ctx.deleteProcessingTimeTimer(due);");
    out.line("            }");
    out.line("            next.clear();");
    out.line("            ctx.deleteEventTimeTimer(window.maxTimestamp());");
    out.line("        }");
    out.blank();
    out.line("        private TriggerResult fire() {");
    out.line("            return purge ? TriggerResult.FIRE_AND_PURGE : TriggerResult.FIRE;");
    out.line("        }");
    out.blank();
    out.line("        private static final class Min implements ReduceFunction<Long> {");
    out.line("            @Override");
    out.line("            public Long reduce(Long a, Long b) {");
    out.line("                return Math.min(a, b);");
    out.line("            }");
    out.line("        }");
    out.line("    }");
    out.blank();
}

fn global(out: &mut Code, p: &Policy, ttl: Option<Ttl>) {
    let c = &p.config;
    let event_ttl = ttl.is_some_and(|t| t.time == TtlTime::Event);
    const I: &str = "        ";
    out.comment(
        "    ",
        C,
        "twoclocks' global window is one window per key that never closes: a running count. In \
         Flink that is keyed state in a KeyedProcessFunction (GlobalWindows would need a \
         custom trigger and has no state TTL).",
    );
    keyed_events(out, p);
    out.line(format!("{I}        .process(new RunningCount());"));
    out.line("    }");
    out.blank();
    out.line("    /** The global window: a running count per key. */");
    out.line("    public static final class RunningCount extends KeyedProcessFunction<String, Event, Long> {");
    out.line("        private transient ValueState<Long> count;");
    if c.early.is_some() {
        out.line("        private transient ValueState<Long> nextEarly;");
    }
    if event_ttl {
        out.line("        private transient ValueState<Long> latest;");
    }
    out.blank();
    out.line("        @Override");
    out.line("        public void open(OpenContext context) {");
    out.line("            ValueStateDescriptor<Long> descriptor = new ValueStateDescriptor<>(\"count\", Long.class);");
    match ttl {
        Some(Ttl {
            ms,
            time: TtlTime::Processing,
        }) => {
            out.comment(
                "            ",
                C,
                &format!(
                    "--ttl {} (processing time): Flink's state TTL is processing time only, as \
                     twoclocks' default. OnCreateAndWrite: each event restarts the clock; an \
                     expired count is never returned, so the key starts from zero.",
                    Duration::short(ms as f64)
                ),
            );
            out.differs(
                "            ",
                C,
                "Flink's expiry is silent and lazy (cleaned on access, in snapshots or \
                 compaction); twoclocks emits the expired count as a final value (one segment) \
                 when it expires.",
            );
            out.line("            descriptor.enableTimeToLive(StateTtlConfig");
            out.line(format!(
                "                    .newBuilder({})",
                java_duration(ms as f64)
            ));
            out.line(
                "                    .setUpdateType(StateTtlConfig.UpdateType.OnCreateAndWrite)",
            );
            out.line("                    .setStateVisibility(StateTtlConfig.StateVisibility.NeverReturnExpired)");
            out.line("                    .build());");
        }
        Some(Ttl {
            ms,
            time: TtlTime::Event,
        }) => {
            out.differs(
                "            ",
                C,
                &format!(
                    "--ttl {} --ttl-time event: Flink's StateTtlConfig runs on processing time \
                     only. The event-time TTL is written with an event-time timer instead (in \
                     processElement and onTimer below): the count expires once the watermark \
                     reaches the key's latest event time + {}.",
                    Duration::short(ms as f64),
                    Duration::short(ms as f64)
                ),
            );
        }
        None => {}
    }
    out.line("            count = getRuntimeContext().getState(descriptor);");
    if event_ttl {
        out.line("            latest = getRuntimeContext().getState(new ValueStateDescriptor<>(\"latest\", Types.LONG));");
    }
    if c.early.is_some() {
        out.line("            nextEarly = getRuntimeContext().getState(new ValueStateDescriptor<>(\"next-early\", Types.LONG));");
    }
    out.line("        }");
    out.blank();
    out.line("        @Override");
    out.line("        public void processElement(Event event, Context ctx, Collector<Long> out) throws Exception {");
    out.line("            Long now = count.value();");
    out.line("            count.update(now == null ? 1L : now + 1);");
    if let Some(Ttl { ms, .. }) = ttl.filter(|t| t.time == TtlTime::Event) {
        out.line("            Long last = latest.value();");
        out.line("            if (last == null || event.eventTimeMs > last) {");
        out.line("                latest.update(event.eventTimeMs);");
        out.line(
            "                // − 1: Flink's watermark is 1 ms behind twoclocks' (see above).",
        );
        out.line(format!(
            "                ctx.timerService().registerEventTimeTimer(event.eventTimeMs + {}L);",
            ms - 1
        ));
        out.line("            }");
    }
    if let Some(every) = c.early {
        rounding_note(out, "            ", C, "--early", every);
        out.line("            if (nextEarly.value() == null) { // the key's first event arms the early timer");
        out.line(format!(
            "                long at = ctx.timerService().currentProcessingTime() + {}L;",
            whole(every)
        ));
        out.line("                nextEarly.update(at);");
        out.line("                ctx.timerService().registerProcessingTimeTimer(at);");
        out.line("            }");
    }
    out.line("        }");
    if c.early.is_some() || event_ttl {
        out.blank();
        out.line("        @Override");
        out.line("        public void onTimer(long time, OnTimerContext ctx, Collector<Long> out) throws Exception {");
        if let Some(Ttl { ms, .. }) = ttl.filter(|t| t.time == TtlTime::Event) {
            out.line("            if (ctx.timeDomain() == TimeDomain.EVENT_TIME) {");
            out.line("                Long last = latest.value();");
            out.line(format!(
                "                if (last != null && last + {}L <= time) {{ // latest event time + TTL ≤ watermark",
                ms - 1
            ));
            out.line("                    Long value = count.value();");
            out.line("                    if (value != null) out.collect(value); // the segment's final value");
            out.line("                    count.clear();");
            out.line("                    latest.clear();");
            if c.early.is_some() {
                out.line("                    nextEarly.clear();");
            }
            out.line("                }");
            out.line("                return;");
            out.line("            }");
        }
        if let Some(every) = c.early {
            out.line("            Long now = count.value();");
            out.line("            if (now != null) out.collect(now); // an EARLY pane");
            out.line(format!(
                "            long at = time + {}L; // re-armed whether or not events came since",
                whole(every)
            ));
            out.line("            nextEarly.update(at);");
            out.line("            ctx.timerService().registerProcessingTimeTimer(at);");
        }
        out.line("        }");
    }
    if c.accumulation != Accumulation::Accumulating {
        out.differs(
            "        ",
            C,
            "the running count is emitted whole (accumulating); subtract the previous value \
             downstream for discarding panes, or keep the last per key for retracting ones.",
        );
    }
    out.line("    }");
    out.blank();
}

fn watermark_class(out: &mut Code, p: &Policy) {
    match shape(p.config.watermark) {
        Shape::EventTimeBound { .. } => {}
        Shape::Quantile { .. } => {
            out.line("    /** Wall clock − the quantile of the last n delays (wall clock at arrival − event time). */");
            out.line("    public static final class QuantileOfDelays implements WatermarkGenerator<Event> {");
            out.line("        private final double q;");
            out.line("        private final long[] delays;");
            out.line("        private int held;");
            out.line("        private int next;");
            out.blank();
            out.line("        public QuantileOfDelays(double q, int n) {");
            out.line("            this.q = q;");
            out.line("            this.delays = new long[n];");
            out.line("        }");
            out.blank();
            out.line("        @Override");
            out.line("        public void onEvent(Event event, long eventTimestamp, WatermarkOutput output) {");
            out.line("            delays[next] = System.currentTimeMillis() - eventTimestamp;");
            out.line("            next = (next + 1) % delays.length;");
            out.line("            held = Math.min(held + 1, delays.length);");
            out.line("        }");
            out.blank();
            out.line("        @Override");
            out.line("        public void onPeriodicEmit(WatermarkOutput output) {");
            out.line("            if (held == 0) {");
            out.line("                return;");
            out.line("            }");
            out.line("            long[] sorted = Arrays.copyOf(delays, held);");
            out.line("            Arrays.sort(sorted);");
            out.line("            long lag = sorted[(int) (q * (held - 1))];");
            out.line("            // −1: Flink's watermark t promises no more timestamps ≤ t, twoclocks' none < t.");
            out.line("            output.emitWatermark(new Watermark(System.currentTimeMillis() - lag - 1));");
            out.line("        }");
            out.line("    }");
        }
        Shape::LargestDelay | Shape::ProcessingLag { .. } => {
            out.line(
                "    /** Wall clock − a fixed lag: a watermark that trails processing time. */",
            );
            out.line("    public static final class ProcessingTimeLag implements WatermarkGenerator<Event> {");
            out.line("        private final long lagMs;");
            out.blank();
            out.line("        public ProcessingTimeLag(long lagMs) {");
            out.line("            this.lagMs = lagMs;");
            out.line("        }");
            out.blank();
            out.line("        @Override");
            out.line("        public void onEvent(Event event, long eventTimestamp, WatermarkOutput output) {}");
            out.blank();
            out.line("        @Override");
            out.line("        public void onPeriodicEmit(WatermarkOutput output) {");
            out.line("            // −1: Flink's watermark t promises no more timestamps ≤ t, twoclocks' none < t.");
            out.line("            output.emitWatermark(new Watermark(System.currentTimeMillis() - lagMs - 1));");
            out.line("        }");
            out.line("    }");
        }
    }
}

/// The job's entry point up to the keyed stream: the watermark strategy, timestamps and
/// watermarks assigned, events keyed (the window or the running count follows).
fn keyed_events(out: &mut Code, p: &Policy) {
    const I: &str = "        ";
    // A file source's job prints a windowed pane with its key and window.
    let output = match (&p.source, p.config.window) {
        (
            Source::File(_),
            WindowFn::Tumbling { .. } | WindowFn::Sliding { .. } | WindowFn::Session { .. },
        ) => "String",
        (Source::File(_), WindowFn::Global { .. }) | (Source::Kafka, _) => "Long",
    };
    out.line(format!(
        "    public static SingleOutputStreamOperator<{output}> apply(DataStream<Event> events) {{"
    ));
    strategy(out, p);
    out.line(format!("{I}return events"));
    out.line(format!(
        "{I}        .assignTimestampsAndWatermarks(watermarks)"
    ));
    out.line(format!("{I}        .keyBy(event -> event.key)"));
}
