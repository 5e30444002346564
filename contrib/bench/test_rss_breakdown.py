#!/usr/bin/env python3
"""rss_breakdown.py on a small Python child that holds 64 MB of its own
memory for a second: the anonymous peak sees it, and the child's exit code
comes back.

  python3 -m unittest discover -s contrib/bench -p 'test_*.py'
"""

import re
import subprocess
import sys
import unittest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent / "rss_breakdown.py"
HOLD = "import time; b = bytearray(64 * 1000 * 1000); b[::4096] = b'x' * len(b[::4096]); time.sleep(1.2); raise SystemExit({code})"


def run(code):
    return subprocess.run([sys.executable, str(SCRIPT), "--interval", "0.1", "--", sys.executable, "-c", HOLD.format(code=code)],
                          capture_output=True, text=True)


class RssBreakdownTests(unittest.TestCase):
    def test_the_anonymous_peak_holds_the_child_s_memory(self):
        result = run(0)
        self.assertEqual(result.returncode, 0, result.stderr)
        peak = re.search(r"peak VmRSS (\d+) MB = RssAnon (\d+) MB \+ RssFile (\d+) MB", result.stdout)
        anon = re.search(r"peak RssAnon (\d+) MB", result.stdout)
        self.assertIsNotNone(peak, result.stdout)
        self.assertIsNotNone(anon, result.stdout)
        self.assertGreaterEqual(int(anon.group(1)), 60)
        self.assertGreaterEqual(int(peak.group(1)), int(peak.group(2)))

    def test_the_command_s_exit_code_comes_back(self):
        self.assertEqual(run(3).returncode, 3)


if __name__ == "__main__":
    unittest.main()
