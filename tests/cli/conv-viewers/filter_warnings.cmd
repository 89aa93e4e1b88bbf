# Filters that find nothing warn (exit 0): a --thread absent from the
# input, a status flag no sample has, an --include or --exclude matching no
# frame, and filters that keep no sample; in every output path (profile,
# gecko, clickhouse), for one input or several, and -q silences them.
cd $TESTDATA/cpython
w=workload/none.bin
tachyon-conv --to top --thread 999 --thread 140226450561920 $w | head -1; echo "exit $?"
tachyon-conv --to top --thread 999 $w; echo "exit $?"
tachyon-conv --to collapsed --exception $w | wc -l; echo "exit $?"
tachyon-conv --to collapsed --include '^nosuch' $w | wc -l
tachyon-conv --to collapsed --drop frames --include '^nosuch' $w | wc -l
tachyon-conv --to collapsed --exclude '^nosuch' $w | wc -l
tachyon-conv --to collapsed --gil --thread 999 --include x $w | wc -l
tachyon-conv --to gecko --thread 999 $w >/dev/null; echo "exit $?"
tachyon-conv --to clickhouse --time 1 --exception $w single_full/none.bin | wc -l
tachyon-conv --to pstats --thread 1 -o /dev/null $w single_full/none.bin; echo "exit $?"
tachyon-conv -q --to top --thread 999 $w; echo "exit $?"
tachyon-conv --to top --skip-idle single_full/none.bin | head -1
tachyon-conv --to collapsed --gil pop_push/none.bin; echo "exit $?"
