# SPDX-License-Identifier: MIT
"""libtachyonfmt's opcode table for this interpreter's version against
the interpreter itself (dis and opcode, through scripts/gen_opcodes.py):
every byte's name, base instruction and inline cache units (byte 255,
the binary format's "no opcode", is never named).

  check_opcodes.py OPCODE_PRINT            this interpreter's version
  check_opcodes.py OPCODE_PRINT JSON       a version dumped elsewhere
                                           (scripts/opcodes/3.14.json)
"""
import json
import os
import subprocess
import sys

from opcode_rows import count_differences, printed_rows
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

    def want_of(op, name):
        # Byte 255 is the binary format's "no opcode" and never named,
        # although 3.14 numbers ENTER_EXECUTOR there.
        known = live["names"][op] if op < 255 else None
        return (known, live["base"][op] if name else 255,
                live["caches"][op] if name else 255)

    bad = count_differences(printed_rows(printer, live["version"]), want_of,
                            "CPython")
    print(f"{256 - bad} of 256 opcodes agree with {source}")
    check(bad == 0, f"{bad} opcodes differ")
    return finish()


if __name__ == "__main__":
    sys.exit(main())
