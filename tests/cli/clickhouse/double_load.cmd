# A query result holding runs loaded twice: identical copies are read once
# with one warning per run counting them (validate: TV309, still valid);
# a copy that differs is an error naming the run (TV308). Rows written by
# tachyon 0.1 (no run_id_version column, older run ids) read as version 1.
cd "$TESTDATA/clickhouse" || exit
cat unquoted.rows.json unquoted.rows.json > "$OLDPWD/twice.json"
tachyon-conv --to collapsed unquoted.rows.json > "$OLDPWD/once.txt"
(cd "$OLDPWD" && tachyon-conv --to collapsed twice.json > twice.txt)
echo "conv: exit $?"
cmp "$OLDPWD/once.txt" "$OLDPWD/twice.txt" && echo "twice reads as once"
tachyon-validate "$OLDPWD/twice.json" 2>&1 | sed "s|$OLDPWD/||"
echo "validate: exit ${PIPESTATUS[0]}"
sed '3s/"count":\([0-9]*\)/"count":9\1/' unquoted.rows.json > "$OLDPWD/other.json"
cat unquoted.rows.json "$OLDPWD/other.json" |
    tachyon-conv --to collapsed - > /dev/null
echo "conv: exit $?"
tachyon-conv --to collapsed fixtures-0.1.rows.json | sort > "$OLDPWD/old.txt"
tachyon-conv --to collapsed fixtures.rows.json | sort > "$OLDPWD/new.txt"
cmp "$OLDPWD/old.txt" "$OLDPWD/new.txt" && echo "0.1 rows: the same stacks"
tachyon-validate -v fixtures-0.1.rows.json unquoted-0.1.rows.json
echo "validate: exit $?"
