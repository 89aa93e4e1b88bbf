# SPDX-License-Identifier: MIT
# A target for tachyon-record --subprocesses: two fork children of Python
# that run Python (child_main) for argv[2] seconds, then exec: one a new
# Python (which runs child_main for a second), the other a program that is
# not Python (sleep). The parent writes their pids to argv[1].
import json
import os
import sys

from family_target import child_main


def main():
    if sys.argv[1] == "child":
        child_main()
        return
    pre = float(sys.argv[2])
    to_python = os.fork()
    if to_python == 0:
        child_main(pre)
        os.execv(sys.executable, [sys.executable, __file__, "child"])
    to_other = os.fork()
    if to_other == 0:
        child_main(pre)
        os.execv("/bin/sleep", ["sleep", "0.5"])
    child_main(0.3)
    os.waitpid(to_python, 0)
    os.waitpid(to_other, 0)
    with open(sys.argv[1], "w") as f:
        json.dump({"to_python": to_python, "to_other": to_other}, f)


if __name__ == "__main__":
    main()
