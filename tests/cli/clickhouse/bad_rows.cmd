# A bad row is a located error (FILE:LINE: what), exit 1, no output file;
# tachyon-validate reports every bad row with its rule.
cd "$TESTDATA/clickhouse" || exit
bad=bad.rows.json
tachyon-conv --to collapsed -o "$OLDPWD/out.txt" "$bad"; echo "conv: exit $?"
test -e "$OLDPWD/out.txt" && echo "out.txt exists"
tail -n +3 "$bad" | tachyon-conv --to top -; echo "conv: exit $?"
tail -n +4 "$bad" | tachyon-conv --to top -; echo "conv: exit $?"
tachyon-diff "$bad" "$bad"; echo "diff: exit $?"
tachyon-validate "$bad"; echo "validate: exit $?"
printf '{"stack_hash":1}\n' | tachyon-validate -; echo "validate: exit $?"
