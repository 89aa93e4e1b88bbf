# SPDX-License-Identifier: MIT
"""async_target.py OUT.json [IDLE] - a process that stops itself (SIGSTOP)
with asyncio task graphs in known states, for check_async.py to compare
tachyon-record --async-aware with CPython's own view of them
(_remote_debugging.RemoteUnwinder) and with the target's own.

The main thread runs an event loop holding, when the process stops:
  gather     a task awaiting asyncio.gather() of a sleep and a coroutine
             that awaits two more coroutines down to an Event
  taskgroup  a TaskGroup of a sleeping task and one awaiting a coroutine
  nested     tasks created by tasks, three deep
  await      a task awaiting another task
  shared     one task awaited by two others (two parents)
  named      tasks named by the program, one of them with a name the
             program changed after it started
  idle       IDLE tasks (default 2000) asleep in asyncio.sleep()
  reporter   the running task: once every other task has settled it
             writes OUT.json and stops the process from a plain function
             it called
A second thread runs its own loop with a few tasks, one named with
non-ASCII characters, one with control characters in its name, one
whose coroutine is a Python object (as a
Cython coroutine would be: no CPython coroutine frame to read), its
running task parked in a synchronous lock acquire (CPython 3.14's RemoteUnwinder reads only the main thread's task
list, so this thread is compared with the target's own report alone).

OUT.json holds the process id and, for every task: its id (address), the
native id of the thread whose list holds it, its name, its coroutine
chain innermost first (file, line, qualified name; following cr_await
while it is a coroutine, as CPython's unwinder does), the ids of the
tasks awaiting it, and whether it is its thread's running task; plus, for
each running task, its thread's frames innermost first down to the
task's own coroutine frame.
"""
import asyncio
import collections.abc
import inspect
import json
import os
import signal
import sys
import threading
import time
import types

GATE = threading.Lock()
GATE.acquire()  # never released: the side thread's running task waits
NEVER = None  # the main loop's Event, set by main()


async def leaf_wait():
    await NEVER.wait()


async def mid_wait():
    await leaf_wait()


async def gather_main():
    await asyncio.gather(asyncio.sleep(3600), mid_wait())


async def tg_worker():
    await mid_wait()


async def taskgroup_main():
    async with asyncio.TaskGroup() as tg:
        tg.create_task(asyncio.sleep(3600), name="tg-sleeper")
        tg.create_task(tg_worker(), name="tg-worker")


async def nested_3():
    await NEVER.wait()


async def nested_2():
    await asyncio.create_task(nested_3(), name="nested-3")


async def nested_1():
    await asyncio.create_task(nested_2())


async def awaited():
    await asyncio.sleep(3600)


async def awaiting(task):
    await task


async def shared_waiter(task):
    await task


async def renamed():
    await asyncio.sleep(3600)


async def idle():
    await asyncio.sleep(3600)


class Handmade(collections.abc.Coroutine):
    """A coroutine that is no CPython coroutine object: it waits on a
    Future of its own forever."""

    def __init__(self):
        self.fut = None

    def send(self, value):
        if self.fut is None:
            self.fut = asyncio.get_running_loop().create_future()
        self.fut._asyncio_future_blocking = True
        return self.fut

    def throw(self, *exc):
        raise exc[-1] if len(exc) == 1 else exc[1]

    def close(self):
        pass

    def __await__(self):
        return self


def coro_chain(coro):
    """A coroutine's frames innermost first, as CPython's unwinder reads
    them: the coroutine, then what it awaits while that is a coroutine;
    none for one that is no CPython coroutine."""
    chain = []
    if not isinstance(coro, (types.CoroutineType, types.GeneratorType)):
        return chain
    kind = type(coro)
    while coro is not None and type(coro) is kind:
        frame = coro.cr_frame
        if frame is None:
            break
        chain.append([frame.f_code.co_filename, frame.f_lineno,
                      frame.f_code.co_qualname])
        coro = coro.cr_await
    return chain[::-1]


def frames_down_to(frame, stop):
    """Frames from `frame` outwards, innermost first, to `stop` included."""
    out = []
    while frame is not None:
        out.append([frame.f_code.co_filename, frame.f_lineno,
                    frame.f_code.co_qualname])
        if frame is stop:
            break
        frame = frame.f_back
    return out


def describe(task, tid, running, named=True):
    """A task as the report gives it; `named`: ask its name (which makes
    a number-named task's name a str; idle tasks keep their number)."""
    coro = task.get_coro()
    waiters = task._asyncio_awaited_by or ()
    return {"id": id(task), "tid": tid,
            "name": task.get_name() if named else None,
            "coro": coro_chain(coro),
            "awaited_by": sorted(id(w) for w in waiters),
            "running": running}


def marked_line(mark):
    """The line of this file that ends with the comment `mark`."""
    with open(__file__) as f:
        for n, line in enumerate(f, 1):
            if line.rstrip().endswith("# " + mark):
                return n
    raise RuntimeError("no line marked " + mark)


def freeze(out, report):
    """Write the report (this frame's line is the STOP line), then stop."""
    me = sys._getframe()
    report["running_stacks"][str(threading.get_native_id())] = \
        frames_down_to(me, report.pop("_main_coro_frame"))
    report["running_stacks"][str(threading.get_native_id())][0][1] = \
        marked_line("STOP")
    with open(out + ".tmp", "w") as f:
        json.dump(report, f)
    os.rename(out + ".tmp", out)
    os.kill(os.getpid(), signal.SIGSTOP)  # STOP


def report_then_stop(out, report):
    freeze(out, report)


class Side:
    """A thread with its own loop; its running task parks on GATE."""

    def __init__(self):
        self.ready = threading.Event()
        self.tasks = []
        self.thread = threading.Thread(target=self.run, name="side",
                                       daemon=True)

    async def parked(self):
        self.frame = sys._getframe()
        self.ready.set()
        GATE.acquire()  # PARK

    async def side_main(self):
        self.loop = asyncio.get_running_loop()
        t1 = asyncio.create_task(asyncio.sleep(3600), name="dormir-été")
        t2 = asyncio.create_task(awaiting(t1), name="side-waiter")
        t3 = asyncio.create_task(Handmade(), name="handmade")
        # a name with what a terminal would act on: data, shown escaped
        t4 = asyncio.create_task(asyncio.sleep(3600),
                                 name="evil\x1b[31m\u2028\x9bend")
        self.tasks += [t1, t2, t3, t4]
        await asyncio.sleep(0)
        await asyncio.create_task(self.parked(), name="side-parked")

    def run(self):
        self.tid = threading.get_native_id()
        asyncio.run(self.side_main())


async def settle():
    """Until every other task of this loop has started and is suspended."""
    me = asyncio.current_task()
    for _ in range(500):
        await asyncio.sleep(0.01)
        if all(t is me or inspect.getcoroutinestate(t.get_coro()) ==
               inspect.CORO_SUSPENDED for t in asyncio.all_tasks()):
            return
    raise RuntimeError("tasks did not settle")


async def main(out, n_idle):
    global NEVER
    NEVER = asyncio.Event()
    side = Side()
    side.thread.start()
    tasks = [asyncio.create_task(gather_main()),
             asyncio.create_task(taskgroup_main(), name="taskgroup-main"),
             asyncio.create_task(nested_1(), name="nested-1")]
    target = asyncio.create_task(awaited(), name="awaited")
    tasks += [target, asyncio.create_task(awaiting(target))]
    shared = asyncio.create_task(asyncio.sleep(3600), name="shared")
    tasks += [shared,
              asyncio.create_task(shared_waiter(shared), name="waiter-a"),
              asyncio.create_task(shared_waiter(shared), name="waiter-b")]
    r = asyncio.create_task(renamed(), name="before")
    tasks.append(r)
    idle_tasks = {asyncio.create_task(idle()) for _ in range(n_idle)}
    await settle()
    r.set_name("after-rename")
    if not side.ready.wait(30) or len(side.tasks) < 4:
        sys.exit("async_target: the second thread's loop did not start")
    me = asyncio.current_task()
    main_tid = threading.get_native_id()
    report = {"pid": os.getpid(), "version": sys.version,
              "free_threaded": not getattr(sys, "_is_gil_enabled",
                                           lambda: True)(),
              "main_tid": main_tid, "side_tid": side.tid,
              "tasks": [], "running_stacks": {}}
    for t in asyncio.all_tasks():
        report["tasks"].append(describe(t, main_tid, t is me,
                                        t not in idle_tasks))
        if t is me:  # where it stands when the process stops
            report["tasks"][-1]["coro"][0][1] = marked_line("CALL")
    side_running = [t for t in asyncio.all_tasks(side.loop)]
    for t in side_running:
        running = t.get_name() == "side-parked"
        report["tasks"].append(describe(t, side.tid, running))
    # the side thread's running task: its frames down to its coroutine
    report["running_stacks"][str(side.tid)] = frames_down_to(
        sys._current_frames()[side.thread.ident], side.frame)
    report["_main_coro_frame"] = sys._getframe()
    report_then_stop(out, report)  # CALL


if __name__ == "__main__":
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    asyncio.run(main(sys.argv[1], n))
