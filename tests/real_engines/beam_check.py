"""Runs each log of cases.json through Apache Beam's Python SDK and records the panes it emits
(results/beam-python/<case>.json), or with --check compares them with the recorded ones.

    python3 tests/real_engines/beam_check.py [--check] [--only-runner|--only-driver] [CASE ...]

Needs `pip install apache-beam` (in a virtual environment: see README.md). Two routes, each
with its own results folder, and both are run by default:

- results/beam-python/: a TestStream on the BundleBasedDirectRunner in streaming mode (what
  the DirectRunner picks for a TestStream). For each row of the log, in processing order: the
  element with its event time, then, if max_event_time_seen - B rose, the watermark advanced
  to it (Beam's bounded out-of-orderness, like KafkaIO's limited-delay policy: no -1); at the
  end the watermark advanced to infinity. WindowInto, GroupByKey, and a DoFn that appends one
  JSON line per pane to a file, in the order the panes reach it.
- results/beam-python-driver/: the same sequence fed straight to
  apache_beam.transforms.trigger.GeneralTriggerDriver (the trigger machinery the
  DirectRunner's GroupAlsoByWindow runs), the way Beam's trigger_test.py
  TriggerDriverTranscriptTest drives it: elements with watermark = the current watermark,
  then the timers due; a watermark move, then the timers due. No runner, no threads: this is
  the reference the runner's results are checked against.

Beam's times are microseconds: ms are turned into exact Timestamps (micros = ms * 1000), and
back only where they are whole ms (window bounds, element times); a pane's own timestamp is
recorded as timestamp_us too, because Beam Python's end-of-window timestamp is end - 1 us.
"""

import json
import os
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ beside the scripts
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

import apache_beam as beam  # noqa: E402
from apache_beam.options.pipeline_options import PipelineOptions, StandardOptions  # noqa: E402
from apache_beam.runners.direct.clock import TestClock  # noqa: E402
from apache_beam.testing.test_stream import TestStream  # noqa: E402
from apache_beam.transforms import trigger as tr  # noqa: E402
from apache_beam.transforms import window as bw  # noqa: E402
from apache_beam.transforms.core import Windowing  # noqa: E402
from apache_beam.utils.timestamp import MAX_TIMESTAMP, MIN_TIMESTAMP, Duration, Timestamp  # noqa: E402
from apache_beam.utils.windowed_value import PaneInfoTiming, WindowedValue  # noqa: E402

TIMING = {PaneInfoTiming.EARLY: "EARLY", PaneInfoTiming.ON_TIME: "ON_TIME",
          PaneInfoTiming.LATE: "LATE", PaneInfoTiming.UNKNOWN: "UNKNOWN"}


def ts(ms):
    return Timestamp(micros=ms * 1000)


def whole_ms(t):
    micros = t.micros
    assert micros % 1000 == 0, f"{t} is not a whole ms"
    return micros // 1000


def windowing(case):
    """WindowInto's arguments for the case (also GeneralTriggerDriver's Windowing)."""
    kind, ms = common.window_spec(case)
    if kind == "sliding":
        window_fn = bw.SlidingWindows(Duration(micros=ms[0] * 1000), Duration(micros=ms[1] * 1000))
    else:
        window_fn = (bw.FixedWindows(Duration(micros=ms * 1000)) if kind == "fixed"
                     else bw.Sessions(Duration(micros=ms * 1000)))
    tkind, n = common.trigger_spec(case)
    trigger = tr.DefaultTrigger() if tkind == "default" else tr.AfterWatermark(early=tr.AfterCount(n))
    mode = {"accumulating": tr.AccumulationMode.ACCUMULATING,
            "discarding": tr.AccumulationMode.DISCARDING}[case["accumulation"]]
    return window_fn, trigger, mode, Duration(micros=case["allowed_lateness_ms"] * 1000)


def watermark_steps(case, events):
    """The log as ('element', Event) and ('watermark', ms) steps, in processing order: each
    event, then the watermark max_seen - B if it rose."""
    b = case["bounded_out_of_orderness_ms"]
    max_seen = None
    watermark = None
    for e in events:
        yield "element", e
        max_seen = e.event_time_ms if max_seen is None else max(max_seen, e.event_time_ms)
        if watermark is None or max_seen - b > watermark:
            watermark = max_seen - b
            yield "watermark", watermark


def pane_record(key, window, pane, timestamp, values):
    """One pane as the result files give it; values are (event_ms, proc_ms) pairs."""
    values = sorted(values)
    return {
        "key": key,
        "window_start_ms": whole_ms(window.start),
        "window_end_ms": whole_ms(window.end),
        "timing": TIMING[pane.timing],
        "index": pane.index,
        "nonspeculative_index": pane.nonspeculative_index,
        "is_first": pane.is_first,
        "is_last": pane.is_last,
        "timestamp_ms": timestamp.micros / 1000 if timestamp.micros % 1000 else timestamp.micros // 1000,
        "timestamp_us": timestamp.micros,
        "event_times_ms": [v[0] for v in values],
        "proc_times_ms": [v[1] for v in values],
    }


class Record(beam.DoFn):
    """Appends each pane it gets, as one JSON line, to a file (the DoFn is pickled, so a file
    is what its copies share)."""

    def __init__(self, path):
        self.path = path

    def process(self, element, window=beam.DoFn.WindowParam, pane=beam.DoFn.PaneInfoParam,
                timestamp=beam.DoFn.TimestampParam):
        key, values = element
        with open(self.path, "a") as f:
            f.write(json.dumps(pane_record(key, window, pane, timestamp, list(values))) + "\n")


def run_direct_runner(case, events):
    stream = TestStream()
    for step, x in watermark_steps(case, events):
        if step == "element":
            stream.add_elements([bw.TimestampedValue((x.key, (x.event_time_ms, x.proc_time_ms)),
                                                     ts(x.event_time_ms))])
        else:
            stream.advance_watermark_to(ts(x))
    stream.advance_watermark_to_infinity()
    window_fn, trigger, mode, lateness = windowing(case)
    fd, path = tempfile.mkstemp(prefix=f"beam-{case['name']}-", suffix=".jsonl")
    os.close(fd)
    options = PipelineOptions([], runner="BundleBasedDirectRunner")  # not sys.argv
    options.view_as(StandardOptions).streaming = True
    with beam.Pipeline(options=options) as p:
        (p
         | stream
         | beam.WindowInto(window_fn, trigger=trigger, accumulation_mode=mode,
                           allowed_lateness=lateness)
         | beam.GroupByKey()
         | beam.ParDo(Record(path)))
    with open(path) as f:
        panes = [json.loads(line) for line in f]
    os.remove(path)
    return panes


def run_driver(case, events):
    window_fn, trigger, mode, lateness = windowing(case)
    driver = tr.GeneralTriggerDriver(
        Windowing(window_fn, trigger, mode, None, lateness), TestClock())
    states = {}  # one state per key, as a runner keeps it
    panes = []
    watermark = MIN_TIMESTAMP

    def emit(key, wvalue):
        (window,) = wvalue.windows
        panes.append(pane_record(key, window, wvalue.pane_info, wvalue.timestamp, wvalue.value))

    def fire_timers():
        for key, state in states.items():
            due = state.get_and_clear_timers(watermark)
            while due:
                for window, (name, domain, t, _) in due:
                    for wvalue in driver.process_timer(window, name, domain, t, state):
                        emit(key, wvalue)
                due = state.get_and_clear_timers(watermark)

    for step, x in list(watermark_steps(case, events)) + [("watermark", None)]:
        if step == "element":
            state = states.setdefault(x.key, tr.InMemoryUnmergedState())
            t = ts(x.event_time_ms)
            value = (x.event_time_ms, x.proc_time_ms)
            wv = WindowedValue(value, t, window_fn.assign(bw.WindowFn.AssignContext(t, value)))
            for wvalue in driver.process_elements(state, [wv], watermark, watermark):
                emit(x.key, wvalue)
        else:
            watermark = MAX_TIMESTAMP if x is None else ts(x)
        fire_timers()
    return panes


def main():
    only_runner = "--only-runner" in sys.argv
    only_driver = "--only-driver" in sys.argv
    sys.argv = [a for a in sys.argv if a not in ("--only-runner", "--only-driver")]
    args = common.arguments(__doc__.splitlines()[0])
    engine = f"beam-python {beam.__version__}"
    print(engine)
    routes = []
    if not only_driver:
        routes.append(("beam-python", engine + " BundleBasedDirectRunner TestStream", run_direct_runner))
    if not only_runner:
        routes.append(("beam-python-driver", engine + " GeneralTriggerDriver", run_driver))
    outcomes = []
    for folder, name, run in routes:
        print(f"== {folder}")
        for case in common.load_cases(args.cases):
            events = common.read_log(case)
            panes = run(case, events)
            obj = common.result(name, case, panes, events)
            outcomes.append(common.record_or_check(folder, case, obj, args.check))
    common.summary(outcomes)


if __name__ == "__main__":
    main()
