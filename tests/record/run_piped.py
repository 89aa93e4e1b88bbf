# SPDX-License-Identifier: MIT
"""run_piped.py SCRIPT PROGRAM - run SCRIPT with this interpreter and pipe
its output into PROGRAM; exit with PROGRAM's status (for record tests that
need the interpreter chosen by record_test.sh)."""
import subprocess
import sys

script, program = sys.argv[1:3]
producer = subprocess.Popen([sys.executable, script], stdout=subprocess.PIPE)
rc = subprocess.run([program], stdin=producer.stdout).returncode
producer.stdout.close()
sys.exit(rc or producer.wait())
