#!/usr/bin/env python3
"""The parsing and arithmetic of flush_vs_disk.py, on literal log, dd and
du output (no node is started, nothing is written).

  python3 -m unittest discover -s contrib/bench -p 'test_*.py'
"""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import flush_vs_disk  # noqa: E402


class LogTests(unittest.TestCase):
    LOG = [
        "2026-11-27T10:00:00.000001Z [coindb] BatchWrite took=0ms, maxMem=9MiB",
        "2026-11-27T10:00:40.000000Z [snapshot] loading 60000000 coins",
        "2026-11-27T10:01:20.000000Z [coindb] BatchWrite took=11380ms, maxMem=6200MiB",
        "2026-11-27T10:01:21.000000Z BatchWrite took=987ms, maxMem=400MiB",
        "2026-11-27T10:01:22.000000Z FlushSnapshotToDisk: completed (13000.00ms)",
    ]

    def test_the_largest_batch_write_is_the_flush(self):
        self.assertEqual(flush_vs_disk.largest_batch_write_ms(self.LOG), 11380)

    def test_a_log_without_batch_writes(self):
        self.assertIsNone(flush_vs_disk.largest_batch_write_ms(self.LOG[1:2] + self.LOG[4:]))


class DdTests(unittest.TestCase):
    def test_rate_from_bytes_and_seconds_not_from_dd_rounding(self):
        stderr = ("4096+0 records in\n4096+0 records out\n"
                  "4294967296 bytes (4.3 GB, 4.0 GiB) copied, 8.5899 s, 500 MB/s\n")
        self.assertAlmostEqual(flush_vs_disk.dd_rate_mb_s(stderr), 4294967296 / 8.5899 / 1e6)

    def test_small_copy_in_another_unit(self):
        stderr = "16777216 bytes (17 MB, 16 MiB) copied, 0.25 s, 67.1 MB/s\n"
        self.assertAlmostEqual(flush_vs_disk.dd_rate_mb_s(stderr), 16777216 / 0.25 / 1e6)

    def test_no_summary_line(self):
        for stderr in ("dd: error writing 'x': No space left on device\n",
                       "0 bytes copied, 0 s, ? B/s\n", "1 bytes (1 B) copied, 0 s, inf B/s\n"):
            with self.subTest(stderr=stderr), self.assertRaises(ValueError):
                flush_vs_disk.dd_rate_mb_s(stderr)

    def test_du(self):
        self.assertEqual(flush_vs_disk.du_bytes("4121088305\t/w/datadir/regtest/chainstate_snapshot\n"), 4121088305)


class FigureTests(unittest.TestCase):
    def test_ratio_is_flush_rate_over_mean_dd(self):
        # Round 14's third 3b570cb run: 12.16 s for 4,121,088,305 B between
        # dd runs of 401 and 453 MB/s.
        r = flush_vs_disk.run_figures(12160, 4_121_088_305, 401.0, 453.0)
        self.assertAlmostEqual(r["flush_mb_s"], 338.9, places=1)
        self.assertAlmostEqual(r["ratio"], 338.9 / 427.0, places=3)
        self.assertEqual(round(r["ratio"], 2), 0.79)

    def test_summary_per_build_in_run_order(self):
        runs = [{"build": b, "flush_s": f, "ratio": q}
                for b, f, q in [("base", 15.78, 0.65), ("new", 12.85, 0.67), ("base", 18.16, 0.49),
                                ("new", 14.54, 0.65), ("base", 16.35, 0.55), ("new", 12.16, 0.79)]]
        s = flush_vs_disk.summary(runs)
        self.assertEqual(list(s), ["base", "new"])
        self.assertEqual(s["new"]["flush_s"], {"median": 12.85, "min": 12.16, "max": 14.54})
        self.assertEqual(s["base"]["ratio"], {"median": 0.55, "min": 0.49, "max": 0.65})


if __name__ == "__main__":
    unittest.main()
