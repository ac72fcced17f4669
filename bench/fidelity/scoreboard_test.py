#!/usr/bin/env python3
"""Unit tests of scoreboard.py: the derived PTS scale, the WSAT plateau's onset, failed runs, the
tail bounds (run by CTest: Fidelity.ScoreboardScale)."""
import contextlib
import io
import os
import sys
import tempfile
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


def wsat_of(iops, plateau, capacity_per_round=0.01):
    """A WSAT test's JSON with these per-round IOPS and steady-state mean."""
    rounds = [{"round": i + 1, "total": {"iops": v},
               "written_capacities": capacity_per_round * (i + 1)} for i, v in enumerate(iops)]
    return {"results": {"per_round": rounds}, "steady_state": {"mean": plateau}}


class WsatOnset(unittest.TestCase):
    def test_the_plateau_starts_where_a_window_of_rounds_comes_within_ten_percent(self):
        # 48k fresh for 20 rounds, then down by 1k a round to 27k.
        iops = [48000] * 20 + [max(27000, 47000 - 1000 * i) for i in range(40)]
        onset = scoreboard.wsat_onset(wsat_of(iops, 27000))
        windows = [sum(iops[i:i + 10]) / 10 for i in range(len(iops) - 9)]
        first = next(i for i, w in enumerate(windows) if w <= 27000 * 1.1)
        self.assertEqual(onset[0], first + 1)
        self.assertGreater(windows[first - 1], 27000 * 1.1)
        self.assertAlmostEqual(onset[1], 0.01 * (first + 1))

    def test_one_low_round_alone_is_not_the_plateau(self):
        # Round 31 alone at the plateau; from round 61 (48k, then nine at 27k: mean 29.1k).
        iops = [48000] * 30 + [27000] + [48000] * 30 + [27000] * 20
        self.assertEqual(scoreboard.wsat_onset(wsat_of(iops, 27000))[0], 61)

    def test_a_curve_that_never_comes_near_its_steady_state_has_no_onset(self):
        self.assertIsNone(scoreboard.wsat_onset(wsat_of([48000] * 30, 27000)))


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
        # Two PTS runs serve every row of seed 002 (its IOPS matrix in one review round, and
        # the other tests): each failed once, is counted and said once.
        self.assertIn("scoreboard: 2 run(s) failed", str(e.exception.code))
        self.assertEqual(err.getvalue().count("/bin/false pts"), 2)
        self.assertEqual(err.getvalue().count("--iops-round 204081us"), 1)

    def test_a_failed_run_is_not_run_again(self):
        calls = []
        real = scoreboard.subprocess.run
        scoreboard.subprocess.run = lambda *a, **k: calls.append(a) or real(*a, **k)
        try:
            with tempfile.TemporaryDirectory() as work:
                runner = scoreboard.Runner("/bin/false", work, "10s", False)
                for _ in range(3):
                    with self.assertRaises(SystemExit) as e:
                        runner.pts("dc-sas-write-intensive", ["iops"])
                    self.assertIn("/bin/false pts", str(e.exception.code))
        finally:
            scoreboard.subprocess.run = real
        self.assertEqual(len(calls), 1)


def bound_row(qd, x, source="datasheet"):
    return {"role": "bound", "block_size": "4k", "read_pct": "0", "qd": str(qd), "x": x,
            "source": source}


class TailBounds(unittest.TestCase):
    def test_a_qos_bounds_qd_1_as_written_and_adds_the_mean_wait_deeper(self):
        point = {"lat_mean_us": 1400.0}
        self.assertEqual(scoreboard.tail_bound(bound_row(1, "qos"), 4000, point), 4000)
        self.assertEqual(scoreboard.tail_bound(bound_row(32, "qos"), 4000, point), 5400)
        # A bound the review states at every depth applies as written.
        self.assertEqual(scoreboard.tail_bound(bound_row(32, ""), 1500, point), 1500)

    def test_a_point_above_its_bound_fails_the_scoreboard_naming_it(self):
        kept, stalled = bound_row(32, "qos"), bound_row(16, "qos", "the DC400 datasheet")
        figures = {id(kept): {"lat_mean_us": 1400.0, "lat_p99_9_us": 4100.0},
                   id(stalled): {"lat_mean_us": 700.0, "lat_p99_9_us": 547000.0}}
        rows = [(kept, "lat_p99_9_us", 4000.0, 4100.0, 0.025),
                (stalled, "lat_p99_9_us", 4000.0, 547000.0, 135.7)]
        failed = []
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            scoreboard.print_tails(rows, figures, failed, "dc-sata-read-intensive", "000")
        self.assertEqual(len(failed), 1)
        self.assertIn("QD 16 lat_p99_9_us 547000 us above its bound 4700 us (the DC400 datasheet)",
                      failed[0])
        self.assertIn("| 4k | 0 | 32 | lat_p99_9_us | 5400 us | 4100 us |", out.getvalue())


if __name__ == "__main__":
    unittest.main()
