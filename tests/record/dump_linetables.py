# SPDX-License-Identifier: MIT
"""Print the location tables of many code objects with their expected
positions, one code object per line, for test_linetable:

    FIRSTLINENO HEX(co_linetable) N L,EL,C,EC ... (N entries, None as -1)

The code objects are those of a few large stdlib modules, compiled here
(no import side effects), and every code object nested in them.
"""
import sys

MODULES = ["argparse", "typing", "inspect", "dataclasses", "ast"]


def walk(code):
    yield code
    for const in code.co_consts:
        if hasattr(const, "co_linetable"):
            yield from walk(const)


def main():
    import importlib.util
    for name in MODULES:
        path = importlib.util.find_spec(name).origin
        with open(path, "rb") as f:
            top = compile(f.read(), path, "exec")
        for code in walk(top):
            pos = [",".join(str(-1 if v is None else v) for v in p)
                   for p in code.co_positions()]
            print(code.co_firstlineno, code.co_linetable.hex() or "-",
                  len(pos), " ".join(pos))


if __name__ == "__main__":
    sys.exit(main())
