//! The policy as a Beam Python pipeline: `apply(events)`, the `WindowInto` with the window
//! function, the trigger, the allowed lateness and the accumulation mode, then a count per key
//! and pane; with `--source file`, a `main` that replays the log through a `TestStream` under
//! the exported watermark on the DirectRunner and prints each pane with its `PaneInfo`.

use super::{
    measured_note, offset_note, rounding_note, shape, summary, whole, Code, CsvLog, Policy, Shape,
    Source,
};
use crate::engine::duration::Duration;
use crate::engine::window::{Ttl, TtlTime};
use crate::engine::{Accumulation, WindowFn};

const C: &str = "#";
/// The indent of `WindowInto`'s arguments.
const A: &str = "            ";

pub(super) fn write(out: &mut Code, p: &Policy) {
    out.line("# twoclocks export --to beam-python");
    out.comment("", C, &format!("Policy: {}.", summary(p)));
    out.comment(
        "",
        C,
        "Apache Beam's Python SDK (2.x). apply() takes a PCollection of (key, 1) with event-time \
         timestamps, from your source, and counts events per key and pane. Beam Python's rules \
         are those of `twoclocks run --conventions beam-python`: windows are [start, end), a \
         window fires ON_TIME once the watermark reaches its end, and an element is dropped \
         only when the watermark is past end + allowed lateness (GeneralTriggerDriver), one ms \
         later than twoclocks' default (Beam Java's) rule.",
    );
    match &p.source {
        Source::Kafka => source_note(out, p),
        Source::File(log) => out.comment(
            "",
            C,
            &format!(
                "Run as a script, main() replays the log {} through a TestStream: each row in \
                 file order, the watermark moved after it as below, on the DirectRunner in \
                 streaming mode, and prints each pane (`pane KEY START END TIMING INDEX \
                 NONSPECULATIVE_INDEX IS_FIRST IS_LAST COUNT`).",
                log.path
            ),
        ),
    }
    out.blank();
    if let Source::File(_) = p.source {
        out.line("import csv");
        out.blank();
    }
    out.line("import apache_beam as beam");
    out.line("from apache_beam.transforms import trigger, window");
    out.line("from apache_beam.utils.timestamp import Duration");
    if let Source::File(_) = p.source {
        out.line("from apache_beam.options.pipeline_options import PipelineOptions");
        out.line("from apache_beam.testing.test_stream import TestStream");
        out.line("from apache_beam.utils.timestamp import Timestamp");
        out.line("from apache_beam.utils.windowed_value import PaneInfoTiming");
    }
    out.blank();
    out.blank();
    out.line("def apply(events):");
    out.line("    \"\"\"Windows and counts `events`, a PCollection of (key, 1): (key, count) per pane.\"\"\"");
    out.line("    return (");
    out.line("        events");
    out.line("        | \"Windows\" >> beam.WindowInto(");
    window_fn(out, p);
    triggering(out, p);
    out.line("        )");
    out.line("        | \"Count\" >> beam.combiners.Count.PerKey()");
    out.line("    )");
    if let Source::File(log) = &p.source {
        replay(out, p, log);
    }
}

/// What the watermark must be, where the source is the user's.
fn source_note(out: &mut Code, p: &Policy) {
    let c = &p.config;
    match shape(c.watermark) {
        Shape::EventTimeBound { bound } => out.comment(
            "",
            C,
            &format!(
                "The watermark is your source's: twoclocks' bounded:{b} is the highest event \
                 time seen − {b}, at every event; Beam Java's KafkaIO gives it with \
                 CustomTimestampPolicyWithLimitedDelay (`--to beam`).",
                b = Duration::short(bound)
            ),
        ),
        Shape::ProcessingLag { lag } => out.differs(
            "",
            C,
            &format!(
                "fixed:{}: the watermark is your source's; twoclocks' trails the log's \
                 processing time, which a Beam source's watermark (an event-time estimate) \
                 does not follow.",
                Duration::short(lag)
            ),
        ),
        Shape::LargestDelay | Shape::Quantile { .. } => {
            if let Some(note) = measured_note(p) {
                out.differs("", C, &note);
            }
        }
    }
}

/// A `Duration` expression: whole seconds as seconds, else exact microseconds.
fn py_duration(ms: f64) -> String {
    let n = whole(ms);
    if n % 1000 == 0 {
        format!("Duration(seconds={})", n / 1000)
    } else {
        format!("Duration(micros={})", n * 1000)
    }
}

fn window_fn(out: &mut Code, p: &Policy) {
    let c = &p.config;
    let offset = c.window.offset();
    if offset != 0 {
        out.comment(A, C, &offset_note(offset));
    }
    // Beam Python takes an offset in seconds (a Timestamp); none when it is 0.
    let and_offset = match offset {
        0 => String::new(),
        o if o % 1000 == 0 => format!(", offset={}", o / 1000),
        o => format!(", offset={}", o as f64 / 1000.0),
    };
    let f = match c.window {
        WindowFn::Tumbling { size, .. } => {
            format!(
                "window.FixedWindows({}{and_offset})",
                py_duration(size as f64)
            )
        }
        WindowFn::Sliding { size, slide, .. } => format!(
            "window.SlidingWindows({}, {}{and_offset})",
            py_duration(size as f64),
            py_duration(slide as f64)
        ),
        WindowFn::Session { gap } => {
            out.comment(
                A,
                C,
                &format!(
                    "Sessions as in twoclocks: each event opens [t, t + {}), overlapping windows \
                     merge, windows that only touch do not. Beam Python never garbage-collects a \
                     session: a late event whose own window is within the lateness merges an \
                     expired session of its key back in (as `--conventions beam-python`).",
                    Duration::short(gap as f64)
                ),
            );
            format!("window.Sessions({})", py_duration(gap as f64))
        }
        WindowFn::Global { ttl } => {
            if let Some(Ttl { ms, time }) = ttl {
                out.differs(
                    A,
                    C,
                    &format!(
                        "--ttl {}: Beam has no state TTL on a window. The nearest is \
                         window.Sessions({}): a key's count restarts after that much event time \
                         without events{}.",
                        Duration::short(ms as f64),
                        py_duration(ms as f64),
                        match time {
                            TtlTime::Event => "",
                            TtlTime::Processing =>
                                "; twoclocks' TTL here runs on processing time, which Beam's \
                                 windows cannot",
                        }
                    ),
                );
            }
            "window.GlobalWindows()".to_string()
        }
    };
    out.line(format!("{A}{f},"));
}

fn triggering(out: &mut Code, p: &Policy) {
    let c = &p.config;
    if c.window.is_global() {
        match c.early {
            Some(every) => {
                early_note(out, every);
                out.comment(
                    A,
                    C,
                    "And the counts at the end of input, when the watermark reaches the global \
                     window's end, the end of time.",
                );
                out.line(format!(
                    "{A}trigger=trigger.AfterWatermark(early=trigger.AfterProcessingTime({})),",
                    seconds(every)
                ));
            }
            None => {
                out.comment(
                    A,
                    C,
                    "No --early: twoclocks emits the global counts at the end of input only; so \
                     does AfterWatermark() in the global window, whose end is the end of time \
                     (Beam refuses the default trigger there on an unbounded input).",
                );
                out.line(format!("{A}trigger=trigger.AfterWatermark(),"));
            }
        }
        out.line(format!("{A}allowed_lateness=Duration(seconds=0),"));
        accumulation(out, p);
        return;
    }
    match c.early {
        Some(every) => {
            early_note(out, every);
            out.comment(
                A,
                C,
                "Then one ON_TIME pane, and one LATE pane per late element.",
            );
            out.line(format!(
                "{A}trigger=trigger.AfterWatermark(early=trigger.AfterProcessingTime({}), late=trigger.AfterCount(1)),",
                seconds(every)
            ));
        }
        None => {
            out.comment(
                A,
                C,
                "Beam's default trigger: one ON_TIME pane when the watermark passes the window's \
                 end, then one LATE pane per late element, as twoclocks' panes. Beam Python \
                 never marks a pane is_last with it.",
            );
            out.line(format!("{A}trigger=trigger.DefaultTrigger(),"));
        }
    }
    if c.grace.is_infinite() {
        out.comment(A, C, "--grace inf: nothing is ever dropped.");
        out.line(format!("{A}allowed_lateness=Duration(micros=2**62),"));
    } else {
        rounding_note(out, A, C, "--grace", c.grace);
        out.line(format!("{A}allowed_lateness={},", py_duration(c.grace)));
    }
    accumulation(out, p);
}

/// Seconds as Python reads them: `10`, `2.5`.
fn seconds(ms: f64) -> String {
    let n = whole(ms);
    if n % 1000 == 0 {
        format!("{}", n / 1000)
    } else {
        format!("{}", n as f64 / 1000.0)
    }
}

fn early_note(out: &mut Code, every: f64) {
    out.differs(
        A,
        C,
        &format!(
            "Beam's early pane comes {e} of processing time after the first element of a pane, \
             and the next waits for the next element; twoclocks re-arms at {e} after each firing \
             whether or not events came.",
            e = Duration::short(every)
        ),
    );
    rounding_note(out, A, C, "--early", every);
}

fn accumulation(out: &mut Code, p: &Policy) {
    match p.config.accumulation {
        Accumulation::Accumulating => out.line(format!(
            "{A}accumulation_mode=trigger.AccumulationMode.ACCUMULATING,"
        )),
        Accumulation::Discarding => out.line(format!(
            "{A}accumulation_mode=trigger.AccumulationMode.DISCARDING,"
        )),
        Accumulation::Retracting => {
            out.differs(
                A,
                C,
                "Beam has no retractions (no runner implements RETRACTING): panes carry the whole \
                 count so far; keep the last per window and key downstream.",
            );
            out.line(format!(
                "{A}accumulation_mode=trigger.AccumulationMode.ACCUMULATING,"
            ));
        }
    }
}

/// A Python string literal.
fn py_string(s: &str) -> String {
    format!("{s:?}")
}

/// The replay of the log through a `TestStream`, the pane printer and `main`.
fn replay(out: &mut Code, p: &Policy, log: &CsvLog) {
    let bound = match shape(p.config.watermark) {
        Shape::EventTimeBound { bound } => whole(bound),
        Shape::LargestDelay | Shape::ProcessingLag { .. } | Shape::Quantile { .. } => 0,
    };
    out.blank();
    out.blank();
    out.line(format!("LOG = {}", py_string(&log.path)));
    out.line(format!("EVENT_TIME = {}", py_string(&log.event_time)));
    out.line(format!("KEY = {}", py_string(&log.key)));
    out.line(format!("BOUND_MS = {bound}"));
    out.blank();
    out.blank();
    out.line("def replay(path, bound_ms):");
    out.line("    \"\"\"The log at `path` as it arrived: each row in file order, then the watermark moved to the");
    out.line("    highest event time seen − bound_ms if that rose (twoclocks' bounded watermark), and at the");
    out.line("    end to the end of time. A row whose event time is not whole ms stops it, naming its line.\"\"\"");
    out.line("    stream = TestStream()");
    out.line("    highest = watermark = None");
    out.line("    with open(path, newline=\"\") as f:");
    out.line("        rows = csv.reader(f)");
    out.line("        header = next(rows)");
    out.line("        at_time, at_key = header.index(EVENT_TIME), header.index(KEY)");
    out.line("        for line, row in enumerate(rows, start=2):");
    out.line("            if not row:");
    out.line("                continue");
    out.line("            try:");
    out.line("                t = int(row[at_time])");
    out.line("            except ValueError:");
    out.line("                raise ValueError(f\"{path}:{line}: event time {row[at_time]!r} is not whole ms\")");
    out.line("            stream.add_elements([window.TimestampedValue((row[at_key], 1), Timestamp(micros=t * 1000))])");
    out.line("            highest = t if highest is None else max(highest, t)");
    out.line("            if watermark is None or highest - bound_ms > watermark:");
    out.line("                watermark = highest - bound_ms");
    out.line("                stream.advance_watermark_to(Timestamp(micros=watermark * 1000))");
    out.line("    stream.advance_watermark_to_infinity()");
    out.line("    return stream");
    out.blank();
    out.blank();
    out.line("TIMING = {PaneInfoTiming.EARLY: \"EARLY\", PaneInfoTiming.ON_TIME: \"ON_TIME\",");
    out.line("          PaneInfoTiming.LATE: \"LATE\", PaneInfoTiming.UNKNOWN: \"UNKNOWN\"}");
    out.blank();
    out.blank();
    out.line("class PrintPane(beam.DoFn):");
    out.line("    \"\"\"Prints a pane: key, window (ms), its PaneInfo and count.\"\"\"");
    out.blank();
    out.line(
        "    def process(self, element, w=beam.DoFn.WindowParam, pane=beam.DoFn.PaneInfoParam):",
    );
    out.line("        key, count = element");
    out.line("        start = getattr(w, \"start\", None)");
    out.line("        end = getattr(w, \"end\", None)");
    out.line("        start = \"-\" if start is None or not hasattr(w, \"start\") else start.micros // 1000");
    out.line(
        "        end = \"-\" if end is None or not hasattr(w, \"end\") else end.micros // 1000",
    );
    out.line("        print(\"pane\", key, start, end, TIMING[pane.timing], pane.index, pane.nonspeculative_index,");
    out.line("              pane.is_first, pane.is_last, count, flush=True)");
    out.blank();
    out.blank();
    out.line("def main():");
    out.line("    # A TestStream runs on the DirectRunner in streaming mode.");
    out.line("    with beam.Pipeline(options=PipelineOptions(streaming=True)) as p:");
    out.line("        apply(p | \"Log\" >> replay(LOG, BOUND_MS)) | \"Print\" >> beam.ParDo(PrintPane())");
    out.blank();
    out.blank();
    out.line("if __name__ == \"__main__\":");
    out.line("    main()");
}
