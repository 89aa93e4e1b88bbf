#compdef prog-x
# zsh completion for prog-x, written by "prog-x --print-completion zsh"
# from its option table.
_arguments -s -S : \
  '(-v --verbose)'{-v,--verbose}'[more output]' \
  '--dry-run[don'\''t write \[anything\]]' \
  '(-o --output)'{-o+,--output=}'[write to FILE]:FILE:_files' \
  '--root=[look below DIR]:DIR:_files -/' \
  '(-p --pid)'{-p+,--pid=}'[attach to PID]:PID:_pids' \
  '(-t --to)'{-t+,--to=}'[format: a, b:c or '\''d'\'']:FMT:(a b\:c d-e)' \
  '--title=[a \\ title]:TEXT: ' \
  '*'{-I+,--include=}'[add a rule]:RE: ' \
  '(-h --help)'{-h,--help}'[show this help and exit]' \
  '(-V --version)'{-V,--version}'[show version information and exit]' \
  '(-)1:command: _command_names -e' \
  '*::arguments: _normal'
