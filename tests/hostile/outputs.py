#!/usr/bin/env python3
"""Hostile checks of the files twoclocks writes, run by hand (not in CI: it starts thousands
of processes). Random command lines give `--record`, `--cast`, `run --output` and `--plot` (on
`advise` and `frontier`, SVG and PNG, with `--input` or `advise --stats`) every kind of path (a
new file, an existing one, a read-only one, a symbolic link, a dangling link, a hard link to
the input, a named pipe nobody reads, a directory, a missing folder, the input itself under
other spellings, the `--stats` file, /dev/null and /dev/full), with and without `--force`;
some are stopped by SIGINT part way. Others plant something at an output's unfinished copy's
name (`.NAME.twoclocks-partial`): a hard link to the input or to another file, a symbolic
link, a dangling one, a named pipe, a directory, or a copy a killed run left. Others open the
UI in a pseudo-terminal, press `s` (save the screen) and `q`, with such things planted at the
saved screens' copies' names. After each:

- the program did not panic or hang (exit code 0 or 2, or 130 after SIGINT, within 60 s);
- no unfinished copy is left behind (but one planted, which stays as it was, or a killed
  run's copy, which the run may take over);
- the input is unchanged; links, pipes and devices are still what they were;
- a file that existed is unchanged unless the run succeeded (or was stopped) with `--force`
  and it was a target;
- a run that failed changed nothing at all; a saved screen has both its files, whole.

    python3 tests/hostile/outputs.py target/release/twoclocks [CASES] [SEED] [--no-devices]

It prints the cases run and every violation, then a summary line; exit status 1 if any.
"""

import os
import pty
import random
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

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
    with open(os.path.join(d, "in.svg"), "w") as f:
        f.write(LOG)
    with open(os.path.join(d, "old.svg"), "w") as f:
        f.write("an old plot\n")
    with open(os.path.join(d, "stats.svg"), "w") as f:
        f.write("not statistics\n")
    os.link(os.path.join(d, "in.csv"), os.path.join(d, "hard.png"))
    os.symlink("in.csv", os.path.join(d, "inlink.svg"))
    os.symlink("notes.txt", os.path.join(d, "link.png"))
    os.mkfifo(os.path.join(d, "pipe.svg"))
    os.mkdir(os.path.join(d, "adir.svg"))


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
PLOT_PATHS = [
    "new.svg",
    "new.png",
    "old.svg",
    "./old.svg",
    "in.svg",
    "./in.svg",
    "hard.png",
    "inlink.svg",
    "link.png",
    "pipe.svg",
    "adir.svg",
    "stats.svg",
    "nofolder/x.svg",
    "adir/../in.svg",
]
PLANTS = ["hard-input", "hard-notes", "symlink-notes", "symlink-input", "dangling", "fifo", "dir", "stale"]


def plant(d, name, kind):
    p = os.path.join(d, name)
    if kind == "hard-input":
        os.link(os.path.join(d, "in.csv"), p)
    elif kind == "hard-notes":
        os.link(os.path.join(d, "notes.txt"), p)
    elif kind == "symlink-notes":
        os.symlink("notes.txt", p)
    elif kind == "symlink-input":
        os.symlink("in.csv", p)
    elif kind == "dangling":
        os.symlink("nowhere", p)
    elif kind == "fifo":
        os.mkfifo(p)
    elif kind == "dir":
        os.mkdir(p)
    else:
        with open(p, "w") as f:
            f.write("half a killed run\n")


def device_kinds():
    return {d: stat.S_IFMT(os.stat(d).st_mode) for d in DEVICES if os.path.exists(d)}


def one_case(binary, rng, devices):
    paths = PATHS + (DEVICES if devices else [])
    d = tempfile.mkdtemp(prefix="hostile-")
    try:
        setup(d)
        before = snapshot(d)
        force = rng.random() < 0.5
        family = rng.choices(["ui", "run", "plot", "planted", "screen"], [3, 3, 3, 3, 0.5])[0]
        targets = []
        planted = set()
        stale = set()
        signal_after = None
        if family == "screen":
            return screen_case(binary, rng, d, before)
        if family == "planted":
            kind = rng.choice(PLANTS)
            which = rng.choice(["jsonl", "sqlite", "plot", "record"])
            name = {"jsonl": "new.out", "sqlite": "new.db", "plot": rng.choice(["new.svg", "new.png", "old.svg"]), "record": "new.rec"}[which]
            copy = f".{name}{PARTIAL}"
            plant(d, copy, kind)
            (stale if kind == "stale" else planted).add(copy)
            before = snapshot(d)
            targets.append(name)
            if which in ("jsonl", "sqlite"):
                args = [binary, "run", "--input", "in.csv", "--output", f"{which}:{name}"]
            elif which == "plot":
                args = [binary, rng.choice(["advise", "frontier"]), "--input", "in.csv", "--plot", name]
            else:
                args = [binary, "--input", "in.csv", "--record", name]
        elif family == "plot":
            args = [binary, rng.choice(["advise", "frontier"])]
            source = rng.choice([["--input", "in.csv"], ["--input", "in.svg", "--input-format", "csv"],
                                 ["--input", "inlink.svg", "--input-format", "csv"], ["--input", "missing.csv"],
                                 ["--events", "3000"], ["--stats", "stats.svg"]])
            if source[0] == "--stats" and args[1] != "advise":
                source = ["--events", "3000"]
            args += source
            p = rng.choice(PLOT_PATHS + (DEVICES if devices else []))
            targets.append(p)
            args += ["--plot", p]
            if rng.random() < 0.2:
                signal_after = rng.random() * 0.4
        elif family == "ui":
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
        # The files read (by any name: a link, a hard link) stay as they were.
        inodes = {n: os.stat(os.path.join(d, n)).st_ino for n, (k, _) in before.items() if k == "file"}
        input_inodes = set()
        for flag, value in zip(args, args[1:]):
            p = os.path.join(d, value)
            if flag in ("--input", "--stats") and os.path.exists(p):
                input_inodes.add(os.stat(p).st_ino)
        if family == "run" and rng.random() < 0.1:
            signal_after = rng.random() * 0.2
        try:
            proc = subprocess.Popen(args, cwd=d, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            if signal_after is not None:
                time.sleep(signal_after)
                if proc.poll() is None:
                    proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=float(os.environ.get("HOSTILE_TIMEOUT", "60")))
            code, err = proc.returncode, err.decode(errors="replace")
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            return [f"hung: {' '.join(args[1:])}"]
        after = snapshot(d)
        bad = []
        line = " ".join(args[1:])
        stopped = signal_after is not None and code in (128 + signal.SIGINT, -signal.SIGINT)
        if code not in (0, 2) and not stopped:
            bad.append(f"exit {code}: {line}: {err.strip()[:300]}")
        if "panicked" in err:
            bad.append(f"panic: {line}: {err.strip()[:300]}")
        if family in ("ui",) and code == 0:
            bad.append(f"the UI opened without a terminal: {line}")
        if planted and code == 0:
            bad.append(f"ran over {sorted(planted)} planted at its copy's name: {line}")
        left = [n for n in after if n.endswith(PARTIAL) and n not in planted and n not in stale]
        if left:
            bad.append(f"unfinished copy left: {line}: {sorted(after)}")
        for name in before:
            if inodes.get(name) in input_inodes and after.get(name) != before[name]:
                bad.append(f"the input {name} changed: {line}")
        for name, (kind, what) in before.items():
            now = after.get(name)
            if now is None:
                if name not in stale:
                    bad.append(f"{name} removed: {line}")
                continue
            if kind != "file" and now != (kind, what):
                bad.append(f"{name} ({kind}) became {now[0]}: {line}")
            if kind == "file" and now != (kind, what):
                was_target = any(
                    os.path.realpath(os.path.join(d, t)) == os.path.realpath(os.path.join(d, name))
                    for t in targets
                )
                if code not in (0, 128 + signal.SIGINT, -signal.SIGINT) or not force or not was_target:
                    bad.append(f"{name} changed (exit {code}, force {force}, target {was_target}): {line}")
        if code == 0 or stopped:
            for t in targets:
                p = os.path.join(d, t)
                key = os.path.normpath(t)
                if key in before and before[key] == after.get(key):
                    continue
                if t.endswith(".svg") and os.path.isfile(p) and not open(p, "rb").read().rstrip().endswith(b"</svg>"):
                    bad.append(f"{t} is not a whole SVG: {line}")
                if t.endswith(".png") and os.path.isfile(p) and not open(p, "rb").read().endswith(b"IEND\xaeB`\x82"):
                    bad.append(f"{t} is not a whole PNG: {line}")
        if code != 0:
            new = set(after) - set(before)
            if stopped:
                # Stopped after some outputs were put in place: those are whole (checked
                # above as changed targets); no other file appears.
                new -= {os.path.normpath(t) for t in targets if os.path.isfile(os.path.join(d, t))}
            if new:
                bad.append(f"a failed run (exit {code}) made {sorted(new)}: {line}")
        if device_kinds() != kinds:
            bad.append(f"a device changed: {line}")
        return bad
    finally:
        shutil.rmtree(d, ignore_errors=True)


PARTIAL = ".twoclocks-partial"


def screen_case(binary, rng, d, before):
    """The UI in a pseudo-terminal: `s`, then `q`, with something planted (or not) at the
    unfinished copies' names of the screens saved in the next seconds."""
    kind = rng.choice(PLANTS + [None, None])
    planted = set()
    now = time.time()
    if kind is not None:
        for ahead in range(0, 8):
            stamp = time.strftime("%Y-%m-%d-%H%M%S", time.localtime(now + ahead))
            for ext in rng.sample(["svg", "txt"], rng.randint(1, 2)):
                copy = f".twoclocks-{stamp}.{ext}{PARTIAL}"
                plant(d, copy, kind)
                planted.add(copy)
        before = snapshot(d)
    args = [binary] + rng.choice([[], ["--input", "in.csv"]])
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(d)
        os.environ["TERM"] = "xterm-256color"
        os.execv(binary, args)
    import fcntl
    import struct
    import termios
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    out = b""
    deadline = time.time() + 30
    sent = []
    status = None
    while time.time() < deadline:
        import select
        r, _, _ = select.select([fd], [], [], 0.1)
        if r:
            try:
                out += os.read(fd, 65536)
            except OSError:
                pass
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = st
            break
        t = 30 - (deadline - time.time())
        if t > 0.6 and "s" not in sent:
            os.write(fd, b"s")
            sent.append("s")
        if t > 1.0 and "q" not in sent:
            os.write(fd, b"q")
            sent.append("q")
    line = f"screen {' '.join(args[1:])} planted {kind}"
    if status is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)
        return [f"hung: {line}"]
    os.close(fd)
    code = os.waitstatus_to_exitcode(status)
    bad = []
    after = snapshot(d)
    if code != 0:
        bad.append(f"exit {code}: {line}")
    left = [n for n in after if n.endswith(PARTIAL) and n not in planted]
    if left:
        bad.append(f"unfinished copy left: {line}: {sorted(left)}")
    for name, was in before.items():
        if after.get(name) != was and not (kind == "stale" and name in planted and name not in after):
            bad.append(f"{name} changed: {line}")
    new = sorted(set(after) - set(before))
    svgs = [n for n in new if n.endswith(".svg")]
    txts = [n for n in new if n.endswith(".txt")]
    if [n[:-4] for n in svgs] != [n[:-4] for n in txts] or len(new) != len(svgs) + len(txts):
        bad.append(f"a screen saved by halves: {line}: {new}")
    for n in svgs:
        if not after[n][1].rstrip().endswith(b"</svg>"):
            bad.append(f"{n} is not whole: {line}")
    if kind is None and not svgs:
        bad.append(f"no screen saved: {line}")
    return bad


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
