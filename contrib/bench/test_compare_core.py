#!/usr/bin/env python3
"""The summary half of compare_core.py: medians, per-pair ratios and the
table, on made-up runs (no node is started).

  python3 -m unittest discover -s contrib/bench -p 'test_*.py'
"""

import contextlib
import io
import json
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare_core  # noqa: E402


def snapshot_runs(coinsdb_rates, core_rates):
    """Results as compare_core.py keeps them, with only the flush rate set."""
    return {"coinsdb": [{"coins_per_s_batchwrite": r} for r in coinsdb_rates],
            "core": [{"coins_per_s_batchwrite": r} for r in core_rates]}


def table(summary, runs):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        compare_core.print_table("snapshot", summary, runs)
    return out.getvalue()


def row(text, label):
    return next(line for line in text.splitlines() if line.startswith(f"| {label} "))


class PairRatioTests(unittest.TestCase):
    # (coinsdb runs, core runs, expected pair ratios, expected median ratio)
    CASES = [
        # Pairs go run by run; the median ratio is of the two medians, so it
        # need not be any pair's ratio.
        ([4.0, 3.0, 2.0], [2.0, 2.0, 1.0], [2.0, 1.5, 2.0], 1.5),
        ([3.0], [1.5], [2.0], 2.0),
        # A run without the figure, or a zero on Core's side, has no ratio.
        ([3.0, None], [1.0, 1.0], [3.0, None], 3.0),
        ([3.0, 2.0], [0.0, 1.0], [None, 2.0], 2.5 / 0.5),
    ]

    def test_pairs_and_median(self):
        for coinsdb, core, pairs, median in self.CASES:
            with self.subTest(coinsdb=coinsdb, core=core):
                runs = snapshot_runs(coinsdb, core)
                self.assertEqual(compare_core.pair_ratios(runs, "coins_per_s_batchwrite"), pairs)
                self.assertAlmostEqual(compare_core.summarize("snapshot", runs)["coins_per_s_batchwrite"]["ratio"], median)

    def test_table_shows_each_pair(self):
        summary = compare_core.summarize("snapshot", snapshot_runs([4.0, 3.0, 2.0], [2.0, 2.0, 1.0]))
        text = table(summary, 3)
        self.assertIn("per pair", text.splitlines()[0])
        self.assertTrue(row(text, "coins / s of flush").rstrip(" |").endswith("2.00, 1.50, 2.00"))
        # Figures no run has show as "-", in every column.
        self.assertTrue(row(text, "peak RSS").rstrip(" |").endswith("-, -, -"))

    def test_one_run_has_no_pair_column(self):
        text = table(compare_core.summarize("snapshot", snapshot_runs([3.0], [1.5])), 1)
        self.assertNotIn("per pair", text)
        self.assertEqual(row(text, "coins / s of flush").count("|"), 5)

    def test_from_json_reprints_a_saved_run(self):
        saved = {"workload": "snapshot", "runs": 2, "results": snapshot_runs([4.0, 3.0], [2.0, 1.0]),
                 "hash_serialized_3": {"coinsdb": "aa", "core": "aa"}}
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "run.json"
            path.write_text(json.dumps(saved))
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                compare_core.reprint(path)
        text = out.getvalue()
        self.assertTrue(row(text, "coins / s of flush").rstrip(" |").endswith("2.00, 3.00"))
        self.assertIn("hash_serialized_3: coinsdb aa, core aa", text)


if __name__ == "__main__":
    unittest.main()
