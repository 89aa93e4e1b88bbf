"""libtachyonfmt's opcode table of a version without a local interpreter
(3.14, 3.15) against the JSON it was generated from (scripts/opcodes/,
dumped by that version's own dis and opcode modules, see gen_opcodes.py):
every byte's name, base instruction and inline cache units; byte 255 is
the binary format's "no opcode" and never named.

usage: check_opcode_json.py OPCODE_PRINT VERSION.json"""
import json
import subprocess
import sys


def main():
    printer, path = sys.argv[1], sys.argv[2]
    table = json.load(open(path))
    major, minor = table["version"].split(".")
    out = subprocess.run([printer, major, minor], capture_output=True,
                         text=True, check=True).stdout.split("\n")
    bad = 0
    for op, line in enumerate(out[:256]):
        _, name, base, caches = line.split()
        name = None if name == "-" else name
        known = table["names"][op] if op < 255 else None
        want = (known, table["base"][op] if known else 255,
                table["caches"][op] if known else 255)
        got = (name, int(base), int(caches) if int(caches) >= 0 else 255)
        if op == 255:   # never named; its cache count is the table's
            got, want = got[:2], want[:2]
        if got != want:
            bad += 1
            print(f"opcode {op}: libtachyonfmt {got}, {path} {want}")
    print(f"{table['version']}: {256 - bad} of 256 opcodes agree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
