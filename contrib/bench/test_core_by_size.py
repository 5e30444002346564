#!/usr/bin/env python3
"""The non-timing half of core_by_size.py: turning compare_core.py's JSON
files into points and a table, on made-up runs (no node is started, no
plot is drawn).

  python3 -m unittest discover -s contrib/bench -p 'test_*.py'
"""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import core_by_size  # noqa: E402


def saved(coins, coinsdb, core, match=True):
    """A compare_core.py JSON: coinsdb and core are (load_s, flush_ms_sum)
    per run."""
    runs = lambda pairs: [{"load_s": load, "flush_ms_sum": flush} for load, flush in pairs]
    return {"workload": "snapshot", "coins": coins, "runs": len(coinsdb), "dbcache_mib": 450,
            "hashes_match": match, "hash_serialized_3": {"coinsdb": "aa", "core": "aa" if match else "bb"},
            "results": {"coinsdb": runs(coinsdb), "core": runs(core)}}


class SizePointTests(unittest.TestCase):
    def test_medians_spread_and_ratios_per_size(self):
        points = core_by_size.size_points([
            saved(5_000_000, [(4.0, 2000), (6.0, 1000), (5.0, 3000)], [(20.0, 8000), (25.0, 10000), (30.0, 9000)]),
            saved(1_000_000, [(1.0, 500)], [(4.0, 2000)]),
        ])
        self.assertEqual([p["coins"] for p in points], [1_000_000, 5_000_000])
        big = points[1]
        self.assertEqual(big["coinsdb_load_s"], {"median": 5.0, "min": 4.0, "max": 6.0})
        # The flush sum is logged in milliseconds and plotted in seconds.
        self.assertEqual(big["core_flush_ms_sum"], {"median": 9.0, "min": 8.0, "max": 10.0})
        self.assertAlmostEqual(big["ratio_load_s"], 5.0 / 25.0)
        self.assertAlmostEqual(big["ratio_flush_ms_sum"], 2.0 / 9.0)
        self.assertAlmostEqual(points[0]["ratio_load_s"], 0.25)

    def test_a_run_without_the_figure_is_left_out(self):
        data = saved(2_000_000, [(2.0, 1000), (3.0, 1000)], [(8.0, 4000), (9.0, 4000)])
        data["results"]["coinsdb"][1]["load_s"] = None
        point = core_by_size.size_points([data])[0]
        self.assertEqual(point["coinsdb_load_s"], {"median": 2.0, "min": 2.0, "max": 2.0})

    def test_refuses_runs_that_ended_at_different_hashes(self):
        with self.assertRaisesRegex(ValueError, "different hashes"):
            core_by_size.size_points([saved(1_000_000, [(1.0, 500)], [(4.0, 2000)], match=False)])

    def test_refuses_a_node_without_any_figure(self):
        data = saved(1_000_000, [(1.0, 500)], [(4.0, 2000)])
        data["results"]["core"] = [{}]
        with self.assertRaisesRegex(ValueError, "core has no load_s"):
            core_by_size.size_points([data])

    def test_refuses_a_replay_comparison(self):
        data = saved(1_000_000, [(1.0, 500)], [(4.0, 2000)])
        data["workload"] = "replay"
        with self.assertRaisesRegex(ValueError, "not a snapshot comparison"):
            core_by_size.size_points([data])

    def test_table_has_one_row_per_size_with_ratios(self):
        points = core_by_size.size_points([saved(1_000_000, [(1.0, 500)], [(4.0, 2000)]),
                                           saved(2_000_000, [(3.0, 1500)], [(6.0, 2000)])])
        lines = core_by_size.table(points).splitlines()
        self.assertEqual(len(lines), 4)
        self.assertEqual([c.strip() for c in lines[2].strip("|").split("|")],
                         ["1,000,000", "1.00 s", "4.00 s", "0.25x", "0.50 s", "2.00 s", "0.25x"])
        self.assertTrue(lines[3].rstrip(" |").endswith("0.75x"))


class OptionTests(unittest.TestCase):
    def test_sizes_sorted_and_deduplicated(self):
        self.assertEqual(core_by_size.parse_sizes("5000000,1000000,,5000000"), [1_000_000, 5_000_000])

    def test_bad_sizes(self):
        for text in ("", "0", "-5", "1M"):
            with self.subTest(text=text), self.assertRaises(ValueError):
                core_by_size.parse_sizes(text)

    def test_plot_defaults_into_out(self):
        opts = core_by_size.parse_args(["--out", "x", "--sizes", "1000"])
        self.assertEqual(opts.plot, Path("x") / "core_by_size.png")
        self.assertEqual(opts.sizes, [1000])


if __name__ == "__main__":
    unittest.main()
