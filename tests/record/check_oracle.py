# SPDX-License-Identifier: MIT
"""CPython's own view as the oracle (3.14 and 3.14t): start
oracle_target.py, which stops itself (SIGSTOP) with its threads in known
states (parked on locks, four in one hot function, deep recursions,
generators, C code between Python frames, asyncio gather, TaskGroup,
nested tasks, a task awaiting another), then require, for every thread:

- tachyon-record --dump shows, innermost first, exactly the frames (file,
  line, function) of _remote_debugging.RemoteUnwinder, the unwinder
  CPython 3.14 ships; RemoteUnwinder stops at the first frame entered
  from C code (threading's Context.run, a task's step, sorted()), so it
  is compared with the innermost end of ours;
- the rest of ours, down to the thread's first frame, is what the target
  wrote of itself just before it stopped (sys._current_frames(); the
  innermost line of a hot thread is the only one that moved since, and
  it is RemoteUnwinder's); a recursion deeper than 256 frames keeps its
  innermost 256, as a log does;
- a short recording of the stopped process (-a --opcodes) has that same
  stack in every sample, and each frame's opcode is a variant of the
  instruction dis shows at the frame's position in the code object the
  same source compiles to (in a free-threaded build, read from the
  thread's own copy of its bytecode, which -v counts).
"""
import argparse
import dis
import json
import opcode
import os
import re
import signal
import subprocess
import sys
import time

from rec_common import check, decode, finish, tool_args

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = os.path.join(HERE, "oracle_target.py")
KEPT = 256  # frames a log and the dump keep, innermost first


def stopped(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "T"
    except OSError:
        return False


def start_target(report):
    """Start the target and wait until it has stopped itself."""
    if os.path.exists(report):
        os.unlink(report)
    p = subprocess.Popen([sys.executable, TARGET, report],
                         start_new_session=True)
    deadline = time.monotonic() + 60
    while not (os.path.exists(report) and stopped(p.pid)):
        if p.poll() is not None or time.monotonic() > deadline:
            return p, None
        time.sleep(0.05)
    with open(report) as f:
        return p, json.load(f)


def remote_view(pid):
    """RemoteUnwinder's frames per native thread id, innermost first."""
    import _remote_debugging
    u = _remote_debugging.RemoteUnwinder(pid, all_threads=True)
    return {t.thread_id: [(f.filename, f.lineno, f.funcname)
                          for f in t.frame_info]
            for t in u.get_stack_trace()}


THREAD_RE = re.compile(r"^Stack dump(?: for PID \d+)?, thread (\d+) \(")
FRAME_RE = re.compile(r'^  File "(.*)", line (\d+), in (\S+)$')


def dump_view(recorder, pid):
    """--dump's frames per thread id, innermost first; run from / so that
    file names are shown whole."""
    p = subprocess.run([recorder, "--dump", "-p", str(pid)], cwd="/",
                       capture_output=True, encoding="utf-8", timeout=60)
    check(p.returncode == 0, f"--dump exit {p.returncode}: {p.stderr}")
    threads, cur = {}, None
    for line in p.stdout.splitlines():
        m = THREAD_RE.match(line)
        if m:
            cur = threads.setdefault(int(m.group(1)), [])
            continue
        m = FRAME_RE.match(line)
        if m and cur is not None:
            cur.append((m.group(1), int(m.group(2)), m.group(3)))
    return {tid: frames[::-1] for tid, frames in threads.items()}


def compare_remote(name, ours, remote):
    """Ours, innermost first, begins with exactly RemoteUnwinder's (its
    innermost 256 when it has more, as ours keeps)."""
    remote = remote[:KEPT]
    got = ours[:len(remote)]
    if got != remote:
        at = next((i for i, (a, b) in enumerate(zip(got, remote)) if a != b),
                  min(len(got), len(remote)))
        check(False, f"{name}: frame {at} (innermost 0): ours "
              f"{got[at] if at < len(got) else None}, RemoteUnwinder "
              f"{remote[at] if at < len(remote) else None}")
        return False
    return True


def compare_self(t, ours, remote):
    """Ours against the target's own report, all the way to the root."""
    want = [tuple(f) for f in t["frames"]][::-1]
    if t["kind"] == "hot" and want and remote:
        want[0] = (want[0][0], remote[0][1], want[0][2])
    want = want[:KEPT]
    if ours != want:
        at = next((i for i, (a, b) in enumerate(zip(ours, want)) if a != b),
                  min(len(ours), len(want)))
        check(False, f"{t['name']}: {len(ours)} frames, the target wrote "
              f"{len(want)}; frame {at} (innermost 0): ours "
              f"{ours[at] if at < len(ours) else None}, the target's "
              f"{want[at] if at < len(want) else None}")
        return False
    return True


def record_view(args, pid):
    """A short recording of the stopped process: stacks per thread id
    (innermost first, with positions and opcodes), and -v's count of
    frames on a thread's own bytecode copy (None when not printed)."""
    out = args.out + ".bin"
    p = subprocess.run([args.recorder, "-v", "-f", "-a", "--opcodes", "-d",
                        "0.5", "-r", "200", "-o", out, "-p", str(pid)],
                       capture_output=True, encoding="utf-8", timeout=60)
    check(p.returncode == 0, f"recording exit {p.returncode}: {p.stderr}")
    m = re.search(r"(\d+) of (\d+) frames ran on their thread's own copy",
                  p.stderr)
    own = (int(m.group(1)), int(m.group(2))) if m else None
    got = decode(args.dump, out)
    stacks = {}
    for tid, _, _, stack in (got[2] if got else []):
        frames = tuple((path, line, func, end, col, endcol, op)
                       for func, path, line, end, col, endcol, op
                       in stack[::-1])
        stacks.setdefault(tid, set()).add(frames)
    return stacks, own


def base_names():
    """Opcode byte -> its base instruction's name, in this interpreter."""
    names = {op: name for name, op in opcode.opmap.items()}
    specialized = getattr(opcode, "_specialized_opmap", {})
    for base, variants in getattr(opcode, "_specializations", {}).items():
        for v in variants:
            names[specialized.get(v, opcode.opmap.get(v))] = base
    return names


class Sources:
    """Code objects compiled from the targets' files, as the target
    compiled them (same interpreter, same source)."""

    def __init__(self):
        self.codes = {}

    def instructions(self, path, qualname):
        if path not in self.codes:
            try:
                with open(path, encoding="utf-8") as f:
                    top = compile(f.read(), path, "exec")
            except (OSError, SyntaxError, ValueError):
                top = None
            found = []
            todo = [top] if top else []
            while todo:
                c = todo.pop()
                found.append(c)
                todo.extend(k for k in c.co_consts if hasattr(k, "co_code"))
            self.codes[path] = found
        return [i for c in self.codes[path] if c.co_qualname == qualname
                for i in dis.get_instructions(c)]


def check_opcodes(name, stack, sources, bases):
    """Every frame's opcode is a variant of an instruction dis shows at the
    frame's position in its code; returns the frames checked."""
    n = 0
    for path, line, func, end, col, endcol, op in stack:
        insts = sources.instructions(path, func)
        if not insts:
            continue
        pos = (line, end, col, endcol)
        at = {i.opname for i in insts if i.positions and
              (i.positions.lineno, i.positions.end_lineno,
               i.positions.col_offset, i.positions.end_col_offset) == pos}
        base = bases.get(op)
        n += 1
        if not check(base in at, f"{name}: {func} at {pos}: opcode {op} "
                     f"({base}) is not an instruction there ({sorted(at)})"):
            return n
    return n


def check_thread(t, remote, dump, recorded, sources, bases):
    name, tid = t["name"], t["tid"]
    if not check(tid in remote and tid in dump,
                 f"{name}: thread {tid} missing (RemoteUnwinder "
                 f"{tid in remote}, --dump {tid in dump})"):
        return 0
    r, ours = remote[tid], dump[tid]
    ok = compare_remote(name, ours, r) & compare_self(t, ours, r)
    stacks = recorded.get(tid, set())
    if not check(len(stacks) == 1, f"{name}: {len(stacks)} different "
                 f"stacks recorded of a stopped thread"):
        return 0
    stack = next(iter(stacks))
    check([f[:3] for f in stack] == ours,
          f"{name}: the recording's stack is not --dump's")
    n = check_opcodes(name, stack, sources, bases)
    if ok:
        print(f"{name}: {len(ours)} frames, RemoteUnwinder's "
              f"{min(len(r), KEPT)} innermost equal, the rest as the target "
              f"wrote; "
              f"{n} opcodes as dis")
    return n


def main():
    ap = argparse.ArgumentParser()
    tool_args(ap)
    args = ap.parse_args()
    target, report = start_target(args.out + ".json")
    try:
        if not check(report is not None, "the target did not stop itself"):
            return finish()
        pid = report["pid"]
        remote = remote_view(pid)
        dump = dump_view(args.recorder, pid)
        recorded, own = record_view(args, pid)
        sources, bases = Sources(), base_names()
        checked = sum(check_thread(t, remote, dump, recorded, sources, bases)
                      for t in report["threads"])
        print(f"{len(report['threads'])} threads, {checked} opcodes checked "
              f"against dis; {sys.version.split()[0]}"
              f"{' free-threaded' if report['free_threaded'] else ''}")
        check(checked > 100, f"only {checked} opcodes checked")
        if report["free_threaded"]:
            print(f"frames on their thread's own bytecode copy: {own}")
            check(own and own[0] > 0, "no frame read from a thread's own "
                  "bytecode copy")
    finally:
        os.killpg(target.pid, signal.SIGKILL)
        target.wait()
    return finish()


if __name__ == "__main__":
    sys.exit(main())
