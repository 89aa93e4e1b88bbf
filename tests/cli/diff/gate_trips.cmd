command -v python3 >/dev/null || { echo "needs python3" >&2; exit 77; }
cd "$TESTDATA/diff" && tachyon-diff --fail-on-regression 1 --format json base.bin regressed.bin | python3 -c "import json,sys; d=json.load(sys.stdin); print(d[\"summary\"]); print([r[\"key\"] for r in d[\"rows\"] if r[\"verdict\"]==\"regressed\"])"; echo "pipe ${PIPESTATUS[0]}"
