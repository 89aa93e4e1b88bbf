# SPDX-License-Identifier: MIT
"""libtachyonfmt's opcode table of a version without a local interpreter
(3.14, 3.15) against the JSON it was generated from (scripts/opcodes/,
dumped by that version's own dis and opcode modules, see gen_opcodes.py):
every byte's name, base instruction and inline cache units; byte 255 is
the binary format's "no opcode" and never named.

usage: check_opcode_json.py OPCODE_PRINT VERSION.json"""
import json
import sys

from opcode_rows import count_differences, printed_rows


def main():
    printer, path = sys.argv[1], sys.argv[2]
    table = json.load(open(path))

    def want_of(op, name):
        known = table["names"][op] if op < 255 else None
        want = (known, table["base"][op] if known else 255,
                table["caches"][op] if known else 255)
        # 255 is never named; its cache count is the table's
        return want[:2] if op == 255 else want

    bad = count_differences(printed_rows(printer, table["version"]), want_of,
                            path)
    print(f"{table['version']}: {256 - bad} of 256 opcodes agree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
