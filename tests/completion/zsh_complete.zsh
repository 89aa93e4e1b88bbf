# SPDX-License-Identifier: MIT
# zsh_complete.zsh FPATH_DIR 'COMMAND LINE' - print the matches zsh's
# completion system offers at the end of the line, one a line: an
# interactive zsh in a pseudo terminal (zsh/zpty) with FPATH_DIR first on
# its fpath and compadd wrapped to record what it adds, TAB pressed; it
# waits up to 10 s for the completion to end.
zmodload zsh/zpty || exit 77
out=$(mktemp) || exit 2
zpty z zsh -f -i
zpty -w z "PS1=''; fpath=(${(q)1} \$fpath); autoload -U compinit; compinit -u -D"
# compadd calls that only compute (-O, -A, -D) pass; the others record.
zpty -w z "compadd() { if [[ \${(j: :)@} == *-[OAD]\\ * ]]; then builtin compadd \"\$@\"; return; fi; local -a m; builtin compadd -O m \"\$@\"; print -rl -- \$m >>${(q)out}; builtin compadd \"\$@\"; }"
# After the completion, a line "--done--" marks the end of the matches.
zpty -w z "comppostfuncs=(_tachyon_done); _tachyon_done() { print -r -- --done-- >>${(q)out} }"
zpty -w z "print -n 'rea''dy'"
zpty -r z line '*ready*' || exit 2
zpty -w -n z "$2"$'\t'
for i in {1..200}; do
    grep -qx -- --done-- $out && break
    sleep 0.05
done
zpty -d z
grep -vx -- --done-- $out | sort -u
rm -f $out
