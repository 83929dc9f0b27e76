"""Drives the reference program on configurations it never prints, for twoclocks' differential
test. Usage: reference_driver.py REFERENCE_DIR < plan.json > answers.json

The plan lists streams (seed, n, span, tail) and, per stream, runs of the late-data block
(window, watermark, grace) and pane sequences of the trigger block. Floats are written as
repr() strings (shortest round-trip) so that the comparison is bit for bit."""
import json
import random
import sys

sys.path.insert(0, sys.argv[1])
import p07_handson as ref  # noqa: E402

plan = json.load(sys.stdin)
wm_fns = ref.b3({}, False)
run = ref.b4({}, False)["run"]
panes = ref.b5({}, False)["panes"]


def watermark(spec, stream):
    kind = spec["kind"]
    if kind == "fixed":
        return wm_fns["fixed"](spec["lag"])
    if kind == "perfect":
        return wm_fns["perfect"](stream)
    if kind == "heuristic":
        # The reference's heuristic takes each arriving event's delay; held monotone here,
        # as twoclocks holds every watermark.
        h = wm_fns["heuristic"](spec["q"], spec["n"])
        delays = iter(p - e for e, p, _ in stream)
        held = [float("-inf")]

        def wmf(pt):
            held[0] = max(held[0], h(pt, next(delays)))
            return held[0]

        return wmf
    raise ValueError(kind)


out = []
for sp in plan["streams"]:
    ref.rng = random.Random(sp["seed"])
    stream = ref.make_stream(sp["n"], sp["span"], sp["tail"])
    runs = []
    for r in sp["runs"]:
        fired, dropped, late = run(stream, watermark(r["watermark"], stream), r["window"], r["grace"])
        runs.append({
            "fired": sorted([w, k, v] for (w, k), v in fired.items()),
            "dropped": dropped,
            "late": late,
        })
    pane_lists = []
    for p in sp["panes"]:
        got = panes(stream, p["key"], p["win"], p["window"], wm_fns["fixed"](p["lag"]), p["every"])
        pane_lists.append([[kind, repr(pt), cnt] for kind, pt, cnt in got])
    out.append({
        "events": [[repr(e), repr(p), k] for e, p, k in stream],
        "runs": runs,
        "panes": pane_lists,
    })
json.dump(out, sys.stdout)
