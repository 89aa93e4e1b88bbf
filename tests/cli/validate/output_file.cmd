# tachyon-validate -o FILE (issue 21): the report goes to FILE, written
# whole through the same sink as the other tools' outputs; an existing
# FILE is kept (exit 2) unless -f replaces it. The text format writes
# there the lines it prints on stderr otherwise (findings, -v verdicts).
cp "$TESTDATA/example.bin" "$TESTDATA"/bad/{bin_truncated.bin,bin_frame_index.bin,jsonl_total.jsonl} . || exit
tachyon-validate -F json -o r.json bin_truncated.bin example.bin; echo "exit $?"
cat r.json
tachyon-validate -F json -o r.json example.bin; echo "exit $?"
head -c 40 r.json; echo
tachyon-validate -f -F json -o r.json example.bin; echo "exit $?"
cat r.json
tachyon-validate -v -o r.txt jsonl_total.jsonl example.bin; echo "exit $?"
cat r.txt
tachyon-validate -F junit -o - bin_frame_index.bin | head -n 3
