# SPDX-License-Identifier: MIT
"""check_refused.py RECORDER - recording an interpreter older than 3.11
(this one: 3.10, or 2.7) must fail with exit 125 (the recorder's own
failure, whatever the COMMAND does) and say why, leaving no output file.
Written to run under Python 2.7 too."""
import os
import subprocess
import sys
import tempfile

recorder = sys.argv[1]
out = os.path.join(tempfile.mkdtemp(), "refused.bin")
p = subprocess.Popen([recorder, "-o", out, "--", sys.executable, "-c",
                      "import time; time.sleep(3)"],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
_, err = p.communicate()
err = err.decode("utf-8")
ok = (p.returncode == 125 and
      "Python older than 3.11 is not supported" in err and
      err.startswith("tachyon-record: process ") and
      not os.path.exists(out))
print(err.strip())
print("%d passed, %d failed" % (int(ok), int(not ok)))
sys.exit(0 if ok else 1)
