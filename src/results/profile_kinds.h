// The results of each review-lab profile kind at one fill level (suite/profile.h): what
// `ssdlab profile` stores under levels[i].results, one struct per kind, one ToJson and one
// FromJson each. Throughputs are decimal MB/s (10^6 bytes/s, as the programs they mimic print)
// unless the name says MiB; every phase's full figures are its `metrics`.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "base/status.h"
#include "results/mix.h"
#include "results/phase_metrics.h"

namespace ssdlab::results {

// ---- CrystalDiskMark ("cdm", "cdm-nvme") ----
struct CdmDirection {
  double mb_s = 0, iops = 0, mean_us = 0;  // of the best pass
  uint64_t best_pass = 0;                  // 1-based
  std::vector<double> passes_mb_s;         // every pass, in order
  PhaseMetrics metrics;                    // of the best pass
};
struct CdmItem {
  std::string name;  // "SEQ1M Q8T1"
  uint64_t block_bytes = 0;
  uint32_t qd = 0, threads = 0;
  CdmDirection read, write;
};
struct CdmResults {
  std::vector<CdmItem> items;
  uint64_t test_file_bytes = 0, pass_ns = 0, pause_ns = 0;
  uint32_t passes = 0;
  std::string rule;  // how the figure of a test is chosen
};

// ---- ATTO ("atto") ----
struct AttoRow {
  uint64_t block_bytes = 0;
  double write_mb_s = 0, read_mb_s = 0, write_iops = 0, read_iops = 0;
  PhaseMetrics write, read;
};
struct AttoSkipped {
  uint64_t block_bytes = 0;
  std::string reason;
};
struct AttoResults {
  std::vector<AttoRow> rows;  // by block size, smallest first
  std::vector<AttoSkipped> skipped;
  uint64_t span_bytes = 0;
  uint32_t qd = 0;
};

// ---- AS SSD ("as-ssd") ----
struct ReadWriteMbps {
  double read_mb_s = 0, write_mb_s = 0;
};
struct AsSsdResults {
  ReadWriteMbps seq, k4, k4_64thrd;  // stored as "seq", "4k", "4k_64thrd"
  uint64_t seq_block_bytes = 0;      // "seq"."block_bytes"
  double access_read_ms = 0, access_write_ms = 0;
  uint64_t access_write_block_bytes = 0;  // "access_time_ms": {"read", "write", ...}
  double score_read = 0, score_write = 0, score_total = 0;  // "score": {"read", ...}
  std::string score_formula;
  uint64_t test_file_bytes = 0, time_ns = 0;
};

// ---- Surface, AIDA64-style linear write and read ("surface") ----
struct SurfacePoint {
  uint32_t segment = 0;
  uint64_t position_bytes = 0;
  double position_pct = 0, write_mb_s = 0, read_mb_s = 0;
};
struct SurfaceCliff {
  bool found = false;
  int64_t segment = -1;
  uint64_t position_bytes = 0;
  double position_pct = 0, before_mb_s = 0, after_mb_s = 0;
};
struct SurfaceResults {
  std::vector<SurfacePoint> points;
  uint64_t segment_bytes = 0, block_bytes = 0;
  uint32_t qd = 0;
  SurfaceCliff cliff;
  double cliff_ratio = 0, write_mean_mb_s = 0, read_mean_mb_s = 0;
};

// ---- sysbench fileio ("fileio") ----
struct FileioLatencyNs {
  uint64_t min = 0, max = 0;
  double mean = 0, p95 = 0, p99 = 0;
};
struct FileioMode {
  std::string mode;  // "rndrd", ...
  double read_iops = 0, write_iops = 0, read_mib_s = 0, write_mib_s = 0;
  FileioLatencyNs lat_ns;
  PhaseMetrics metrics;
};
struct FileioResults {
  std::vector<FileioMode> modes;
  uint32_t threads = 0;
  uint64_t block_bytes = 0, time_ns = 0, range_bytes = 0;
  double rndrw_reads_per_write = 0;
};

// ---- vdbench-style curves ("curve") ----
// The mix of a curve as stored (suite/profile.h CurveMix).
struct CurveMixRecord {
  std::string name, pattern;  // pattern: "random" or "sequential"
  double read_pct = 0;
  std::vector<MixBlock> block_sizes;
  MixDistribution dist;
  uint32_t threads = 0;
  std::string source;
};
struct ProfileCurvePoint {
  double target_pct = 0, rate_iops = 0;  // 0, 0 for the uncapped run
  double iops = 0, mb_s = 0, read_iops = 0, write_iops = 0, mean_ns = 0, p99_ns = 0;
  PhaseMetrics metrics;
};
// A sequential fill before the measurement (the curve's own, or a fill level's with the purge
// before it).
struct FillPreparation {
  std::optional<std::string> purge_method;  // a fill level's; absent for the curve's own fill
  uint64_t filled_bytes = 0;
  double mb_s = 0;
};
struct CurveResults {
  CurveMixRecord mix;
  uint64_t section_bytes = 0;
  double section_pct = 0;
  std::optional<FillPreparation> preparation;  // null when not filled before the curve
  uint32_t threads = 0, jobs = 0, qd = 0;
  uint64_t time_ns = 0, ramp_ns = 0;
  ProfileCurvePoint max;
  std::vector<ProfileCurvePoint> points;
  std::string rule;
};

// ---- Fill ("fill") ----
struct FillResults {
  uint64_t filled_bytes = 0;
  // Absent when nothing was written (a zero share of the target): then mb_s is 0.
  std::optional<PhaseMetrics> metrics;
  double percent = 0, mb_s = 0;
};

// ---- Over-provisioning advisor ("op-advisor") ----
struct OpSample {
  double t_s = 0, iops = 0, mean_ns = 0;
};
struct OpAdvisorPoint {
  double op_pct = 0;
  uint64_t range_bytes = 0, capacity_cost_bytes = 0;
  std::string purge_method;
  double initial_iops = 0, sustained_iops = 0, drop_at_s = -1, mean_iops = 0;
  std::vector<OpSample> series;
  PhaseMetrics metrics;
};
struct OpRecommendation {
  double op_pct = 0, sustained_iops = 0, baseline_op_pct = 0, baseline_sustained_iops = 0,
         gain_pct = 0, capacity_cost_pct = 0;
  uint64_t capacity_cost_bytes = 0;
  std::string rule;
  // Set: there is no recommendation (every figure above is 0), and this says why, e.g.
  // the drive never left its fresh state in any measured window (write amplification about 1:
  // no garbage collection), so every OP measured the same and the choice would carry nothing.
  std::optional<std::string> no_recommendation;
};
struct OpAdvisorResults {
  std::vector<OpAdvisorPoint> points;
  OpRecommendation recommendation;
  uint32_t threads = 0, qd = 0;
  uint64_t time_ns = 0, interval_ns = 0;
};

// ---- User profiles from a TOML file ("user") ----
struct UserPhaseResult {
  std::string name, workload;
  uint64_t idle_after_ns = 0;
  PhaseMetrics metrics;
  double iops = 0, mb_s = 0, mean_ns = 0, p99_ns = 0;
};
struct UserResults {
  std::vector<UserPhaseResult> phases;
};

// The results of one fill level, by the profile's kind.
using ProfileKindResults =
    std::variant<CdmResults, AttoResults, AsSsdResults, SurfaceResults, FileioResults, CurveResults,
                 FillResults, OpAdvisorResults, UserResults>;

// True for the kinds below ("cdm", "cdm-nvme", "atto", "as-ssd", "surface", "fileio", "curve",
// "fill", "op-advisor", "user").
bool IsProfileKind(const std::string& kind);

// The stored object of any kind; keys as the struct fields unless noted above.
nlohmann::json ToJson(const ProfileKindResults& r);
// Reads the results of profile kind `kind`; `where` names the object in errors
// ("cdm.results.levels[0].results"). Invalid naming the key on a wrong type, or naming
// `kind_where` for an unknown kind.
Result<ProfileKindResults> ProfileKindResultsFromJson(const std::string& kind,
                                                      const std::string& kind_where,
                                                      const nlohmann::json& j,
                                                      const std::string& where);

// {"name", "pattern", "read_pct", "block_sizes": [{"bytes", "pct"}], "dist": {"kind", "param",
// "zones": [{"access_pct", "range_pct"}]}, "threads", "source"}
nlohmann::json ToJson(const CurveMixRecord& m);
Result<CurveMixRecord> CurveMixFromJson(const nlohmann::json& j, const std::string& where);
// {"filled_bytes", "mb_s"} and "purge_method" when there is one.
nlohmann::json ToJson(const FillPreparation& p);
Result<FillPreparation> FillPreparationFromJson(const nlohmann::json& j, const std::string& where);

}  // namespace ssdlab::results
