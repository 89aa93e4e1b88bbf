d=$TESTDATA/cpython/interleaved_threads
tachyon-conv --to collapsed $d/none.bin $d/zstd.hdr-u32.bin >twice.txt
awk '{ n = $NF; sub(/ [0-9]+$/, ""); print $0 " " 2 * n }' $d/expected.collapsed | cmp - twice.txt && echo "collapsed: every count doubled"
tachyon-conv --run-id 00000000000000000000000000000000 $d/none.bin $d/zstd.bin >twice.jsonl
python3 - $d/expected.jsonl twice.jsonl <<'PY' && echo "jsonl: tables equal, every count doubled"
import json, sys
exp = [json.loads(l) for l in open(sys.argv[1])]
got = [json.loads(l) for l in open(sys.argv[2])]
for r in exp:
    if "samples_total" in r:
        r["samples_total"] *= 2
    for e in r.get("entries", []):
        e["self"] *= 2
        e["cumulative"] *= 2
sys.exit(exp != got)
PY
