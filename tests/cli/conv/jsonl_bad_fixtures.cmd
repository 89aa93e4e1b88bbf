# The JSONL rulebook is one: every defect of testdata/bad (MANIFEST) stops
# tachyon-conv and tachyon-diff with the message tachyon-validate gives
# first (same rule id, same words; they add the next step, running
# tachyon-validate) and exit 1; warnings (TV130..TV132) are warnings in
# all three and notes (TV140, TV141) pass. Whole-file findings (TV004, a
# compressed file cut short) carry their rule id in tachyon-validate only.
cd "$TESTDATA/bad" || exit
grep '^jsonl_' MANIFEST | grep -v -e jsonl_long_line -e jsonl_empty | while read -r f rule code what; do
    tachyon-conv --to top "$f" >/dev/null 2>conv.err; c=$?
    tachyon-diff "$f" "$f" >/dev/null 2>diff.err; d=$?
    tachyon-validate "$f" 2>val.err; v=$?
    first=$(head -n 1 val.err | sed 's/^tachyon-validate: //; s/: TV00[0-9]: /: /')
    same=yes
    hint="s/ (run 'tachyon-validate $f' for every problem)\$//"
    [ "$(sed "s/^tachyon-conv: //; $hint" conv.err)" = "$first" ] || same=no
    [ "$(grep -v 'one run a side' diff.err | sed "s/^tachyon-diff: //; $hint" | head -n 1)" = "$first" ] || same=no
    echo "$f $rule: conv $c, diff $d, validate $v, same message: $same"
    cat conv.err >&2
done
rm -f conv.err diff.err val.err
