# A usage error with a COMMAND is the recorder's own failure: 125, never a
# status the COMMAND could give. Nothing is run.
tachyon-record -r 0 -o x.bin touch ran; echo "exit $?"
tachyon-record --frob touch ran; echo "exit $?"
tachyon-record -p 1 touch ran; echo "exit $?"
test -e ran && echo "the COMMAND ran"
true
