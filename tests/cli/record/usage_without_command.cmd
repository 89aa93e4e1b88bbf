# Without a COMMAND, tachyon-record uses 0/1/2.
tachyon-record -r 0 -p 1; echo "exit $?"
tachyon-record --frob -p 1; echo "exit $?"
tachyon-record --dump -o x.bin -p 1; echo "exit $?"
tachyon-record --recover x.bin -p 1; echo "exit $?"
