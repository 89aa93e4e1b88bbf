# SPDX-License-Identifier: MIT
"""A small request handler, recorded by scripts/fleet_example.sh into the
fleet example logs (testdata/fleet/). Version 42 renders responses with
indent and sorted keys, which makes json.dumps slower; a host given
--rounds 8 checksums every response eight times (an audit setting left
on).

usage: app.py VERSION SECONDS [--rounds N] [--worker]
"""
import hashlib
import json
import re
import sys
import time
import zlib

WORDS = re.compile(r"[a-z]+")


def make_request(i):
    items = [{"id": i * 31 + k, "name": "item-%d" % k, "tags": ["a", "b", "c"],
              "price": k * 1.25} for k in range(40)]
    return json.dumps({"user": "u%d" % (i % 97), "items": items})


def parse(raw):
    return json.loads(raw)


def render(obj, version):
    if version >= 42:
        return json.dumps(obj, indent=2, sort_keys=True)
    return json.dumps(obj)


def checksum(body):
    return hashlib.sha256(body).hexdigest()


def compress(body):
    return zlib.compress(body, 6)


def handle(raw, version, rounds):
    obj = parse(raw)
    obj["total"] = sum(item["price"] for item in obj["items"])
    body = render(obj, version).encode()
    for _ in range(rounds):
        checksum(body)
    return compress(body)


def reindex(text):
    counts = {}
    for word in WORDS.findall(text):
        counts[word] = counts.get(word, 0) + 1
    return sorted(counts.items(), key=lambda kv: -kv[1])[:10]


def serve(version, seconds, rounds):
    requests = [make_request(i) for i in range(64)]
    end = time.monotonic() + seconds
    i = 0
    while time.monotonic() < end:
        handle(requests[i % 64], version, rounds)
        i += 1


def work(seconds):
    text = " ".join(make_request(i) for i in range(16))
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        reindex(text)


def main(argv):
    version, seconds = int(argv[1]), float(argv[2])
    rounds = int(argv[argv.index("--rounds") + 1]) if "--rounds" in argv else 1
    if "--worker" in argv:
        work(seconds)
    else:
        serve(version, seconds, rounds)


if __name__ == "__main__":
    main(sys.argv)
