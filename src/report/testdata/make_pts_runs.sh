#!/bin/sh
# Regenerates pts_runs.json, the PTS fixture of report_test's golden from real runs: whole
# batteries run by the real program on small simulated drives with short options (the shapes
# and the simulator's deterministic figures, not a review's durations), exported with
# `ssdlab export RUN --json`, the host- and time-dependent context fields fixed.
#
#   src/report/testdata/make_pts_runs.sh build/ssdlab
#
# Then rewrite the golden file (SSDLAB_UPDATE_GOLDEN=1 report_test) and review the diff.
set -eu
ssdlab=$(realpath "$1")
here=$(dirname "$(realpath "$0")")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

quick="--round 1s --max-rounds 6 --wsat-round 1s --wsat-max-rounds 8 --lvi-warmup 200ms
  --lvi-measure 1s --hir-cycles 3 --hir-baseline 5s --xsr 5s,5s,5s --dirth-hist 2s --progress none"
# shellcheck disable=SC2086
{
  "$ssdlab" pts --target "sim:tiny?logical_block=512" --spec review --db "$work/p.db" \
    --run review-tiny $quick >/dev/null
  "$ssdlab" pts --target "sim:tiny?op=28" --spec pts-e --tests iops,tp,lat,wsat --db "$work/p.db" \
    --run ptse-tiny-op28 --iops-bs 4KiB,64KiB --iops-mixes 100/0,65/35,0/100 --lat-bs 4KiB \
    --window 3 $quick >/dev/null
}
for n in review-tiny ptse-tiny-op28; do
  "$ssdlab" export "$n" --db "$work/p.db" --json "$work/$n.json"
done

python3 - "$work" "$here/pts_runs.json" <<'PY'
import json, sys
work, out = sys.argv[1], sys.argv[2]
docs = []
for name in ["review-tiny", "ptse-tiny-op28"]:
    d = json.load(open(f"{work}/{name}.json"))
    d["context"].update(host="lab1", cpu_model="fixture CPU", cpus=2, memory_bytes=8589934592,
                        os="Linux", kernel="6.1.0", arch="x86_64", tool_version="0.1.0",
                        git_revision="fixture", created_at="2024-01-02T03:04:05Z",
                        finished_at="2024-01-02T03:04:06Z")
    docs.append(d)
with open(out, "w") as f:
    json.dump(docs, f, indent=0, sort_keys=True)
    f.write("\n")
PY
echo "wrote $here/pts_runs.json"
