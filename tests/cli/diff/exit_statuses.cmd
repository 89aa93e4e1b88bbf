# The exit statuses a CI job acts on (docs/exit-status.md): 0 the gate
# passed, 3 the gate tripped, 1 an input is not a profile (whatever the
# gate would say), 2 trouble (a missing file, a usage error). README.md
# is the issue's own example of a broken artifact; bytes that are not
# text (the start of an ELF file) go to the binary reader, which says
# what is wrong with them.
cp "$TESTDATA"/diff/{base.bin,regressed.bin} "$TESTDATA/../README.md" . || exit
{ printf '\177ELF\2\1\1\0'; head -c 200 /dev/zero; } >prog
gate() { tachyon-diff -q --fail-on-regression 1 "$@" >/dev/null; echo "$*: exit $?"; }
gate base.bin base.bin
gate base.bin regressed.bin
gate base.bin README.md
gate base.bin prog
gate base.bin missing.bin
gate --fail-on-regression x base.bin regressed.bin
