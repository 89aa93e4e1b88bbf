# SPDX-License-Identifier: MIT
"""--async-aware against CPython's own view of the task graph (3.14 and
3.14t), and its refusal on 3.11-3.13 (--refused).

Starts async_target.py, which stops itself (SIGSTOP) with asyncio tasks in
known states (gather, TaskGroup, nested tasks, a task awaiting another,
one awaited by two, named and renamed tasks, thousands of idle tasks, a
second thread with its own loop), then requires, in both modes (running:
each thread's running task; all: every task):

- tachyon-record --dump --async-aware shows, for the main thread, exactly
  the stacks CPython 3.15's collector builds (collector.py,
  iter_async_frames, reimplemented below) from
  _remote_debugging.RemoteUnwinder's get_async_stack_trace() and
  get_all_awaited_by(): one per leaf task, the same leaves, each frame
  (file, line, function) and each <task> frame's name, thread and order;
  3.14's RemoteUnwinder reads only the main thread's task list, so
- for every thread, the stacks equal those built the same way from the
  target's own report of its tasks (names, coroutine chains through
  cr_await, awaiters from _asyncio_awaited_by, the running tasks' frames
  from sys._current_frames()), which must itself agree with
  RemoteUnwinder's on the main thread;
- a short recording of the stopped process has those stacks, each once
  per tick with the right thread and status, and tachyon-conv's collapsed
  output shows them as CPython's would (<task>:NAME:0 frames);
- a live service whose tasks come and go all the time
  (async_churn.py) records in both modes with at most a fifth of the
  ticks dropped (lists that changed while they were read), every stack
  rooted at a <task> frame of a worker or the main task, and in all mode
  the 500 idle tasks in every tick.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time

from rec_common import MAIN_THREAD, check, decode, finish, tool_args

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = os.path.join(HERE, "async_target.py")
CHURN = os.path.join(HERE, "async_churn.py")
TASK = "<task>"


def stopped(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "T"
    except OSError:
        return False


def start_target(report, idle):
    if os.path.exists(report):
        os.unlink(report)
    p = subprocess.Popen([sys.executable, TARGET, report, str(idle)],
                         start_new_session=True)
    deadline = time.monotonic() + 90
    while not (os.path.exists(report) and stopped(p.pid)):
        if p.poll() is not None or time.monotonic() > deadline:
            return p, None
        time.sleep(0.05)
    with open(report) as f:
        return p, json.load(f)


def linear_stacks(tasks):
    """CPython 3.15's collector (iter_async_frames): one stack per leaf
    task, innermost first, joined by <task> frames; `tasks` maps a task
    id to {tid, name, frames, awaited_by}. Returns {leaf: (tid, frames)}."""
    parents, all_parents = {}, set()
    for tid, t in tasks.items():
        if t["awaited_by"]:
            ids = list(t["awaited_by"])
            all_parents.update(ids)
            parents[tid] = (min(ids), len(ids))
    out = {}
    for leaf in set(tasks) - all_parents:
        frames, visited, cur, thread = [], set(), leaf, None
        while cur is not None and cur not in visited and cur in tasks:
            visited.add(cur)
            t = tasks[cur]
            thread = t["tid"] if thread is None else thread
            frames += [tuple(f) for f in t["frames"]]
            name = t["name"] or f"Task-{cur}"
            parent = parents.get(cur)
            if parent and parent[1] > 1:
                name = f"{name} ({parent[1]} parents)"
            frames.append((TASK, 0, name))
            cur = parent[0] if parent else None
        out[leaf] = (thread, frames)
    return out


def remote_tasks(awaited_info):
    """RemoteUnwinder's AwaitedInfo list as linear_stacks' input."""
    tasks = {}
    for info in awaited_info:
        for t in info.awaited_by:
            frames = [(f.filename, f.lineno, f.funcname)
                      for c in t.coroutine_stack for f in c.call_stack]
            tasks[t.task_id] = {"tid": info.thread_id, "name": t.task_name,
                                "frames": frames,
                                "awaited_by": [c.task_name
                                               for c in t.awaited_by]}
    return tasks


def remote_view(pid):
    import _remote_debugging
    u = _remote_debugging.RemoteUnwinder(pid, all_threads=True)
    return {"all": remote_tasks(u.get_all_awaited_by()),
            "running": remote_tasks(u.get_async_stack_trace())}


def own_tasks(report, names):
    """The target's report as linear_stacks' input, per mode; names the
    report left out (idle tasks keep an int name) come from `names`."""
    every = {}
    for t in report["tasks"]:
        every[t["id"]] = {"tid": t["tid"],
                          "name": t["name"] or names.get(t["id"]),
                          "frames": t["coro"], "awaited_by": t["awaited_by"],
                          "running": t["running"]}
    running = {}
    for tid, stack in report["running_stacks"].items():
        root = next(i for i, t in every.items()
                    if t["running"] and str(t["tid"]) == tid)
        todo = [root]
        while todo:
            i = todo.pop()
            if i in running or i not in every:
                continue
            running[i] = dict(every[i], tid=int(tid))
            todo += every[i]["awaited_by"]
        running[root]["frames"] = stack
    return {"all": every, "running": running}


HEAD_RE = re.compile(r"^Stack dump(?: for PID \d+)?, thread (\d+) "
                     r"\(task (\d+); most recent call last\):$")
FRAME_RE = re.compile(r'^  File "(.*)", line (\d+), in (\S+)$')
TASK_RE = re.compile(r'^  File "<task>", in (.*)$')


def escaped(name):
    """A name as the dump shows it (tools/common/text_safe.h)."""
    out = []
    for c in name:
        o = ord(c)
        if c in "\t\n\r":
            out.append({"\t": "\\t", "\n": "\\n", "\r": "\\r"}[c])
        elif o < 0x20 or o == 0x7f:
            out.append(f"\\x{o:02x}")
        elif 0x80 <= o <= 0x9f or c in "\u2028\u2029":
            out.append(f"\\u{o:04x}")
        else:
            out.append(c)
    return "".join(out)


def as_dumped(stacks):
    """Stacks with their <task> names as the dump shows them."""
    return {k: (tid, [(TASK, 0, escaped(f[2])) if f[0] == TASK else f
                      for f in frames])
            for k, (tid, frames) in stacks.items()}


def dump_view(recorder, pid, mode):
    """--dump --async-aware's stacks: {leaf: (tid, frames innermost
    first)}, and the leaves in the order printed."""
    p = subprocess.run([recorder, "--dump", "--async-aware", "--async-mode",
                        mode, "-p", str(pid)], cwd="/", capture_output=True,
                       encoding="utf-8", timeout=120)
    check(p.returncode == 0, f"--dump {mode}: exit {p.returncode}: "
          f"{p.stderr}")
    stacks, order, cur = {}, [], None
    for line in p.stdout.splitlines():
        m = HEAD_RE.match(line)
        if m:
            cur = []
            leaf = int(m.group(2))
            check(leaf not in stacks, f"--dump {mode}: task {leaf} twice")
            stacks[leaf] = (int(m.group(1)), cur)
            order.append(leaf)
            continue
        m = TASK_RE.match(line)
        if m and cur is not None:
            cur.append((TASK, 0, m.group(1)))
            continue
        m = FRAME_RE.match(line)
        if m and cur is not None:
            cur.append((m.group(1), int(m.group(2)), m.group(3)))
    return {k: (tid, fr[::-1]) for k, (tid, fr) in stacks.items()}, order


def compare(what, ours, want):
    """Two {leaf: (tid, frames)} maps, equal; messages name the first
    difference."""
    ok = check(set(ours) == set(want),
               f"{what}: leaves differ: only ours "
               f"{sorted(set(ours) - set(want))[:5]}, only theirs "
               f"{sorted(set(want) - set(ours))[:5]}")
    for leaf in sorted(set(ours) & set(want)):
        (tid_a, a), (tid_b, b) = ours[leaf], want[leaf]
        if tid_a != tid_b or a != b:
            at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y),
                      min(len(a), len(b)))
            check(False, f"{what}: task {leaf}: thread {tid_a} vs {tid_b}; "
                  f"frame {at} (innermost 0): ours "
                  f"{a[at] if at < len(a) else None}, theirs "
                  f"{b[at] if at < len(b) else None}")
            ok = False
    return ok


def of_thread(stacks, tid):
    return {k: v for k, v in stacks.items() if v[0] == tid}


def record_view(args, pid, mode):
    """A short recording with --async-aware: per sample (tick) the stacks
    as (tid, status, frames innermost first), and the log's path."""
    out = f"{args.out}.{mode}.bin"
    p = subprocess.run([args.recorder, "-q", "-f", "--async-aware",
                        "--async-mode", mode, "-d", "0.4", "-r", "50", "-o",
                        out, "-p", str(pid)], capture_output=True,
                       encoding="utf-8", timeout=120)
    check(p.returncode == 0, f"recording {mode}: exit {p.returncode}: "
          f"{p.stderr}")
    got = decode(args.dump, out)
    rows = []
    for tid, status, weight, stack in (got[2] if got else []):
        frames = tuple((path, 0 if path == TASK else line, func)
                       for func, path, line, *_ in stack[::-1])
        rows += [(tid, status, frames)] * weight
    return rows, out


def check_recording(args, pid, mode, want, main_tid):
    rows, log = record_view(args, pid, mode)
    counts = {}
    for tid, status, frames in rows:
        key = (tid, frames)
        counts[key] = counts.get(key, 0) + 1
        check((status & MAIN_THREAD) == (MAIN_THREAD if tid == main_tid
                                         else 0),
              f"recording {mode}: status {status} on thread {tid}")
    expected = {(tid, tuple(fr)) for tid, fr in want.values()}
    check(set(counts) == expected,
          f"recording {mode}: {len(set(counts) - expected)} stacks not "
          f"expected, {len(expected - set(counts))} missing")
    ticks = set(counts.values())
    check(len(ticks) == 1, f"recording {mode}: stacks seen {ticks} times: "
          f"each should be in every tick")
    if args.conv:
        check_collapsed(args, log, mode, want, ticks)
    return len(rows)


def collapsed_line(tid, frames):
    parts = [f"{TASK}:{func}:0" if path == TASK
             else f"{os.path.basename(path)}:{func}:{line}"
             for path, line, func in frames[::-1]]
    return ";".join([f"tid:{tid}"] + parts)


def check_collapsed(args, log, mode, want, ticks):
    out = log + ".txt"
    p = subprocess.run([args.conv, "--to", "collapsed", "-f", "-o", out, log])
    if not check(p.returncode == 0, f"tachyon-conv {mode}: exit "
                 f"{p.returncode}"):
        return
    with open(out, encoding="utf-8", newline="") as f:
        # lines end at \n only: names are written as they are
        lines = {ln.rsplit(" ", 1)[0]: int(ln.rsplit(" ", 1)[1])
                 for ln in f.read().split("\n") if ln}
    expected = {collapsed_line(tid, fr) for tid, fr in want.values()}
    check(set(lines) == expected,
          f"collapsed {mode}: {len(set(lines) - expected)} lines not "
          f"expected (e.g. {sorted(set(lines) - expected)[:1]}), "
          f"{len(expected - set(lines))} missing")
    check(set(lines.values()) <= ticks, f"collapsed {mode}: counts "
          f"{set(lines.values())}, ticks {ticks}")


def run_mode(args, report, remote, mode, names):
    main_tid, side_tid = report["main_tid"], report["side_tid"]
    theirs = linear_stacks(remote[mode])
    own = linear_stacks(own_tasks(report, names)[mode])
    ours, order = dump_view(args.recorder, report["pid"], mode)
    compare(f"{mode}: the target's own report vs RemoteUnwinder (main "
            f"thread)", of_thread(own, main_tid), of_thread(theirs, main_tid))
    ok = compare(f"{mode}: --dump vs RemoteUnwinder (main thread)",
                 of_thread(ours, main_tid),
                 as_dumped(of_thread(theirs, main_tid)))
    ok &= compare(f"{mode}: --dump vs the target's own report", ours,
                  as_dumped(own))
    check(any(v[0] == side_tid for v in ours.values()),
          f"{mode}: no stack of the second thread's loop")
    samples = check_recording(args, report["pid"], mode, own, main_tid)
    if ok:
        tasks = sum(1 for v in ours.values()
                    for f in v[1] if f[0] == TASK)
        print(f"{mode}: {len(ours)} task stacks ({tasks} <task> frames), "
              f"RemoteUnwinder's {len(of_thread(theirs, main_tid))} on the "
              f"main thread equal, all as the target reports; {samples} "
              f"stacks recorded")


ROOT_RE = re.compile(r"^(worker-[0-3]|Task-\d+)$")


def live_service(args):
    """A service whose tasks come and go all the time, recorded in both
    modes: a valid log, few ticks dropped, and stacks that make sense
    (each ends at a <task> frame of a root task: a worker or the main
    task; in all mode the 500 idle tasks in every tick)."""
    for mode in ("running", "all"):
        out = f"{args.out}.live_{mode}.bin"
        target = subprocess.Popen([sys.executable, CHURN, "30"])
        try:
            time.sleep(1.0)
            p = subprocess.run([args.recorder, "-v", "-f", "--async-aware",
                                "--async-mode", mode, "-d", "1.5", "-r",
                                "200" if mode == "running" else "50", "-o",
                                out, "-p", str(target.pid)],
                               capture_output=True, encoding="utf-8",
                               timeout=120)
        finally:
            target.kill()
            target.wait()
        if not check(p.returncode == 0, f"live {mode}: exit {p.returncode}: "
                     f"{p.stderr}"):
            continue
        m = re.search(r"(\d+) ticks in .*?, (\d+) samples, (\d+) ticks "
                      r"failed", p.stderr)
        ticks, samples, failed = map(int, m.groups()) if m else (0, 0, 0)
        check(ticks > 0 and failed <= ticks // 5,
              f"live {mode}: {failed} of {ticks} ticks failed")
        got = decode(args.dump, out)
        rows = got[2] if got else []
        bad = [stack for _, _, _, stack in rows
               if not stack or stack[0][1] != TASK or
               not ROOT_RE.match(stack[0][0])]
        check(rows and not bad, f"live {mode}: {len(bad)} of {len(rows)} "
              f"stacks not rooted at a worker or the main task, e.g. "
              f"{bad[:1]}")
        if mode == "all":
            idle = sum(w for _, _, w, st in rows
                       if [f[0] for f in st[-2:]] == ["idle", "sleep"])
            check(idle >= 500 * (ticks - failed),
                  f"live all: {idle} idle stacks in {ticks - failed} ticks")
        print(f"live {mode}: {ticks} ticks, {failed} failed, {samples} task "
              f"stacks, every one rooted at a worker or the main task")


def no_asyncio(args):
    """A process that has not imported asyncio has no tasks: the dump
    says so, on stdout as CPython's does and in a warning."""
    p = subprocess.Popen([sys.executable, "-c",
                          "import time; time.sleep(60)"])
    try:
        time.sleep(0.5)
        r = subprocess.run([args.recorder, "--dump", "--async-aware", "-p",
                            str(p.pid)], capture_output=True,
                           encoding="utf-8", timeout=60)
    finally:
        p.kill()
        p.wait()
    check(r.returncode == 0 and
          r.stdout == f"No Python stacks found for PID {p.pid}\n" and
          r.stderr == f"tachyon-record: warning: process {p.pid} has not "
          f"imported asyncio: it has no tasks\n",
          f"no asyncio: exit {r.returncode}, {r.stdout!r}, {r.stderr!r}")


def refused(args):
    """3.11-3.13: a clear refusal naming the version."""
    p = subprocess.Popen([sys.executable, "-c",
                          "import asyncio, time; time.sleep(60)"])
    try:
        time.sleep(0.5)
        r = subprocess.run([args.recorder, "--dump", "--async-aware", "-p",
                            str(p.pid)], capture_output=True,
                           encoding="utf-8", timeout=60)
        v = sys.version_info
        want = (f"tachyon-record: process {p.pid}: --async-aware needs "
                f"CPython 3.14 or later (this is {v.major}.{v.minor}."
                f"{v.micro}): asyncio's task layout is only published from "
                f"3.14\n")
        check(r.returncode == 2, f"exit {r.returncode}, want 2")
        check(r.stderr == want, f"stderr {r.stderr!r}, want {want!r}")
        check(r.stdout == "", f"stdout {r.stdout!r}")
        print(f"{sys.version.split()[0]}: refused: {r.stderr.strip()}")
    finally:
        p.kill()
        p.wait()
    return finish()


def main():
    ap = argparse.ArgumentParser()
    tool_args(ap)
    ap.add_argument("--idle", type=int, default=2000)
    ap.add_argument("--refused", action="store_true")
    args = ap.parse_args()
    if args.refused:
        return refused(args)
    target, report = start_target(args.out + ".json", args.idle)
    try:
        if not check(report is not None, "the target did not stop itself"):
            return finish()
        remote = remote_view(report["pid"])
        names = {i: t["name"] for i, t in remote["all"].items()}
        for mode in ("running", "all"):
            run_mode(args, report, remote, mode, names)
        print(f"{len(report['tasks'])} tasks; {sys.version.split()[0]}"
              f"{' free-threaded' if report['free_threaded'] else ''}")
    finally:
        os.killpg(target.pid, signal.SIGKILL)
        target.wait()
    live_service(args)
    no_asyncio(args)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
