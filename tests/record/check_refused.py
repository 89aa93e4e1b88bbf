"""check_refused.py RECORDER - recording an interpreter older than 3.11
(this one) must fail with exit 2 and say why, leaving no output file."""
import os
import subprocess
import sys
import tempfile

recorder = sys.argv[1]
out = os.path.join(tempfile.mkdtemp(), "refused.bin")
p = subprocess.run([recorder, "-o", out, "--", sys.executable, "-c",
                    "import time; time.sleep(3)"],
                   capture_output=True, text=True, timeout=30)
ok = (p.returncode == 2 and
      "Python older than 3.11 is not supported" in p.stderr and
      p.stderr.startswith("tachyon-record: process ") and
      not os.path.exists(out))
print(p.stderr.strip())
print(f"{int(ok)} passed, {int(not ok)} failed")
sys.exit(0 if ok else 1)
