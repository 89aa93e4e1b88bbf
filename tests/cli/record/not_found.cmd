# A COMMAND that does not exist: 127, as a shell says.
tachyon-record -o x.bin /nonexistent/cmd --flag
