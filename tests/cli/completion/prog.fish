# fish completion for prog-x, written by "prog-x --print-completion fish"
# from its option table.
complete -c prog-x -s v -l verbose -d 'more output'
complete -c prog-x -l dry-run -d 'don\'t write [anything]'
complete -c prog-x -s o -l output -r -F -d 'write to FILE'
complete -c prog-x -l root -x -a '(__fish_complete_directories)' -d 'look below DIR'
complete -c prog-x -s p -l pid -x -a '(__fish_complete_pids)' -d 'attach to PID'
complete -c prog-x -s t -l to -x -a 'a b:c d-e' -d 'format: a, b:c or \'d\''
complete -c prog-x -l title -x -d 'a \\ title'
complete -c prog-x -s I -l include -x -d 'add a rule'
complete -c prog-x -s h -l help -d 'show this help and exit'
complete -c prog-x -s V -l version -d 'show version information and exit'
