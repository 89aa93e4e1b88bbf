# The JSONL rulebook is one: every defect of testdata/bad (MANIFEST) stops
# tachyon-conv and tachyon-diff with the message tachyon-validate gives
# first (same rule id, same words; they add the next step, running
# tachyon-validate) and exit 1; warnings (TV130..TV132) are warnings in
# all three and notes (TV140, TV141) pass. Whole-file findings (TV004, a
# compressed file cut short) carry their rule id in tachyon-validate only.
cd "$TESTDATA/bad" || exit
# Scratch files go to the case's own directory, never into testdata.
t=$OLDPWD
grep '^jsonl_' MANIFEST | grep -v -e jsonl_long_line -e jsonl_empty | while read -r f rule code what; do
    tachyon-conv --to top "$f" >/dev/null 2>"$t/conv.err"; c=$?
    tachyon-diff "$f" "$f" >/dev/null 2>"$t/diff.err"; d=$?
    tachyon-validate "$f" 2>"$t/val.err"; v=$?
    first=$(head -n 1 "$t/val.err" | sed 's/^tachyon-validate: //; s/: TV00[0-9]: /: /')
    same=yes
    hint="s/ (run 'tachyon-validate $f' for every problem)\$//"
    [ "$(sed "s/^tachyon-conv: //; $hint" "$t/conv.err")" = "$first" ] || same=no
    [ "$(grep -v 'one run a side' "$t/diff.err" | sed "s/^tachyon-diff: //; $hint" | head -n 1)" = "$first" ] || same=no
    echo "$f $rule: conv $c, diff $d, validate $v, same message: $same"
    cat "$t/conv.err" >&2
done
rm -f "$t/conv.err" "$t/diff.err" "$t/val.err"
