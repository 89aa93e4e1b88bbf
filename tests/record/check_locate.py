# SPDX-License-Identifier: MIT
"""check_locate.py TEST_LOCATE - the locator against the target's own
account of itself: a child of this interpreter prints the address of its
_PyRuntime (ctypes), sys.hexversion and id(types.CodeType); test_locate
must find the same three values from the outside."""
import subprocess
import sys

CHILD = r"""
import ctypes, sys, types
runtime = ctypes.addressof(ctypes.c_char.in_dll(ctypes.pythonapi,
                                                "_PyRuntime"))
print(runtime, sys.hexversion, id(types.CodeType), flush=True)
sys.stdin.read()
"""

child = subprocess.Popen([sys.executable, "-c", CHILD], text=True,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE)
want = dict(zip(("runtime", "version", "code_type"),
                map(int, child.stdout.readline().split())))
p = subprocess.run([sys.argv[1], str(child.pid)], capture_output=True,
                   text=True)
child.stdin.close()
child.wait()
got = dict((k, int(v)) for k, v in
           (line.split() for line in p.stdout.splitlines()))
failed = 0
for key, value in want.items():
    ok = got.get(key) == value
    failed += not ok
    print(f"{key}: self-reported {value:#x}, located "
          f"{got.get(key, 0):#x} {'ok' if ok else 'MISMATCH'}")
if p.returncode != 0:
    print(p.stderr.strip())
    failed += 1
print(f"{3 - failed} passed, {failed} failed")
sys.exit(1 if failed else 0)
