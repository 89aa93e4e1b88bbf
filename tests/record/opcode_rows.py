# SPDX-License-Identifier: MIT
"""What check_opcodes.py and check_opcode_json.py share: libtachyonfmt's
opcode table as opcode_print prints it, and its comparison, byte by byte,
with the table of another source."""
import subprocess


def printed_rows(printer, version):
    """Yield (name, base, caches) for bytes 0 to 255 of version "3.N" as
    OPCODE_PRINT prints them: name None for an unnamed byte, caches 255
    where the printer gives a negative count."""
    major, minor = version.split(".")
    out = subprocess.run([printer, major, minor], capture_output=True,
                         text=True, check=True).stdout.split("\n")
    for line in out[:256]:
        _, name, base, caches = line.split()
        name = None if name == "-" else name
        yield (name, int(base), int(caches) if int(caches) >= 0 else 255)


def count_differences(rows, want_of, label):
    """Print each byte whose row is not want_of(op, name), compared on as
    many fields as that tuple has, with `label` naming the other source;
    return how many bytes differ."""
    bad = 0
    for op, row in enumerate(rows):
        want = want_of(op, row[0])
        got = row[:len(want)]
        if got != want:
            bad += 1
            print(f"opcode {op}: libtachyonfmt {got}, {label} {want}")
    return bad
