#!/usr/bin/env python3
"""Unit tests of scoreboard.py: the derived PTS scale, failed runs (run by CTest:
Fidelity.ScoreboardScale)."""
import contextlib
import io
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scoreboard  # noqa: E402


class PtsScale(unittest.TestCase):
    def test_a_round_of_a_sixth_of_the_reviews_runs_on_a_sixth_of_the_drive(self):
        self.assertEqual(scoreboard.pts_scale("10s", "60s", ""), 6)
        self.assertEqual(scoreboard.pts_scale("500ms", "1m", "op=30"), 120)

    def test_a_round_as_long_as_the_reviews_is_the_full_drive(self):
        self.assertEqual(scoreboard.pts_scale("60s", "60s", ""), 1)
        self.assertEqual(scoreboard.pts_scale("90s", "60s", ""), 1)

    def test_a_scale_the_user_sets_is_kept(self):
        self.assertIsNone(scoreboard.pts_scale("10s", "60s", "scale=256"))
        self.assertIsNone(scoreboard.pts_scale("10s", "60s", "op=30&scale=16"))
        self.assertEqual(scoreboard.pts_scale("10s", "60s", "t_read_scale=2"), 6)

    def test_a_malformed_duration_is_refused_by_name(self):
        with self.assertRaises(SystemExit) as e:
            scoreboard.seconds_of("10 sec")
        self.assertIn("'10 sec'", str(e.exception))


class FailedRuns(unittest.TestCase):
    def test_a_failed_run_is_named_and_makes_the_scoreboard_exit_non_zero(self):
        argv, err = sys.argv, io.StringIO()
        sys.argv = ["scoreboard.py", "--ssdlab", "/bin/false", "--only", "002"]
        try:
            with self.assertRaises(SystemExit) as e, contextlib.redirect_stdout(io.StringIO()), \
                    contextlib.redirect_stderr(err):
                scoreboard.main()
        finally:
            sys.argv = argv
        self.assertIn("run(s) failed, their cells unscored (first: scoreboard: /bin/false pts",
                      str(e.exception.code))
        self.assertIn("failed", err.getvalue())


if __name__ == "__main__":
    unittest.main()
