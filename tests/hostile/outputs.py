#!/usr/bin/env python3
"""Hostile checks of the files twoclocks writes, run by hand (not in CI: it starts thousands
of processes). Random command lines give `--record`, `--cast` and `run --output` every kind of
path (a new file, an existing one, a read-only one, a symbolic link, a dangling link, a named
pipe nobody reads, a directory, a missing folder, the input itself under other spellings,
/dev/null and /dev/full), with and without `--force`, and check after each that:

- the program did not panic or hang (exit code 0 or 2, within 60 s);
- no unfinished copy (`.NAME.twoclocks-partial`) is left behind;
- the input is unchanged; links, pipes and devices are still what they were;
- a file that existed is unchanged unless the run succeeded with `--force` and it was a target;
- a run that failed changed nothing at all.

    python3 tests/hostile/outputs.py target/release/twoclocks [CASES] [SEED] [--no-devices]

It prints the cases run and every violation, then a summary line; exit status 1 if any.
"""

import os
import random
import shutil
import stat
import subprocess
import sys
import tempfile

LOG = "event_time_ms,proc_time_ms,key\n" + "".join(
    f"{i * 700.0},{i * 700.0 + (i * 7919) % 40000},k{i % 5}\n" for i in range(400)
)


def snapshot(d):
    """Every name in the folder: its kind and, for a regular file, its bytes."""
    out = {}
    for name in os.listdir(d):
        p = os.path.join(d, name)
        m = os.lstat(p)
        if stat.S_ISLNK(m.st_mode):
            out[name] = ("link", os.readlink(p))
        elif stat.S_ISFIFO(m.st_mode):
            out[name] = ("fifo", None)
        elif stat.S_ISDIR(m.st_mode):
            out[name] = ("dir", None)
        else:
            with open(p, "rb") as f:
                out[name] = ("file", f.read())
    return out


def setup(d):
    with open(os.path.join(d, "in.csv"), "w") as f:
        f.write(LOG)
    with open(os.path.join(d, "notes.txt"), "w") as f:
        f.write("precious\n")
    with open(os.path.join(d, "ro.txt"), "w") as f:
        f.write("read only\n")
    os.chmod(os.path.join(d, "ro.txt"), 0o444)
    os.symlink("notes.txt", os.path.join(d, "link.txt"))
    os.symlink("in.csv", os.path.join(d, "inlink.csv"))
    os.symlink("missing.txt", os.path.join(d, "dangling.txt"))
    os.mkfifo(os.path.join(d, "pipe"))
    os.mkdir(os.path.join(d, "adir"))


PATHS = [
    "new.out",
    "notes.txt",
    "ro.txt",
    "link.txt",
    "dangling.txt",
    "pipe",
    "adir",
    "nofolder/x.out",
    "in.csv",
    "./in.csv",
    "inlink.csv",
    "adir/../in.csv",
]
DEVICES = ["/dev/null", "/dev/full"]


def device_kinds():
    return {d: stat.S_IFMT(os.stat(d).st_mode) for d in DEVICES if os.path.exists(d)}


def one_case(binary, rng, devices):
    paths = PATHS + (DEVICES if devices else [])
    d = tempfile.mkdtemp(prefix="hostile-")
    try:
        setup(d)
        before = snapshot(d)
        force = rng.random() < 0.5
        family = rng.choice(["ui", "run"])
        targets = []
        if family == "ui":
            args = [binary]
            for flag in rng.sample(["--record", "--cast"], rng.randint(1, 2)):
                p = rng.choice(paths)
                targets.append(p)
                args += [flag, p]
            args += rng.choice([[], ["--input", "in.csv"], ["--input", "missing.csv"], ["--session", "30s"]])
        else:
            args = [binary, "run"]
            if rng.random() < 0.7:
                args += ["--input", rng.choice(["in.csv", "inlink.csv"])]
            if rng.random() < 0.3:
                args += ["--parallelism", "2", "--crash-at", "100s"]
            for _ in range(rng.randint(1, 2)):
                p = rng.choice(paths)
                targets.append(p)
                args += ["--output", f"{rng.choice(['jsonl', 'sqlite'])}:{p}"]
        if force:
            args.append("--force")
        kinds = device_kinds()
        try:
            r = subprocess.run(args, cwd=d, stdin=subprocess.DEVNULL, capture_output=True, timeout=float(os.environ.get("HOSTILE_TIMEOUT", "60")))
            code, err = r.returncode, r.stderr.decode(errors="replace")
        except subprocess.TimeoutExpired:
            return [f"hung: {' '.join(args[1:])}"]
        after = snapshot(d)
        bad = []
        line = " ".join(args[1:])
        if code not in (0, 2):
            bad.append(f"exit {code}: {line}: {err.strip()[:300]}")
        if family == "ui" and code == 0:
            bad.append(f"the UI opened without a terminal: {line}")
        if any(n.endswith(".twoclocks-partial") for n in after):
            bad.append(f"unfinished copy left: {line}: {sorted(after)}")
        if "--input" in args and after.get("in.csv") != before["in.csv"]:
            bad.append(f"the input changed: {line}")
        for name, (kind, what) in before.items():
            now = after.get(name)
            if now is None:
                bad.append(f"{name} removed: {line}")
                continue
            if kind != "file" and now != (kind, what):
                bad.append(f"{name} ({kind}) became {now[0]}: {line}")
            if kind == "file" and now != (kind, what):
                was_target = any(
                    os.path.realpath(os.path.join(d, t)) == os.path.realpath(os.path.join(d, name))
                    for t in targets
                )
                if code != 0 or not force or not was_target:
                    bad.append(f"{name} changed (exit {code}, force {force}, target {was_target}): {line}")
        if code != 0:
            new = set(after) - set(before)
            if new:
                bad.append(f"a failed run made {sorted(new)}: {line}")
        if device_kinds() != kinds:
            bad.append(f"a device changed: {line}")
        return bad
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    devices = "--no-devices" not in sys.argv
    binary = os.path.abspath(args[0])
    cases = int(args[1]) if len(args) > 1 else 1000
    seed = int(args[2]) if len(args) > 2 else 1
    rng = random.Random(seed)
    violations = 0
    failing_cases = 0
    for _ in range(cases):
        bad = one_case(binary, rng, devices)
        if bad:
            failing_cases += 1
            violations += len(bad)
            for b in bad:
                print(b)
    print(f"{cases} cases (seed {seed}, devices {'on' if devices else 'off'}): "
          f"{failing_cases} with a violation, {violations} violations")
    sys.exit(1 if failing_cases else 0)


if __name__ == "__main__":
    main()
