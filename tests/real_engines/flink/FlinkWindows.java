// Runs one event log through Apache Flink's DataStream windowing (a local MiniCluster,
// parallelism 1) and prints one JSON line per window firing and per dropped element, for
// flink_check.py to turn into results/flink/<case>.json.
//
//   java -cp CLASSES:PYFLINK/lib/* FlinkWindows LOG fixed|sliding|session SIZE_MS[:SLIDE_MS] B_MS L_MS default|early_count:N
//
// The watermark follows each event exactly: a punctuated generator emits max_seen - B - 1 (what
// Flink's BoundedOutOfOrdernessWatermarks computes, but after every event instead of on the
// 200 ms periodic timer, so runs are repeatable); periodic emission is switched off. The
// records are emitted in file order by one source split; each element reaches the window
// operator before the watermark its own timestamp raises. At the end of the bounded input
// Flink sends the final Long.MAX_VALUE watermark, which fires what is left.
//
// Printed lines start with "TWOCLOCKS " (log4j may print to stdout too):
//   {"kind":"fire", "key", "start", "end", "max_ts", "watermark", "events":[[event_ms, proc_ms], ...]}
//   {"kind":"dropped", "key", "event_ms", "proc_ms"}          (the late side output)
// "watermark" is the window function's ctx.currentWatermark() at the firing.
//
// The trigger is Flink's default for event-time windows (EventTimeTrigger) or, for
// early_count:N, EarlyCountTrigger below: our own, as Flink has no built-in counterpart of
// Beam's AfterWatermark(early=AfterCount(N)) in discarding mode.

import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.common.eventtime.WatermarkGenerator;
import org.apache.flink.api.common.eventtime.WatermarkOutput;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.tuple.Tuple3;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.datastream.WindowedStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.windowing.ProcessWindowFunction;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.assigners.SlidingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.assigners.WindowAssigner;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.triggers.Trigger;
import org.apache.flink.streaming.api.windowing.triggers.TriggerResult;
import org.apache.flink.streaming.api.windowing.windows.TimeWindow;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

public class FlinkWindows {
    // (event time ms, processing time ms, key)
    private static final OutputTag<Tuple3<Long, Long, String>> DROPPED =
        new OutputTag<>("dropped", Types.TUPLE(Types.LONG, Types.LONG, Types.STRING));

    /** After every event: max_seen - B - 1, as BoundedOutOfOrdernessWatermarks computes it. */
    static class EveryEventBoundedWatermarks implements WatermarkGenerator<Tuple3<Long, Long, String>> {
        private final long bound;
        private long maxSeen;

        EveryEventBoundedWatermarks(long bound) {
            this.bound = bound;
            this.maxSeen = Long.MIN_VALUE + bound + 1;
        }

        @Override
        public void onEvent(Tuple3<Long, Long, String> event, long timestamp, WatermarkOutput out) {
            maxSeen = Math.max(maxSeen, timestamp);
            out.emitWatermark(new Watermark(maxSeen - bound - 1));
        }

        @Override
        public void onPeriodicEmit(WatermarkOutput out) {}
    }

    /**
     * Beam's AfterWatermark(early=AfterCount(N)), discarding, no late firings, for Flink:
     * every Nth element of a window before its end fires and purges it (an early pane); the
     * watermark passing the window's max timestamp fires and purges what is left (Flink's
     * WindowOperator emits nothing for a window with no contents). Elements of a window whose
     * end has passed do not fire (the cases run it with allowed lateness 0, where Flink drops
     * them anyway).
     */
    static class EarlyCountTrigger extends Trigger<Object, TimeWindow> {
        private final long n;
        private final ValueStateDescriptor<Long> countDesc = new ValueStateDescriptor<>("count", Types.LONG);

        EarlyCountTrigger(long n) {
            this.n = n;
        }

        @Override
        public TriggerResult onElement(Object element, long timestamp, TimeWindow window, TriggerContext ctx)
                throws Exception {
            if (window.maxTimestamp() <= ctx.getCurrentWatermark()) {
                return TriggerResult.CONTINUE;
            }
            ctx.registerEventTimeTimer(window.maxTimestamp());
            ValueState<Long> count = ctx.getPartitionedState(countDesc);
            long c = (count.value() == null ? 0 : count.value()) + 1;
            if (c >= n) {
                count.clear();
                return TriggerResult.FIRE_AND_PURGE;
            }
            count.update(c);
            return TriggerResult.CONTINUE;
        }

        @Override
        public TriggerResult onEventTime(long time, TimeWindow window, TriggerContext ctx) {
            return time == window.maxTimestamp() ? TriggerResult.FIRE_AND_PURGE : TriggerResult.CONTINUE;
        }

        @Override
        public TriggerResult onProcessingTime(long time, TimeWindow window, TriggerContext ctx) {
            return TriggerResult.CONTINUE;
        }

        @Override
        public void clear(TimeWindow window, TriggerContext ctx) throws Exception {
            ctx.deleteEventTimeTimer(window.maxTimestamp());
            ctx.getPartitionedState(countDesc).clear();
        }
    }

    static class Record extends ProcessWindowFunction<Tuple3<Long, Long, String>, String, String, TimeWindow> {
        @Override
        public void process(String key, Context ctx, Iterable<Tuple3<Long, Long, String>> elements,
                            Collector<String> out) {
            TimeWindow w = ctx.window();
            StringBuilder events = new StringBuilder();
            for (Tuple3<Long, Long, String> e : elements) {
                if (events.length() > 0) events.append(",");
                events.append("[").append(e.f0).append(",").append(e.f1).append("]");
            }
            out.collect("TWOCLOCKS {\"kind\":\"fire\",\"key\":\"" + key + "\",\"start\":" + w.getStart()
                + ",\"end\":" + w.getEnd() + ",\"max_ts\":" + w.maxTimestamp()
                + ",\"watermark\":" + ctx.currentWatermark() + ",\"events\":[" + events + "]}");
        }
    }

    static WindowAssigner<Object, TimeWindow> assigner(String kind, long size, String[] sizes) {
        switch (kind) {
            case "fixed": return TumblingEventTimeWindows.of(Duration.ofMillis(size));
            case "sliding": return SlidingEventTimeWindows.of(Duration.ofMillis(size), Duration.ofMillis(Long.parseLong(sizes[1])));
            case "session": return EventTimeSessionWindows.withGap(Duration.ofMillis(size));
            default: throw new IllegalArgumentException("unknown window " + kind);
        }
    }

    public static void main(String[] args) throws Exception {
        String log = args[0];
        String kind = args[1];
        String[] sizes = args[2].split(":");
        long size = Long.parseLong(sizes[0]);
        long bound = Long.parseLong(args[3]);
        long lateness = Long.parseLong(args[4]);
        String trigger = args[5];

        List<Tuple3<Long, Long, String>> rows = new ArrayList<>();
        List<String> lines = Files.readAllLines(Paths.get(log));
        for (String line : lines.subList(1, lines.size())) {
            if (line.isBlank()) continue;
            String[] f = line.split(",", -1);
            rows.add(Tuple3.of(Long.parseLong(f[0]), Long.parseLong(f[1]), f[2]));
        }

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        env.getConfig().setAutoWatermarkInterval(0);  // no periodic emission: per event only

        DataStream<Tuple3<Long, Long, String>> events = env
            .fromData(rows, Types.TUPLE(Types.LONG, Types.LONG, Types.STRING))
            .assignTimestampsAndWatermarks(
                WatermarkStrategy.<Tuple3<Long, Long, String>>forGenerator(c -> new EveryEventBoundedWatermarks(bound))
                    .withTimestampAssigner((e, previous) -> e.f0));

        WindowedStream<Tuple3<Long, Long, String>, String, TimeWindow> windowed = events
            .keyBy(e -> e.f2, Types.STRING)
            .window(assigner(kind, size, sizes))
            .allowedLateness(Duration.ofMillis(lateness))
            .sideOutputLateData(DROPPED);
        if (trigger.startsWith("early_count:")) {
            windowed = windowed.trigger(new EarlyCountTrigger(Long.parseLong(trigger.split(":")[1])));
        } else if (!trigger.equals("default")) {
            throw new IllegalArgumentException("unknown trigger " + trigger);
        }

        SingleOutputStreamOperator<String> fired = windowed.process(new Record());
        fired.print();
        fired.getSideOutput(DROPPED)
            .map(e -> "TWOCLOCKS {\"kind\":\"dropped\",\"key\":\"" + e.f2 + "\",\"event_ms\":" + e.f0
                + ",\"proc_ms\":" + e.f1 + "}")
            .returns(Types.STRING)
            .print();
        env.execute("twoclocks real-engine check");
    }
}
