# SPDX-License-Identifier: MIT
"""async_churn.py SECONDS - an asyncio service that never stands still,
for check_async.py: 500 idle tasks, and four workers named worker-0 to
worker-3, each gathering 20 short tasks (CPU work, then a yield) over and
over, so that tasks are created, run and ended all the time while
tachyon-record --async-aware reads the task lists and the running task.
"""
import asyncio
import sys


def spin(n):
    total = 0
    for i in range(n):
        total += i
    return total


async def idle():
    await asyncio.sleep(3600)


async def short(i):
    spin(300)
    await asyncio.sleep(0)
    return i


async def worker():
    while True:
        await asyncio.gather(*(short(i) for i in range(20)))


async def main(seconds):
    keep = [asyncio.create_task(idle()) for _ in range(500)]
    keep += [asyncio.create_task(worker(), name=f"worker-{k}")
             for k in range(4)]
    await asyncio.sleep(seconds)


asyncio.run(main(float(sys.argv[1])))
