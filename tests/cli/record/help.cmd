# --help: the option table, the synopsis with a bare COMMAND, the exit
# statuses.
tachyon-record --help
