#!/bin/sh
# Regenerates profile_runs.json, the profile fixture of report_test: every review-lab profile
# run by the real program on small simulated drives with short options, exported with
# `ssdlab export RUN --json`, the host- and time-dependent context fields fixed.
#
#   src/report/testdata/make_profile_runs.sh build/ssdlab
#
# Then rewrite the golden file (SSDLAB_UPDATE_GOLDEN=1 report_test) and review the diff.
set -eu
ssdlab=$(realpath "$1")
here=$(dirname "$(realpath "$0")")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$here/../../.."  # the repository: profiles/ holds the user profile

run() {  # run NAME PROFILE TARGET [OPTIONS...]
  name=$1 profile=$2 target=$3
  shift 3
  "$ssdlab" profile "$profile" --target "$target" --db "$work/p.db" --run "$name" --progress none "$@" >/dev/null
  echo "$name" >>"$work/names"
}

cdm="--size 32MiB --passes 2 --time 300ms --pause 100ms"
curve="--time 300ms --ramp 0 --points 50,100,120"
# shellcheck disable=SC2086
{
  run cdm cdm sim:tiny $cdm --fill 0,90
  run cdm-op28 cdm "sim:tiny?op=28" $cdm
  run atto atto sim:tiny --size 8MiB --min-bs 512 --max-bs 1MiB
  run as-ssd as-ssd sim:tiny --size 32MiB --time 300ms
  run surface-tiny surface sim:tiny --segments 20
  run surface-tlc surface "sim:client-nvme-tlc?scale=1024" --segments 20
  run fileio fileio sim:tiny --threads 16 --time 300ms
  run sql sql sim:tiny $curve
  run 4k-randread 4k-randread sim:tiny $curve
  run fill fill sim:tiny --percent 50
  run op-advisor op-advisor "sim:dc-sata-read-intensive?scale=16384" --op 0,20 --time 10s --interval 500ms
  run user profiles/mixed-oltp.toml sim:tiny
}
for n in $(cat "$work/names"); do
  "$ssdlab" export "$n" --db "$work/p.db" --json "$work/$n.json"
done

python3 - "$work" "$here/profile_runs.json" <<'EOF'
import json, sys
work, out = sys.argv[1], sys.argv[2]
docs = []
for name in open(f"{work}/names").read().split():
    d = json.load(open(f"{work}/{name}.json"))
    c = d["context"]
    c.update(host="lab1", cpu_model="fixture CPU", cpus=2, memory_bytes=8589934592, os="Linux", kernel="6.1.0",
             arch="x86_64", tool_version="0.1.0", git_revision="fixture", created_at="2024-01-02T03:04:05Z",
             finished_at="2024-01-02T03:04:06Z")
    for t in d["tests"]:
        for s in (t["results"].get("health") or {}).get("samples", []):
            s["t_s"] = 0
    docs.append(d)
with open(out, "w") as f:
    json.dump(docs, f, indent=0, sort_keys=True)
    f.write("\n")
EOF
echo "wrote $here/profile_runs.json"
