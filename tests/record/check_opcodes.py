"""libtachyonfmt's opcode table for this interpreter's version against
the interpreter itself (dis and opcode, through scripts/gen_opcodes.py):
every byte's name, base instruction and inline cache units.

  check_opcodes.py OPCODE_PRINT            this interpreter's version
  check_opcodes.py OPCODE_PRINT JSON       a version dumped elsewhere
                                           (scripts/opcodes/3.14.json)
"""
import json
import os
import subprocess
import sys

from rec_common import check, finish

HERE = os.path.dirname(os.path.abspath(__file__))
GEN = os.path.join(HERE, "..", "..", "scripts", "gen_opcodes.py")


def main():
    printer = sys.argv[1]
    if len(sys.argv) > 2:
        with open(sys.argv[2]) as f:
            live = json.load(f)
        source = live.get("source", sys.argv[2])
    else:
        live = json.loads(subprocess.run([sys.executable, GEN, "dump"],
                                         capture_output=True, text=True,
                                         check=True).stdout)
        source = "CPython " + sys.version.split()[0]
    major, minor = live["version"].split(".")
    out = subprocess.run([printer, major, minor], capture_output=True,
                         text=True, check=True).stdout.split("\n")
    bad = 0
    for op, line in enumerate(out[:256]):
        _, name, base, caches = line.split()
        name = None if name == "-" else name
        want = (live["names"][op], live["base"][op] if name else 255,
                live["caches"][op] if name else 255)
        got = (name, int(base), int(caches) if int(caches) >= 0 else 255)
        if got != want:
            bad += 1
            print(f"opcode {op}: libtachyonfmt {got}, CPython {want}")
    print(f"{256 - bad} of 256 opcodes agree with {source}")
    check(bad == 0, f"{bad} opcodes differ")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
