#!/usr/bin/env python3
"""Unit tests of twin_heldout.py (run by CTest: Twin.HeldOutSummaryOfATwinFile)."""
import math
import os
import sys
import tempfile
import tomllib
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import twin_heldout  # noqa: E402

TWIN = """name = "t"
[fit]
figures = [
  { name = "a", measured = 100, twin = 110, base = 150, held_out = true },
  { name = "b", measured = 100, twin = 95, base = 90, held_out = true },
  { name = "c", measured = 100, twin = 400, base = 100, held_out = true },
  { name = "d", measured = 100, twin = 100, base = 500, held_out = false },
]
"""


class Summary(unittest.TestCase):
    def test_held_out_figures_only(self):
        s = twin_heldout.summary(tomllib.loads(TWIN)["fit"]["figures"])
        self.assertEqual(s["n"], 3)
        self.assertAlmostEqual(s["median_twin"], 0.10)
        self.assertAlmostEqual(s["median_base"], 0.10)
        # |log 4| is capped at 1, as the fit's loss caps it.
        self.assertAlmostEqual(s["abs_log_twin"], (math.log(1.1) + -math.log(0.95) + 1.0) / 3)
        self.assertAlmostEqual(s["abs_log_base"], (math.log(1.5) + -math.log(0.9)) / 3)
        self.assertEqual((s["better"], s["worse"]), (2, 1))

    def test_no_held_out_figures(self):
        self.assertIsNone(twin_heldout.summary([]))

    def test_a_file_without_fit_figures_is_refused_by_name(self):
        with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
            f.write('name = "plain preset"\n')
        try:
            with self.assertRaises(SystemExit) as e:
                twin_heldout.main([f.name])
            self.assertIn(f.name, str(e.exception))
            self.assertIn("no [fit] figures", str(e.exception))
        finally:
            os.unlink(f.name)


if __name__ == "__main__":
    unittest.main()
