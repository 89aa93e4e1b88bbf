// SPDX-License-Identifier: MIT
// pyodide_dump.mjs - run scripts/gen_opcodes.py dump inside Pyodide, a
// WebAssembly build of CPython, for a version no local interpreter has:
//
//   mkdir /tmp/p && cd /tmp/p && npm install pyodide@315.0.0-alpha.2
//   cp .../scripts/opcodes/pyodide_dump.mjs . &&
//   node pyodide_dump.mjs .../scripts/gen_opcodes.py > 3.15.json
//
// Opcode numbers come from the interpreter's generated headers, the same
// on every platform. The interpreter's full version goes to stderr.
import { loadPyodide } from "pyodide";
import fs from "fs";

const py = await loadPyodide();
py.FS.writeFile("/tmp/gen_opcodes.py", fs.readFileSync(process.argv[2], "utf8"));
const out = py.runPython(`
import contextlib, io, runpy, sys
buf = io.StringIO()
sys.argv = ["gen_opcodes.py", "dump"]
with contextlib.redirect_stdout(buf):
    runpy.run_path("/tmp/gen_opcodes.py", run_name="__main__")
print(sys.version, file=sys.stderr)
buf.getvalue()
`);
process.stdout.write(out);
