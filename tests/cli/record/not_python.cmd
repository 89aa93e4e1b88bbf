# A COMMAND that is not Python: 125 (nothing recorded) though it exited 0,
# and the message says what it is and how it ended. Options after the
# COMMAND's name are its own (sleep takes the 0.3).
tachyon-record -o x.bin sleep 0.3; echo "exit $?"
test -e x.bin && echo "a log was left"
true
