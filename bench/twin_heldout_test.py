#!/usr/bin/env python3
"""Unit tests of twin_heldout.py (run by CTest: Twin.HeldOutSummaryOfATwinFile)."""
import contextlib
import io
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

    def test_pool_summarises_the_held_out_figures_of_all_files(self):
        fold = """name = "t"
[fit]
figures = [
  {{ name = "a", measured = 100, twin = {a}, base = 150, held_out = {ha} }},
  {{ name = "b", measured = 100, twin = {b}, base = 90, held_out = {hb} }},
]
"""
        paths = []
        try:
            for text in (fold.format(a=110, ha="true", b=500, hb="false"),
                         fold.format(a=500, ha="false", b=96, hb="true")):
                with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
                    f.write(text)
                    paths.append(f.name)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                twin_heldout.main(["--pool"] + paths)
            # a from the first fold (10%), b from the second (4%); base 50% and 10%.
            self.assertIn("2 files pooled: held out 2: median 7.0% (base 30.0%)", out.getvalue())
            self.assertIn("the twin closer on 2, farther on 0", out.getvalue())
        finally:
            for p in paths:
                os.unlink(p)


if __name__ == "__main__":
    unittest.main()
