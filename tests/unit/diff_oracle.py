#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""diff_oracle.py DIFF TESTDATA [SEED] - tachyon-diff's statistics against
independent implementations.

Every figure tachyon-diff prints with -F json (percents, change, standard
error, degrees of freedom, two-sided p, Benjamini-Hochberg q, the gate's
one-sided p and adjusted p, verdicts, the gate's decision) is recomputed
here from the per-run counts:

  - Student's t with the pooled variance: scipy.stats.ttest_ind
    (equal_var=True; alternative="greater" on the new runs moved down by
    PP for the gate), or scipy.stats.t where the floor binds;
  - Benjamini-Hochberg: statsmodels.stats.multitest.multipletests
    (method="fdr_bh");
  - one run a side: statsmodels' proportions_ztest, scipy.stats.fisher_exact
    and scipy.stats.binomtest; the sampling standard error by its formula;
  - the gate's selection and weights (no library has them): a short
    reference below, from the definitions in docs/diff-statistics.md.

Inputs: the CLI cases' own inputs (testdata/diff, testdata/gate; their
per-run counts are read back with tachyon-diff --normalize none, one file
against itself, which exercises counting, not statistics), and random
JSONL exports written here (their counts are known by construction):
several runs a side with equal and unequal runs, a function absent on one
side, zero variance, identical runs, one run a side.

Exit 0 when everything agrees, 1 with one line per disagreement, 77 when
scipy or statsmodels is missing (skipped).
"""
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import warnings

try:
    import numpy as np
    from scipy import stats
    from statsmodels.stats.multitest import multipletests
    from statsmodels.stats.proportion import proportions_ztest
except ImportError as e:  # Debian: python3-scipy python3-statsmodels
    print("diff_oracle: skipped: %s" % e)
    sys.exit(77)

FLOOR = 0.25  # DIFF_RUNS_FLOOR
TAU = 0.6  # DIFF_GATE_SELECT
EXACT_BELOW = 5.0
FAILS = []
SEEN = {}  # what the cases exercised: tests, floors, trips, selections


def seen(what):
    SEEN[what] = SEEN.get(what, 0) + 1


def run_json(tool, args):
    p = subprocess.run([tool, "-q", "-F", "json", "--top", "0"] + args,
                       capture_output=True, text=True)
    if p.returncode not in (0, 3):
        sys.exit("diff_oracle: %s %s: exit %d: %s" % (
            tool, " ".join(args), p.returncode, p.stderr))
    return json.loads(p.stdout), p.returncode


def counts_of(tool, path, opts):
    """Per key: (self, cumulative) counts of one file, and its figures."""
    doc, _ = run_json(tool, opts + ["--normalize", "none", path, path])
    rows = {r["key"]: (r["self"]["base"], r["cumulative"]["base"])
            for r in doc["rows"]}
    return rows, doc["base"]


# ---- the reference statistics ----------------------------------------


def sampling_var(count, denom, share):
    k = count + 1.0
    if share:
        p = k / (denom + 2)
        return 1e4 * p * (1 - p) / (denom + 2)
    return 1e4 * k / (denom * denom)


def runs_figure(xb, xn, floor, pp):
    """Student's t on per-run percents: what tachyon-diff should print."""
    xb, xn = np.asarray(xb, float), np.asarray(xn, float)
    nb, nn = len(xb), len(xn)
    delta = xn.mean() - xb.mean()
    df = nb + nn - 2
    ss = ((xb - xb.mean()) ** 2).sum() + ((xn - xn.mean()) ** 2).sum()
    floored = not (ss / df >= floor)
    seen("floored" if floored else "pooled")
    var = floor if floored else ss / df
    se = math.sqrt(var * (1 / nb + 1 / nn))
    if floored:
        p = 2 * stats.t.sf(abs(delta) / se, df) if se > 0 else (
            1.0 if delta == 0 else 0.0)
    else:
        p = stats.ttest_ind(xn, xb, equal_var=True).pvalue
    if delta == 0:
        p = 1.0
    fig = {"delta": delta, "se": se, "df": df, "p": p,
           "base_pct": xb.mean(), "new_pct": xn.mean(),
           "base_sd": xb.std(ddof=1), "new_sd": xn.std(ddof=1)}
    if pp is not None and se > 0:
        if floored:
            fig["gate_p"] = stats.t.sf((delta - pp) / se, df)
        else:
            fig["gate_p"] = stats.ttest_ind(xn - pp, xb, equal_var=True,
                                            alternative="greater").pvalue
        fig["t_gate"] = (delta - pp) / se
        y = np.concatenate([xb, xn - pp])
        vtot = max(y.var(ddof=1), floor)
        fig["w"] = 1 / (vtot * (1 / nb + 1 / nn))
    return fig


def one_run_p(c1, n1, c2, n2, norm, e1, e2):
    """Two-sided p with one run a side, and the test's name."""
    if norm == "share":
        k, n = c1 + c2, n1 + n2
        if k == 0 or k == n:
            return 1.0, "none"
        e = min(n1 * k / n, n1 * (n - k) / n, n2 * k / n, n2 * (n - k) / n)
        if e < EXACT_BELOW:
            return stats.fisher_exact([[c1, n1 - c1], [c2, n2 - c2]])[1], \
                "fisher"
        return proportions_ztest([c1, c2], [n1, n2])[1], "z"
    m = c1 + c2
    if m == 0:
        return 1.0, "none"
    pi = e1 / (e1 + e2)
    if min(m * pi, m * (1 - pi)) >= EXACT_BELOW:
        z = (c1 - m * pi) / math.sqrt(m * pi * (1 - pi))
        return 2 * stats.norm.sf(abs(z)), "normal"
    return stats.binomtest(c1, m, pi).pvalue, "binomial"


def one_run_figure(cb, nb, db, cn, nn, dn, norm, pp, eb, en):
    pb, pn = 100.0 * cb / db, 100.0 * cn / dn
    delta = pn - pb
    p, test = one_run_p(cb, nb, cn, nn, norm, eb, en)
    if norm == "share":
        p1, p2 = (cb + 1) / (nb + 2), (cn + 1) / (nn + 2)
        se = 100 * math.sqrt(p1 * (1 - p1) / (nb + 2) +
                             p2 * (1 - p2) / (nn + 2))
    else:
        se = 100 * math.sqrt((cb + 1) / db ** 2 + (cn + 1) / dn ** 2)
    fig = {"delta": delta, "se": se, "p": p, "test": test,
           "base_pct": pb, "new_pct": pn}
    seen(test)
    if pp is not None:
        fig["gate_p"] = stats.norm.sf((delta - pp) / se)
        fig["t_gate"] = (delta - pp) / se
        fig["w"] = 1.0
    return fig


def judge(figs, counts, min_delta, min_samples, alpha, pp):
    """BH verdicts over the tested rows, the gate's selection and q."""
    tested = [k for k, f in figs.items()
              if f["delta"] != 0 and abs(f["delta"]) >= min_delta and
              counts[k] >= min_samples and not math.isnan(f["p"])]
    for k, f in figs.items():
        f["q"] = None
        f["verdict"] = ("unchanged" if f["delta"] == 0 or
                        abs(f["delta"]) < min_delta else "inconclusive")
    if tested:
        q = multipletests([figs[k]["p"] for k in tested],
                          method="fdr_bh")[1]
        for k, qk in zip(tested, q):
            f = figs[k]
            f["q"] = qk
            f["verdict"] = ("inconclusive" if qk >= alpha else
                            "regressed" if f["delta"] > 0 else "improved")
    if pp is None:
        return False
    sel = [k for k, f in figs.items() if "gate_p" in f and
           f["t_gate"] >= -1 and f["gate_p"] <= TAU]
    total = sum(figs[k]["w"] for k in sel)
    seen("selected %s" % min(len(sel), 2))
    tripped = False
    for k, f in figs.items():
        if "gate_p" not in f:
            continue
        f["gate_q"] = (min(1.0, f["gate_p"] * total / (TAU * f["w"]))
                       if k in sel else 1.0)
        tripped |= f["verdict"] == "regressed" and f["gate_q"] < alpha
    seen("tripped" if tripped else "passed")
    for f in figs.values():
        seen(f["verdict"])
    return tripped


# ---- comparing ---------------------------------------------------------


def close(got, want, rel=2e-5, absol=0.0):
    if got is None or want is None:
        return got is None and want is None
    if math.isinf(want) or math.isinf(got):
        return got == want
    return abs(got - want) <= rel * max(abs(got), abs(want)) + absol


def check(case, key, what, got, want, **tol):
    if not close(got, want, **tol):
        FAILS.append("%s: %s: %s: tachyon-diff %r, reference %r" % (
            case, key, what, got, want))


def compare(case, doc, code, figs, metric, tripped, runs_mode, pp):
    name = "self" if metric == "self" else "cumulative"
    rows = {r["key"]: r for r in doc["rows"]}
    if set(rows) != set(figs):
        FAILS.append("%s: keys differ: %s" % (
            case, sorted(set(rows) ^ set(figs))))
        return
    for key, want in figs.items():
        got = rows[key][name]
        check(case, key, "base_pct", got["base_pct"], want["base_pct"],
              rel=0, absol=1.5e-6)
        check(case, key, "new_pct", got["new_pct"], want["new_pct"],
              rel=0, absol=1.5e-6)
        check(case, key, "delta_pp", got["delta_pp"], want["delta"],
              rel=0, absol=1.5e-6)
        check(case, key, "se_pp", got["se_pp"], want["se"], absol=1.5e-6)
        check(case, key, "p", got["p"], want["p"], absol=1e-300)
        check(case, key, "q", got["q"], want["q"], absol=1e-300)
        if got["verdict"] != want["verdict"]:
            FAILS.append("%s: %s: verdict %s, reference %s" % (
                case, key, got["verdict"], want["verdict"]))
        if runs_mode:
            sp = got["spread"]
            check(case, key, "df", sp["df"], want["df"])
            check(case, key, "base_sd", sp["base_sd_pp"], want["base_sd"],
                  rel=2e-5, absol=1.5e-6)
            check(case, key, "new_sd", sp["new_sd_pp"], want["new_sd"],
                  rel=2e-5, absol=1.5e-6)
            if want["delta"] != 0 and got["test"] != "student":
                FAILS.append("%s: %s: test %s" % (case, key, got["test"]))
        elif got["test"] != want["test"] and want["delta"] != 0:
            FAILS.append("%s: %s: test %s, reference %s" % (
                case, key, got["test"], want["test"]))
        if pp is not None and "gate_p" in want:
            gate = got["gate"] or {}
            check(case, key, "gate p", gate.get("p"), want["gate_p"],
                  absol=1e-300)
            check(case, key, "gate q", gate.get("q"), want["gate_q"],
                  absol=1e-300)
    if pp is not None:
        if doc["summary"]["gate"]["tripped"] != tripped:
            FAILS.append("%s: gate tripped %s, reference %s" % (
                case, doc["summary"]["gate"]["tripped"], tripped))
        if (code == 3) != tripped:
            FAILS.append("%s: exit %d with the gate %s" % (
                case, code, "tripped" if tripped else "passed"))


def reference(sides, metric, norm, pp, min_delta=0.5, min_samples=5,
              alpha=0.05):
    """sides: (base, new), each a list of runs {key: (self, cum)}, samples,
    ticks. Returns the figures per key and whether the gate trips."""
    col = 0 if metric == "self" else 1
    base, new = sides
    keys = []
    for side in sides:
        for run in side:
            for k in run["counts"]:
                if k not in keys:
                    keys.append(k)
    runs_mode = len(base) >= 2 and len(new) >= 2
    figs, counts = {}, {}
    base_mean_samples = sum(r["samples"] for r in base) / len(base)
    for k in keys:
        def cnt(run):
            return run["counts"].get(k, (0, 0))[col]
        counts[k] = sum(cnt(r) for r in base) + sum(cnt(r) for r in new)
        if runs_mode:
            def denom(run):
                return (run["samples"] if norm == "share" else
                        run["ticks"] if norm == "time" else
                        base_mean_samples)
            xb = [100.0 * cnt(r) / denom(r) for r in base]
            xn = [100.0 * cnt(r) / denom(r) for r in new]
            samp = [sampling_var(cnt(r), denom(r), norm == "share")
                    for r in base + new]
            floor = FLOOR * sum(samp) / len(samp)
            figs[k] = runs_figure(xb, xn, floor, pp)
        else:
            cb = sum(cnt(r) for r in base)
            cn = sum(cnt(r) for r in new)
            nb = sum(r["samples"] for r in base)
            nn = sum(r["samples"] for r in new)
            tb = sum(r["ticks"] for r in base)
            tn = sum(r["ticks"] for r in new)
            db = nb if norm == "share" else tb if norm == "time" else nb
            dn = nn if norm == "share" else tn if norm == "time" else nb
            eb, en = (tb, tn) if norm == "time" else (1.0, 1.0)
            figs[k] = one_run_figure(cb, nb, db, cn, nn, dn, norm, pp, eb, en)
    tripped = judge(figs, counts, min_delta, min_samples, alpha, pp)
    return figs, tripped, runs_mode


def run_case(tool, case, base_files, new_files, opts, metric, norm, pp,
             sides):
    args = list(opts) + ["--metric", metric, "--normalize", norm]
    if pp is not None:
        args += ["--fail-on-regression", str(pp)]
    if len(base_files) == 1 and len(new_files) == 1:
        args += [base_files[0], new_files[0]]
    else:
        args += [a for f in base_files for a in ("--base", f)]
        args += [a for f in new_files for a in ("--new", f)]
    doc, code = run_json(tool, args)
    if doc["settings"]["normalize"] != norm:
        return  # time without a duration falls back to share: not this case
    figs, tripped, runs_mode = reference(sides, metric, norm, pp)
    compare(case, doc, code, figs, metric, tripped, runs_mode, pp)


def file_sides(tool, files, opts):
    runs = []
    for f in files:
        counts, info = counts_of(tool, f, opts)
        runs.append({"counts": counts, "samples": info["samples"],
                     "ticks": info.get("ticks") or 0})
    return runs


def cli_inputs(tool, testdata):
    d = os.path.join(testdata, "diff")
    g = os.path.join(testdata, "gate")
    rw = ["--rewrite", "^.*/bench/gate/=>",
          "--rewrite", "^.*/lib/python3\\.[0-9]+/=>"]
    rb = [os.path.join(d, "run_base%d.bin" % i) for i in (1, 2, 3)]
    rn = [os.path.join(d, "run_new%d.bin" % i) for i in (1, 2, 3)]
    u = [os.path.join(g, "u%02d.bin.zst" % i) for i in range(1, 11)]
    c = [os.path.join(g, "c%02d.bin.zst" % i) for i in range(1, 6)]
    yield ("runs", rb, rn, [], ["share", "time", "none"], [None, 1, 2, 4])
    yield ("single", [os.path.join(d, "base.bin")],
           [os.path.join(d, "regressed.bin")], [],
           ["share", "time", "none"], [None, 0, 3, 5])
    yield ("tiny", [os.path.join(d, "tiny_base.bin")],
           [os.path.join(d, "tiny_new.bin")], [], ["share", "none"], [None])
    yield ("gate_real", u[:5], c, rw, ["share"], [0.5])
    yield ("gate_real_unchanged", u[:5], u[5:], rw, ["share"], [0.5])
    yield ("gate_real_3v4", u[6:9], c[:4], rw, ["share", "none"], [0.5])


# ---- random inputs -----------------------------------------------------


def write_jsonl(path, counts):
    """A JSONL export of flat functions under one root: counts {key: n}."""
    names = ["main"] + sorted(counts)
    strings = [{"str_id": 0, "value": "app.py"}]
    for i, n in enumerate(names):
        strings.append({"str_id": i + 1, "value": n})
    frames = [{"frame_id": i, "path_str_id": 0, "func_str_id": i + 1,
               "line": i + 1, "end_line": i + 1, "col": 0, "end_col": 1}
              for i in range(len(names))]
    total = sum(counts.values())
    entries = [{"frame_id": 0, "self": 0, "cumulative": total}]
    for i, n in enumerate(names[1:], 1):
        if counts[n]:
            entries.append({"frame_id": i, "self": counts[n],
                            "cumulative": counts[n]})
    rid = "0" * 32
    lines = [{"type": "meta", "v": 0, "run_id": rid,
              "sample_interval_usec": 1000},
             {"type": "string_table", "v": 0, "run_id": rid,
              "strings": strings},
             {"type": "frame_table", "v": 0, "run_id": rid,
              "frames": frames},
             {"type": "agg", "v": 0, "run_id": rid, "kind": "frame",
              "scope": "final", "samples_total": total, "entries": entries},
             {"type": "end", "v": 0, "run_id": rid, "samples_total": total}]
    with open(path, "w") as f:
        for obj in lines:
            f.write(json.dumps(obj, separators=(",", ":")) + "\n")


def random_run(rng, shares, n):
    counts = {}
    for k, s in shares.items():
        counts[k] = max(0, int(round(rng.gauss(s, 0.15 * s + 0.002) * n)))
    return counts


def random_cases(rng, tmp, count):
    for i in range(count):
        kind = ["runs", "unequal", "single", "identical", "absent"][i % 5]
        nfun = rng.randint(4, 12)
        names = ["f%02d" % j for j in range(nfun)]
        w = [rng.random() ** 2 for _ in names]
        shares = {k: x / sum(w) for k, x in zip(names, w)}
        rb = rn = rng.randint(2, 6)
        if kind == "unequal":
            rb, rn = rng.randint(2, 4), rng.randint(5, 8)
        if kind == "single":
            rb = rn = 1
        changed = dict(shares)
        hit = names[0]
        changed[hit] += rng.choice([0.0, 0.005, 0.015, 0.03])
        if kind == "absent":
            changed["new_only"] = 0.01
            shares["base_only"] = 0.01
            changed.setdefault("zero", 0.0)
        n = rng.randint(1000, 8000)
        base, new = [], []
        if kind == "identical":
            one = random_run(rng, shares, n)
            base = [dict(one) for _ in range(rb)]
            new = [dict(one) for _ in range(rn)]
            new = [dict(one, **{hit: one[hit] + 20}) for _ in range(rn)]
        else:
            base = [random_run(rng, shares, n) for _ in range(rb)]
            new = [random_run(rng, changed, n) for _ in range(rn)]
        files = [[], []]
        sides = [[], []]
        for s, runs in enumerate((base, new)):
            for j, cnt in enumerate(runs):
                if sum(cnt.values()) == 0:
                    cnt[names[0]] = 1
                path = os.path.join(tmp, "r%d_%d_%d.jsonl" % (i, s, j))
                write_jsonl(path, cnt)
                files[s].append(path)
                total = sum(cnt.values())
                sides[s].append({
                    "counts": dict({"app.py:main": (0, total)},
                                   **{"app.py:" + k: (v, v)
                                      for k, v in cnt.items() if v}),
                    "samples": total, "ticks": 0})
        yield ("random%d-%s" % (i, kind), files[0], files[1], sides,
               rng.choice(["share", "none"]),
               rng.choice(["self", "cumulative"]),
               rng.choice([None, 0.5, 1, 2]))


def main():
    # scipy warns on runs that are nearly identical; its figures still
    # agree, and the floor is what tachyon-diff uses there
    warnings.filterwarnings("ignore", category=RuntimeWarning)
    if len(sys.argv) < 3:
        sys.exit("usage: diff_oracle.py DIFF TESTDATA [SEED]")
    tool, testdata = sys.argv[1], sys.argv[2]
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    cases = 0
    for name, b, n, opts, norms, pps in cli_inputs(tool, testdata):
        sides = (file_sides(tool, b, opts), file_sides(tool, n, opts))
        for norm in norms:
            for metric in ("self", "cumulative"):
                for pp in pps:
                    run_case(tool, "%s %s %s gate %s" % (
                        name, norm, metric, pp), b, n, opts, metric, norm,
                        pp, sides)
                    cases += 1
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="diff-oracle-") as tmp:
        for name, b, n, sides, norm, metric, pp in random_cases(rng, tmp, 60):
            run_case(tool, "%s %s %s gate %s" % (name, norm, metric, pp), b,
                     n, [], metric, norm, pp, sides)
            cases += 1
    for f in FAILS[:60]:
        print(f)
    print("diff_oracle: %d cases, %d disagreements; exercised: %s" % (
        cases, len(FAILS), ", ".join(
            "%s %d" % kv for kv in sorted(SEEN.items()))))
    # not vacuous: every test, both gate outcomes, floors, selections
    need = ["pooled", "floored", "z", "fisher", "binomial", "normal",
            "tripped", "passed", "selected 0", "selected 1", "selected 2",
            "regressed", "improved", "inconclusive", "unchanged"]
    missing = [w for w in need if w not in SEEN]
    if missing:
        print("diff_oracle: not exercised: %s" % ", ".join(missing))
        return 1
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
