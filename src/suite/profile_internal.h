// Private to suite/: what the profile bodies share (profile.cc runs them; the review programs'
// benchmarks are in profile_review.cc, the load studies in profile_load.cc). Each body runs its
// stored steps through the Runner and returns its typed results (results/profile_kinds.h),
// adding its headline figures to the level's summary.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "base/units.h"
#include "results/profile.h"
#include "suite/profile.h"
#include "suite/runner.h"

namespace ssdlab::profile_internal {

using Summary = std::vector<results::SummaryFigure>;

inline constexpr uint64_t kAlign = kMiB;
inline constexpr uint64_t kMinRoom = 16 * kMiB;  // smallest default test file after shrinking

inline uint64_t AlignDown(uint64_t v, uint64_t a) { return v / a * a; }
inline uint64_t AlignUp(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

// Decimal MB/s, as CrystalDiskMark, ATTO and AS SSD print by default.
inline double MBps(const PhaseResult& r, const DirectionStats& d) { return r.BytesPerS(d) / 1e6; }

struct PhaseItem {
  std::string cell;
  WorkloadSpec spec;
  uint64_t idle_before_ns = 0;
};

// Everything a profile body needs.
struct Ctx {
  pts::Runner& r;
  const ProfileDef& def;
  const ProfileOptions& o;
  int step = 0;
  uint64_t salt = 0;
  std::vector<std::string> notes;

  uint64_t capacity() const { return r.capacity(); }
  uint32_t lbs() const { return std::max<uint32_t>(1, r.env().backend.info().logical_block_bytes); }

  WorkloadSpec Spec(bool seq, double read_pct, std::vector<BlockShare> bs, uint32_t jobs,
                    uint32_t qd, uint64_t begin, uint64_t end, uint64_t runtime_ns,
                    uint64_t io_bytes);
  // One stored step: optionally a purge, then the phases in order (idling before each as
  // asked). Returns the phases (stored ones when resumed on a persistent target).
  Result<std::vector<StoredPhase>> Step(const std::vector<PhaseItem>& items, bool purge = false,
                                        std::string* purge_method = nullptr);
  // A default duration as run: divided by --time-scale (ProfileOptions::time_scale).
  uint64_t Scaled(uint64_t default_ns) const {
    return default_ns / std::max<uint32_t>(1, o.time_scale);
  }
  // The measured time of each timed phase: --time, else the kind's default, scaled.
  uint64_t PhaseNs() const { return o.time_ns ? o.time_ns : Scaled(DefaultPhaseNs(def.kind)); }
  results::PhaseMetrics Metrics(const PhaseResult& res) const {
    return results::MetricsOf(res, o.percentiles);
  }
};

// The phase of `cell` among `phases` (an empty result when none).
const PhaseResult& Find(const std::vector<StoredPhase>& phases, const std::string& cell);
// Sequential 1 MiB writes of [begin, end): CDM's and sysbench's "prepare", the fill levels.
WorkloadSpec SeqFill(Ctx& c, uint64_t begin, uint64_t end);
// Invalid naming `what` when `bytes` from `begin` do not fit on the target.
Status NeedRoom(Ctx& c, uint64_t begin, uint64_t bytes, const std::string& what);
// The size of a test file or span: the user's (checked by NeedRoom), else the default, shrunk
// (whole MiB, with a note) to what the fill left when that is less (a scaled simulated drive
// at 90% full has less room than the full drive's default file).
uint64_t RoomFor(Ctx& c, uint64_t begin, uint64_t default_bytes, const std::string& what);

// The bodies, by kind. `base`: where the free space starts after the fill level's fill.
Result<results::CdmResults> Cdm(Ctx& c, uint64_t base, Summary& sum);  // cdm, cdm-nvme
Result<results::AttoResults> Atto(Ctx& c, uint64_t base, Summary& sum);
Result<results::AsSsdResults> AsSsd(Ctx& c, uint64_t base, Summary& sum);
Result<results::SurfaceResults> Surface(Ctx& c, Summary& sum);
Result<results::FillResults> Fill(Ctx& c, Summary& sum);
Result<results::CurveResults> Curve(Ctx& c, bool filled, Summary& sum);  // profile_load.cc
Result<results::OpAdvisorResults> OpAdvisor(Ctx& c, Summary& sum);
Result<results::FileioResults> FileIo(Ctx& c, uint64_t base, Summary& sum);
Result<results::UserResults> User(Ctx& c, Summary& sum);

}  // namespace ssdlab::profile_internal
