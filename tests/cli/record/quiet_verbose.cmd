# -q with -v is a usage error in every tool (issue 21): tachyon-record
# gets the check from the shared parser (tools/common), before it
# attaches to anything.
command -v tachyon-record >/dev/null || { echo "tachyon-record is not built here" >&2; exit 77; }
tachyon-record -q -v -p 1; echo "exit $?"
