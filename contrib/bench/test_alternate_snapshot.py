#!/usr/bin/env python3
"""alternate_snapshot.py's summary: medians per build and the line it
prints, on made-up runs (no node is started).

  python3 -m unittest discover -s contrib/bench -p 'test_*.py'
"""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import alternate_snapshot  # noqa: E402


def run(load_s, flush_ms, count, rss):
    return {"load_s": load_s, "flush_ms_sum": flush_ms, "flush_count": count, "peak_rss_mib": rss}


class Medians(unittest.TestCase):
    def test_each_figure_is_its_own_median(self):
        runs = [run(6.0, 2100.0, 5, 560.0), run(7.0, 2000.0, 5, 580.0), run(5.0, 2300.0, 6, 570.0)]
        self.assertEqual(alternate_snapshot.medians(runs),
                         {"load_s": 6.0, "flush_ms_sum": 2100.0, "flush_count": 5, "peak_rss_mib": 570.0})

    def test_even_runs_average_the_middle_two(self):
        runs = [run(6.0, 2000.0, 5, 560.0), run(7.0, 2200.0, 5, 580.0)]
        medians = alternate_snapshot.medians(runs)
        self.assertEqual(medians["flush_ms_sum"], 2100.0)
        self.assertEqual(medians["load_s"], 6.5)
        self.assertIsInstance(medians["flush_count"], int)

    def test_line(self):
        self.assertEqual(alternate_snapshot.line(run(6.034, 2130.49, 5, 567.4)),
                         "load s 6.03, flushes ms 2130, flushes 5, peak RSS MiB 567")


if __name__ == "__main__":
    unittest.main()
