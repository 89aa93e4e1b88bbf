# SPDX-License-Identifier: MIT
"""run_offsets.py CHECK_SCRIPT PRINT_OFFSETS - run check_offsets.sh for the
interpreter chosen by record_test.sh, passing its status (77 = skip)."""
import subprocess
import sys

check, printer = sys.argv[1:3]
sys.exit(subprocess.run(["sh", check, sys.executable, printer]).returncode)
