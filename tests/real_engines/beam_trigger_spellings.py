"""How Beam reads a trigger written in a transcript: each spelling below through the reader of
Beam's own transcript test (`TranscriptTest._run_log`'s `parse_fn`, taken from the installed
`apache_beam/transforms/trigger_test.py`) and through Python's `eval` with the trigger classes
in scope. twoclocks' trigger reader (`crates/engine/src/trigger/expr.rs`) takes what Python
takes; where Beam's reader differs, `docs/scripts.md` says so.

    /tmp/beam/bin/python tests/real_engines/beam_trigger_spellings.py          # rewrites the results
    /tmp/beam/bin/python tests/real_engines/beam_trigger_spellings.py --check  # compares instead

Results: results/beam-python-trigger-spellings.txt, one line per spelling.
"""

import ast
import logging
import os
import sys

logging.disable(logging.WARNING)

from apache_beam.transforms import trigger  # noqa: E402
from apache_beam.transforms.trigger import DefaultTrigger  # noqa: E402
import apache_beam.transforms.trigger_test as tt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results", "beam-python-trigger-spellings.txt")

SPELLINGS = [
    "AfterWatermark(AfterCount(3))",
    "AfterWatermark(AfterCount(1), AfterCount(2))",
    "AfterWatermark(AfterCount(1), late=AfterCount(2))",
    "AfterWatermark(late=AfterCount(1), AfterCount(2))",
    "AfterCount(count=3)",
    "AfterCount (3)",
    "AfterProcessingTime(5)",
    "AfterProcessingTime()",
    "Repeatedly(underlying=AfterCount(1))",
    "OrFinally(AfterCount(1), AfterCount(2))",
    "Always()",
    "_Never()",
    "DefaultTrigger()",
    "AfterWatermark( early = AfterCount(1) , late=AfterCount(2), )",
    "AfterAny(AfterCount(1),)",
    "AfterCount(1_000)",
    "AfterCount(+3)",
    "AfterWatermark(early=AfterCount(1), early=AfterCount(2))",
]


def beams_reader():
    """`parse_fn` and its helpers, lifted out of `TranscriptTest._run_log`."""
    module = ast.parse(open(tt.__file__).read())
    run_log = next(
        n
        for c in ast.walk(module)
        if isinstance(c, ast.ClassDef) and c.name == "TranscriptTest"
        for n in c.body
        if isinstance(n, ast.FunctionDef) and n.name == "_run_log"
    )
    ns = {}
    for n in run_log.body:
        if isinstance(n, ast.FunctionDef) and n.name in (
            "parse_int_list",
            "split_args",
            "parse",
            "parse_fn",
        ):
            exec(compile(ast.Module([n], []), "trigger_test.py", "exec"), ns)
    return ns["parse_fn"]


def shown(f, text):
    try:
        return repr(f(text))
    except BaseException as e:  # what each reader says is the result
        return f"{type(e).__name__}: {e}"


def main():
    parse_fn = beams_reader()
    names = {"Default": DefaultTrigger}
    names.update(trigger.__dict__)

    def evaluated(text):
        v = eval(text, dict(names))
        return v() if isinstance(v, type) else v

    lines = [
        f"{text}\n    beam's reader: {shown(lambda t: parse_fn(t, names), text)}\n"
        f"    python eval:   {shown(evaluated, text)}\n"
        for text in SPELLINGS
    ]
    got = "".join(lines)
    if "--check" in sys.argv[1:]:
        want = open(RESULTS).read()
        print("ok" if got == want else "FAIL")
        if got != want:
            print(got)
        sys.exit(0 if got == want else 1)
    with open(RESULTS, "w") as f:
        f.write(got)
    print(got, end="")


if __name__ == "__main__":
    main()
