// SPDX-License-Identifier: MIT
// pyodide_run.mjs - run a Python script under Pyodide's CPython build, in
// node, with the host's files visible: every absolute path argument is
// seen under /host (the host's / mounted with NODEFS). How the heatmap's
// CPython oracle runs CPython 3.15's own collector where no 3.15
// interpreter is installed (npm package pyodide 315.x; not a build
// dependency).
//
// usage: node pyodide_run.mjs PYODIDE_DIR SCRIPT.py [ARGS...]
//   PYODIDE_DIR: the package's folder (node_modules/pyodide)
import path from "node:path";

const [dir, script, ...args] = process.argv.slice(2);
const { loadPyodide } = await import(path.resolve(dir, "pyodide.mjs"));
const py = await loadPyodide({ indexURL: path.resolve(dir) + "/" });
py.FS.mkdirTree("/host");
py.FS.mount(py.FS.filesystems.NODEFS, { root: "/" }, "/host");
const host = (a) => (a.startsWith("/") ? "/host" + a : a);
const argv = [host(path.resolve(script)), ...args.map((a) => host(a))];
py.setStdout({ batched: (s) => process.stdout.write(s + "\n") });
py.setStderr({ batched: (s) => process.stderr.write(s + "\n") });
py.globals.set("ARGV", py.toPy(argv));
try {
  py.runPython(
    "import runpy, sys\nsys.argv = list(ARGV)\n" +
      "runpy.run_path(sys.argv[0], run_name='__main__')\n",
  );
} catch (e) {
  process.stderr.write(String(e.message || e).split("\n").slice(-8).join("\n") + "\n");
  process.exit(1);
}
