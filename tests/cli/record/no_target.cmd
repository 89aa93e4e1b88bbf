# Neither a COMMAND nor -p PID: a usage error, 2 (there is no COMMAND).
tachyon-record -o x.bin
