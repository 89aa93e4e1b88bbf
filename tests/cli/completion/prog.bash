# bash completion for prog-x, written by "prog-x --print-completion bash"
# from its option table.
_prog_x()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev= i=$COMP_CWORD
    COMPREPLY=()
    # A value split at ':' (COMP_WORDBREAKS) is joined again.
    while ((i > 1)) && [[ ${COMP_WORDS[i]} == : ||
        ${COMP_WORDS[i - 1]} == : ]]; do
        cur=${COMP_WORDS[i - 1]}$cur
        ((i--))
    done
    # "--name=value" comes as the words "--name", "=", "value".
    if [[ $cur == = ]]; then
        cur= prev=${COMP_WORDS[i - 1]}
    elif ((i > 1)) && [[ ${COMP_WORDS[i - 1]} == = ]]; then
        prev=${COMP_WORDS[i - 2]}
    elif ((i > 0)); then
        prev=${COMP_WORDS[i - 1]}
    fi
    for ((i = 1; i < COMP_CWORD; i++)); do
        if [[ ${COMP_WORDS[i]} == -- ]]; then
            if declare -F _filedir >/dev/null; then
                _filedir
            else
                compopt -o filenames 2>/dev/null
                mapfile -t COMPREPLY < <(compgen -f -- "$cur")
            fi
            return
        fi
    done
    case $prev in
    -t|--to)
        mapfile -t COMPREPLY < <(compgen -W 'a b:c d-e' -- "$cur")
        if [[ $cur == *:* && $COMP_WORDBREAKS == *:* ]]; then
            COMPREPLY=("${COMPREPLY[@]#"${cur%:*}:"}")
        fi
        return ;;
    -o|--output)
        if declare -F _filedir >/dev/null; then
            _filedir
        else
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        fi
        return ;;
    --root)
        if declare -F _filedir >/dev/null; then
            _filedir -d
        else
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -d -- "$cur")
        fi
        return ;;
    -p|--pid)
        if declare -F _pids >/dev/null; then
            _pids
        else
            mapfile -t COMPREPLY < <(compgen -W "$(ps -eo pid= 2>/dev/null)" -- "$cur")
        fi
        return ;;
    --title|-I|--include)
        return ;;
    esac
    if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W '-v --verbose --dry-run -o --output --root -p --pid -t --to --title -I --include -h --help -V --version' -- "$cur")
        return
    fi
    if declare -F _filedir >/dev/null; then
        _filedir
    else
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    fi
}
complete -F _prog_x prog-x
