// SPDX-License-Identifier: MIT
// cpython_reader.mjs - read binary logs with CPython's own reader and
// collectors (Modules/_remote_debugging/binary_io_reader.c, through
// profiling.sampling.binary_reader.convert_binary_to_format), as built
// into Pyodide (CPython for WebAssembly; pyodide@315.0.0-alpha.2 is
// CPython 3.15.0rc1, whose reader has no zstd support compiled in).
//
// usage: node cpython_reader.mjs PYODIDE_DIR OUT_DIR FORMAT LOG...
// Writes OUT_DIR/<log name>.<FORMAT> per log and prints one JSON line:
// {"python": version, "results": [{"log", "info", "replayed"} or
// {"log", "error"}]}.
import path from "path";
import { pathToFileURL } from "url";

const [pyo, outDir, format, ...logs] = process.argv.slice(2);
const { loadPyodide } = await import(
    pathToFileURL(path.join(pyo, "pyodide.mjs")));
const py = await loadPyodide({ indexURL: path.resolve(pyo) + "/" });
const fs = py.FS;
fs.mkdirTree("/host/out");
fs.mount(fs.filesystems.NODEFS, { root: path.resolve(outDir) }, "/host/out");
const inside = logs.map((log, i) => {
    const dir = "/host/in" + i;
    fs.mkdirTree(dir);
    fs.mount(fs.filesystems.NODEFS,
             { root: path.dirname(path.resolve(log)) }, dir);
    return dir + "/" + path.basename(log);
});
py.globals.set("LOGS", py.toPy(inside));
py.globals.set("FORMAT", format);
const out = py.runPython(`
import contextlib, io, json, os, sys
from profiling.sampling.binary_reader import (BinaryReader,
                                              convert_binary_to_format)
results = []
for log in LOGS:
    r = {"log": os.path.basename(log)}
    try:
        with BinaryReader(log) as reader:
            r["info"] = {k: v for k, v in reader.get_info().items()
                         if isinstance(v, (int, float, str, type(None)))}
        target = "/host/out/" + os.path.basename(log) + "." + FORMAT
        with contextlib.redirect_stdout(io.StringIO()):
            r["replayed"] = convert_binary_to_format(log, target, FORMAT)
    except Exception as e:
        r["error"] = f"{type(e).__name__}: {e}"
    results.append(r)
json.dumps({"python": sys.version.split()[0], "results": results})
`);
process.stdout.write(out + "\n");
