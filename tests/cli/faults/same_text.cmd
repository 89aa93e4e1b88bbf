# One fault, one message (issue 21): each fault file below is read by
# tachyon-conv, tachyon-diff and tachyon-validate, and their messages
# must be the same text once the program name, tachyon-validate's rule id
# (TVnnn) and the next step that only conv and diff give (running
# tachyon-validate) are taken off. Prints each fault's exit statuses and
# whether the texts agree, then the text; any difference is shown.
cd "$TESTDATA/bad" || exit
gzip -c "$TESTDATA/example.bin" >"$OLDPWD/big.bin.gz"
big="$OLDPWD/big.bin.gz"
norm() {
    sed -E 's/^tachyon-[a-z]+: //; s/^([^ ]+(: byte [0-9]+)?): TV[0-9]{3}: /\1: /' |
        sed "s/ (run 'tachyon-validate [^']*' for every problem)\$//"
}
for f in not_tachyon.txt jsonl_empty.jsonl bin_truncated.bin \
    bin_header_zero.bin bin_frame_index.bin jsonl_no_end.jsonl \
    jsonl_total.jsonl bin_version.bin jsonl_gzip_truncated.jsonl.gz \
    missing.bin limit; do
    opt=
    if [ "$f" = limit ]; then f=$big opt="--max-input-size 1K"; fi
    tachyon-conv --to top $opt "$f" >/dev/null 2>"$OLDPWD/c"; c=$?
    tachyon-diff -q $opt ../example.bin "$f" >/dev/null 2>"$OLDPWD/d"; d=$?
    tachyon-validate $opt "$f" 2>"$OLDPWD/v"; v=$?
    head -n 1 "$OLDPWD/v" | norm >"$OLDPWD/vn"
    same=same
    for t in c d; do
        norm <"$OLDPWD/$t" | cmp -s - "$OLDPWD/vn" || {
            same=DIFFERENT
            norm <"$OLDPWD/$t" | diff - "$OLDPWD/vn"
        }
    done
    echo "${f##*/}: conv $c, diff $d, validate $v: $same"
    sed "s|$OLDPWD/||" "$OLDPWD/vn"
done
