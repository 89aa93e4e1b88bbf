# SPDX-License-Identifier: MIT
"""oracle_target.py OUT.json - a process that stops itself (SIGSTOP) in a
set of known states, for check_oracle.py to compare tachyon-record's view
of it with CPython's own (_remote_debugging.RemoteUnwinder).

Threads, each in its own state when the process stops:
  parked_*   parked on locks (a Lock, an Event, a Queue) at several depths
  hot_*      four threads running the same hot function (in a
             free-threaded build each runs its own copy of its bytecode)
  deep_*     a recursion 200 deep, and one 400 deep (beyond the 256 frames
             a log keeps), parked at the bottom
  gen_*      generators: nested with `yield from`, and one driven by C
             code (sum() over a generator expression)
  c_*        C code between Python frames: a sorted() key function, a
             map() function
  aio_*      asyncio, each with its own loop, its running task parked in a
             synchronous call: gather, TaskGroup, nested tasks, a task
             awaiting another task
Before it stops, the main thread writes OUT.json: the process id and, for
every thread, its native id, its kind and its frames root first as
sys._current_frames() sees them (file, line, qualified name) once the
parked threads are asleep; the main thread's innermost frame is given at
the line that stops the process.
"""
import asyncio
import json
import os
import queue
import signal
import sys
import threading
import time

GATE = threading.Lock()
GATE.acquire()  # never released: parked threads wait on it
NEVER = threading.Event()
EMPTY = queue.Queue()


def park():
    GATE.acquire()  # PARK


# --- parked on locks -------------------------------------------------------

def parked_lock():
    park()


def parked_event_inner():
    NEVER.wait()


def parked_event():
    parked_event_inner()


def parked_queue():
    EMPTY.get()


# --- four threads in one hot function --------------------------------------

def hot(n):
    total = 0
    while True:
        for i in range(n):
            total += i * i
        total %= 1000003


def hot_thread():
    hot(1000)


# --- deep recursion --------------------------------------------------------

def recurse(k):
    if k == 0:
        park()
    return recurse(k - 1)


def deep_200():
    recurse(200)


def deep_400():
    recurse(400)


# --- generators ------------------------------------------------------------

def gen_inner():
    yield 1
    park()
    yield 2


def gen_outer():
    yield from gen_inner()


def gen_nested():
    for _ in gen_outer():
        pass


def gen_blocking():
    yield 1
    park()


def gen_by_c():
    return sum(x for x in gen_blocking())


# --- C code between Python frames ------------------------------------------

def key_park(x):
    if x == 2:
        park()
    return x


def c_sorted():
    return sorted([3, 1, 2], key=key_park)


def map_park(x):
    park()
    return x


def c_map():
    return list(map(map_park, [1]))


# --- asyncio ---------------------------------------------------------------

async def leaf_block():
    park()


async def mid_coro():
    await leaf_block()


async def aio_gather_main():
    await asyncio.gather(asyncio.sleep(3600), mid_coro())


async def tg_worker():
    await mid_coro()


async def aio_taskgroup_main():
    async with asyncio.TaskGroup() as tg:
        tg.create_task(asyncio.sleep(3600))
        tg.create_task(tg_worker())


async def nested_2():
    park()


async def nested_1():
    await asyncio.create_task(nested_2())


async def aio_nested_main():
    await asyncio.create_task(nested_1())


async def awaited():
    await asyncio.sleep(0)
    park()


async def awaiting(task):
    await task


async def aio_await_main():
    target = asyncio.create_task(awaited())
    waiter = asyncio.create_task(awaiting(target))
    await waiter


def aio(main):
    return lambda: asyncio.run(main())


SCENARIOS = {
    "parked_lock": parked_lock,
    "parked_event": parked_event,
    "parked_queue": parked_queue,
    "hot_1": hot_thread,
    "hot_2": hot_thread,
    "hot_3": hot_thread,
    "hot_4": hot_thread,
    "deep_200": deep_200,
    "deep_400": deep_400,
    "gen_nested": gen_nested,
    "gen_by_c": gen_by_c,
    "c_sorted": c_sorted,
    "c_map": c_map,
    "aio_gather": aio(aio_gather_main),
    "aio_taskgroup": aio(aio_taskgroup_main),
    "aio_nested": aio(aio_nested_main),
    "aio_await": aio(aio_await_main),
}


def frames_of(frame):
    """A thread's frames root first: [file, line, qualified name]."""
    out = []
    while frame is not None:
        out.append([frame.f_code.co_filename, frame.f_lineno,
                    frame.f_code.co_qualname])
        frame = frame.f_back
    return out[::-1]


def asleep(native_id):
    """Whether the thread sleeps in the kernel (state S), as a parked one
    does once it is inside its lock."""
    try:
        with open(f"/proc/self/task/{native_id}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "S"
    except OSError:
        return False


def settled(threads):
    """Every non-hot thread asleep with the same frames twice in a row."""
    first = sys._current_frames()
    time.sleep(0.05)
    second = sys._current_frames()
    for name, t in threads.items():
        if name.startswith("hot"):
            continue
        if not asleep(t.native_id) or t.ident not in first or \
                frames_of(first[t.ident]) != frames_of(second[t.ident]):
            return False
    return True


def stop_line():
    """The line of freeze() that stops the process."""
    with open(__file__) as f:
        for n, line in enumerate(f, 1):
            if line.rstrip().endswith("# STOP") and "os.kill" in line:
                return n
    raise RuntimeError("no STOP line")


def freeze(threads, out):
    """Write what every thread is doing, then stop the whole process."""
    frames = sys._current_frames()
    me = threading.current_thread()
    report = {"pid": os.getpid(), "version": sys.version,
              "free_threaded": not getattr(sys, "_is_gil_enabled",
                                           lambda: True)(),
              "threads": []}
    for name, t in list(threads.items()) + [("main", me)]:
        stack = frames_of(frames[t.ident])
        if name == "main":
            stack[-1][1] = stop_line()
        report["threads"].append({"name": name, "tid": t.native_id,
                                  "kind": name.split("_")[0],
                                  "frames": stack})
    with open(out + ".tmp", "w") as f:
        json.dump(report, f)
    os.rename(out + ".tmp", out)
    os.kill(os.getpid(), signal.SIGSTOP)  # STOP


def main():
    out = sys.argv[1]
    threads = {name: threading.Thread(target=fn, name=name, daemon=True)
               for name, fn in SCENARIOS.items()}
    for t in threads.values():
        t.start()
    deadline = time.monotonic() + 30
    while not settled(threads):
        if time.monotonic() > deadline:
            sys.exit("oracle_target: threads did not settle in 30 s")
        time.sleep(0.05)
    freeze(threads, out)
    time.sleep(60)  # until the checker ends it


if __name__ == "__main__":
    main()
