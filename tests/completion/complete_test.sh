#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# complete_test.sh - the shell completions the build wrote for each tool
# (tools/common/cli_complete.c), driven in the shells themselves:
#   - bash, alone and with bash-completion loaded: COMP_WORDS/COMP_CWORD
#     set as readline would, the completion function called, COMPREPLY
#     checked; every option --help lists completes, and nothing else
#   - zsh (when installed): the real completion system in a pseudo
#     terminal (zsh/zpty), TAB pressed, the offered matches checked
#   - fish (when installed): complete -C
# A missing zsh or fish is reported (SKIP lines) and not counted.
#
# usage: complete_test.sh COMPLETIONS_DIR TOOLS_DIR
set -uo pipefail

comp=$(cd "$1" && pwd) || exit 2
tools=$(cd "$2" && pwd) || exit 2
here=$(cd "$(dirname "$0")" && pwd)
fails=0
checks=0
work=$(mktemp -d "${TMPDIR:-/tmp}/tachyon-complete.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/dir/sub" && touch "$work/dir/zfile1" "$work/dir/zfile2"

# expect WHAT ACTUAL EXPECTED: two newline-separated lists, as sets.
expect() {
    checks=$((checks + 1))
    local actual expected
    actual=$(printf '%s\n' "$2" | grep -v '^$' | sort -u)
    expected=$(printf '%s\n' "$3" | grep -v '^$' | sort -u)
    if [ "$actual" != "$expected" ]; then
        echo "FAIL $1"
        diff <(echo "$expected") <(echo "$actual") | sed 's/^/    /'
        fails=$((fails + 1))
    fi
}

# The long and short options of a tool's --help (its Options: section),
# one a line.
help_options() {
    "$tools/$1" --help | sed -n '/^Options:$/,/^$/p' |
        sed -n -E 's/^ +(-[A-Za-z0-9], )?(--[a-z0-9-]+).*/\1\2/p' |
        sed 's/, /\n/'
}

# The short option of TOOL's --LONG, from its --help ("" if none).
short_of() {
    "$tools/$1" --help | sed -n "s/^  \(-[A-Za-z0-9]\), --$2\b.*/\1/p"
}

# bash_complete LOADER TOOL WORD... : COMPREPLY for the last word.
bash_complete() {
    local loader=$1 tool=$2
    shift 2
    (cd "$work/dir" && bash --norc --noprofile -c '
        [ -n "$1" ] && source "$1"
        source "$2"
        shift 2
        COMP_WORDS=("$@")
        COMP_CWORD=$(($# - 1))
        COMP_LINE="$*"
        COMP_POINT=${#COMP_LINE}
        fn=$(complete -p "$1" | sed "s/.*-F \([^ ]*\) .*/\1/")
        "$fn" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        printf "%s\n" "${COMPREPLY[@]}"' \
        _ "$loader" "$comp/bash/$tool" "$tool" "$@" \
        2> >(grep -v 'compopt: not currently executing' >&2))
}

bash_checks() {
    local loader=$1 name=$2 t short
    for t in "$tools"/tachyon-*; do
        t=${t##*/}
        [ -f "$comp/bash/$t" ] || { echo "FAIL no bash completion for $t"; fails=$((fails + 1)); continue; }
        expect "$name: $t -<TAB> gives the options of --help" \
            "$(bash_complete "$loader" "$t" -)" "$(help_options "$t")"
    done
    expect "$name: tachyon-conv --t<TAB>" \
        "$(bash_complete "$loader" tachyon-conv --t)" \
        "$(help_options tachyon-conv | grep '^--t')"
    expect "$name: tachyon-conv --to sv<TAB>" \
        "$(bash_complete "$loader" tachyon-conv --to sv)" svg
    expect "$name: tachyon-conv --to=p<TAB>" \
        "$(bash_complete "$loader" tachyon-conv --to = p)" "pprof
pstats"
    short=$(short_of tachyon-validate format)
    expect "$name: tachyon-validate $short j<TAB>" \
        "$(bash_complete "$loader" tachyon-validate "$short" j)" "json
junit"
    expect "$name: tachyon-diff --key file:f<TAB> (a colon in a choice)" \
        "$(bash_complete "$loader" tachyon-diff --key file : f)" "func
func:line"
    expect "$name: tachyon-conv -o zf<TAB> (files)" \
        "$(bash_complete "$loader" tachyon-conv -o zf)" "zfile1
zfile2"
    expect "$name: tachyon-conv --source-root <TAB> (directories only)" \
        "$(bash_complete "$loader" tachyon-conv --source-root '' | sed 's|/$||')" sub
    expect "$name: tachyon-conv --title <TAB> (a value: nothing offered)" \
        "$(bash_complete "$loader" tachyon-conv --title '')" ""
    expect "$name: tachyon-conv zf<TAB> (input files)" \
        "$(bash_complete "$loader" tachyon-conv zf)" "zfile1
zfile2"
    if [ -f "$comp/bash/tachyon-record" ]; then
        expect "$name: tachyon-record -- bas<TAB> (a command)" \
            "$(bash_complete "$loader" tachyon-record -- bas | grep -x bash)" bash
        expect "$name: tachyon-record --mode <TAB>" \
            "$(bash_complete "$loader" tachyon-record --mode '')" "wall
cpu
gil
exception"
    fi
}

bash_checks "" "bash"
if [ -f /usr/share/bash-completion/bash_completion ]; then
    bash_checks /usr/share/bash-completion/bash_completion "bash-completion"
else
    echo "SKIP bash-completion: not installed (checked plain bash only)"
fi

# zsh: the completion system itself, in a pseudo terminal.
zsh_complete() {
    (cd "$work/dir" && timeout 20 zsh -f "$here/zsh_complete.zsh" \
        "$comp/zsh" "$*") | tr -d '\r' | grep -v '^$'
}
if command -v zsh >/dev/null; then
    for f in "$comp"/zsh/_*; do
        checks=$((checks + 1))
        zsh -n "$f" || { echo "FAIL zsh -n $f"; fails=$((fails + 1)); }
    done
    expect "zsh: tachyon-conv --t<TAB>" "$(zsh_complete tachyon-conv --t)" \
        "$(help_options tachyon-conv | grep '^--t')"
    expect "zsh: tachyon-conv --to sv<TAB>" \
        "$(zsh_complete tachyon-conv --to sv)" svg
    expect "zsh: tachyon-conv --to=sv<TAB>" \
        "$(zsh_complete tachyon-conv --to=sv)" svg
    short=$(short_of tachyon-validate format)
    expect "zsh: tachyon-validate $short j<TAB>" \
        "$(zsh_complete tachyon-validate "$short" j)" "json
junit"
    expect "zsh: tachyon-diff --key file:f<TAB>" \
        "$(zsh_complete tachyon-diff --key file:f)" "file:func
file:func:line"
    expect "zsh: tachyon-conv -o zf<TAB>" \
        "$(zsh_complete tachyon-conv -o zf)" "zfile1
zfile2"
else
    echo "SKIP zsh: not installed"
fi

# fish: complete -C with the script loaded.
fish_complete() {
    (cd "$work/dir" && fish --no-config -c "source $comp/fish/$1.fish; complete -C '$2'") |
        cut -f1
}
if command -v fish >/dev/null; then
    for f in "$comp"/fish/*.fish; do
        checks=$((checks + 1))
        fish --no-config -n "$f" || { echo "FAIL fish -n $f"; fails=$((fails + 1)); }
    done
    expect "fish: tachyon-conv --t<TAB>" \
        "$(fish_complete tachyon-conv 'tachyon-conv --t')" \
        "$(help_options tachyon-conv | grep '^--t')"
    expect "fish: tachyon-conv --to sv<TAB>" \
        "$(fish_complete tachyon-conv 'tachyon-conv --to sv')" svg
    short=$(short_of tachyon-validate format)
    expect "fish: tachyon-validate $short j<TAB>" \
        "$(fish_complete tachyon-validate "tachyon-validate $short j")" "json
junit"
    expect "fish: tachyon-conv -o zf<TAB>" \
        "$(fish_complete tachyon-conv 'tachyon-conv -o zf')" "zfile1
zfile2"
    if [ -f "$comp/fish/tachyon-record.fish" ]; then
        expect "fish: tachyon-record -- bas<TAB>" \
            "$(fish_complete tachyon-record 'tachyon-record -- bas' | grep -x bash)" bash
    fi
else
    echo "SKIP fish: not installed"
fi

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
