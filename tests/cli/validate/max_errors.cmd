# Every problem is reported, up to --max-errors per file.
f=$TESTDATA/cpython/synthetic_frames/expected.jsonl
{ cat "$f"; for i in 1 2 3 4 5 6; do echo "{\"type\":\"end\",\"v\":0}"; done; } >many.jsonl
tachyon-validate many.jsonl; echo "exit $?"
tachyon-validate --max-errors 3 many.jsonl; echo "exit $?"
tachyon-validate --max-errors 0 many.jsonl; echo "exit $?"
