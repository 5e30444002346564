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


class ReplayFigureTests(unittest.TestCase):
    # A replay's debug.log as either node writes it: lines before the import
    # and after the tip do not count.
    LOG = """2026-01-01T00:00:00.000000Z [leveldb] Level-0 table #3: 1048576 bytes OK
2026-01-01T00:00:01.000000Z Importing blocks file /x/chain.dat...
2026-01-01T00:00:02.000000Z [bench] BatchWrite: write coins cache to disk (10 out of 10 cached coins) started
2026-01-01T00:00:02.500000Z [coindb] Committed 10 changed transaction outputs (out of 10) to coin database...
2026-01-01T00:00:02.500000Z [bench] BatchWrite: write coins cache to disk (10 out of 10 cached coins) completed (500.25ms)
2026-01-01T00:00:03.000000Z [leveldb] Level-0 table #7: 2097152 bytes OK
2026-01-01T00:00:03.100000Z [leveldb] Compacting 4@0 + 1@1 files
2026-01-01T00:00:03.200000Z [leveldb] Generated table #8@0: 100 keys, 3145728 bytes
2026-01-01T00:00:03.250000Z [leveldb] Generated table #9@3: 10 keys, 1048576 bytes
2026-01-01T00:00:03.300000Z [coindb] Committed 0 changed transaction outputs (out of 0) to coin database...
2026-01-01T00:00:04.000000Z [bench] BatchWrite: write coins cache to disk (5 out of 5 cached coins) completed (20.00ms)
2026-01-01T00:00:05.000000Z UpdateTip: new best=ab height=2 version=0x20000000 log2_work=1.0 tx=3 date='x' cache=0.1MiB(5txo)
2026-01-01T00:00:06.000000Z [leveldb] Compacting 1@1 + 1@2 files
""".splitlines()

    def test_figures_of_the_import(self):
        figures = compare_core.replay_figures(self.LOG, blocks=2)
        self.assertEqual(figures, {"import_s": 4.0, "coin_writes": 1, "coins_written": 10, "flush_count": 2,
                                   "flush_ms_sum": 520.25, "memtable_tables_mib": 2.0, "compacted_mib": 4.0,
                                   "compacted_mib_by_level": {0: 3.0, 3: 1.0}, "compactions": 1})

    def test_no_tip_no_figures(self):
        self.assertIsNone(compare_core.replay_figures(self.LOG, blocks=3))

    def test_after_import_counts_every_line_given(self):
        # The restart's lines: what LevelDB wrote, whatever the time.
        figures = compare_core.after_import_figures(self.LOG[5:])
        self.assertEqual(figures, {"after_import_mib": 6.0, "after_import_compactions": 2})
        self.assertEqual(compare_core.after_import_figures([]), {"after_import_mib": 0.0, "after_import_compactions": 0})

    def test_leveldb_lines_that_keep_a_wait_going(self):
        waiting = [line for line in self.LOG if compare_core.LEVELDB_LINE.search(line)]
        self.assertEqual(len(waiting), 6)


class RunOrderTests(unittest.TestCase):
    class FakeNode:
        def __init__(self, kind):
            self.kind = kind

    def order(self, kinds, run):
        return [node.kind for node in compare_core.run_order([self.FakeNode(k) for k in kinds], run)]

    def test_without_hints_the_order_given(self):
        for run in (1, 2, 3):
            self.assertEqual(self.order(["coinsdb", "core"], run), ["coinsdb", "core"])

    def test_with_hints_core_last_and_ours_swap(self):
        kinds = ["coinsdb", "core", "hinted"]
        self.assertEqual(self.order(kinds, 1), ["coinsdb", "hinted", "core"])
        self.assertEqual(self.order(kinds, 2), ["hinted", "coinsdb", "core"])
        self.assertEqual(self.order(kinds, 3), ["coinsdb", "hinted", "core"])
        # Over two runs, each of ours comes right after a Core replay once.
        sequence = self.order(kinds, 1) + self.order(kinds, 2) + self.order(kinds, 3)
        after_core = [sequence[i + 1] for i, kind in enumerate(sequence[:-1]) if kind == "core"]
        self.assertEqual(sorted(after_core), ["coinsdb", "hinted"])


if __name__ == "__main__":
    unittest.main()
