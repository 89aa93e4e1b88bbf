# --async-aware: task stacks replace thread stacks, so what selects or
# decorates threads is a usage error with it (as in CPython 3.15's
# profiler), and --async-mode needs it. Nothing is read.
tachyon-record --async-mode all -p 1; echo "exit $?"
tachyon-record --async-aware --async-mode some -p 1; echo "exit $?"
tachyon-record --async-aware --native -p 1; echo "exit $?"
tachyon-record --async-aware -a -p 1; echo "exit $?"
tachyon-record --async-aware --mode cpu -p 1; echo "exit $?"
tachyon-record --async-aware --no-gc -p 1; echo "exit $?"
tachyon-record --async-aware --live -p 1; echo "exit $?"
tachyon-record --async-aware --mode wall --async-mode all -p 4194303; echo "exit $?"
