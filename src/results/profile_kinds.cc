#include "results/profile_kinds.h"

#include "results/fields_more.h"
#include "results/mix_fields.h"

namespace ssdlab::results {

namespace f = fields;
using nlohmann::json;

namespace {

constexpr auto kMetricsVia = f::Via<PhaseMetricsFromJson>();

// ---- CrystalDiskMark ----

constexpr auto kCdmDirection = f::Object<CdmDirection>(
    f::Number("mb_s", &CdmDirection::mb_s), f::Number("iops", &CdmDirection::iops),
    f::Number("mean_us", &CdmDirection::mean_us), f::Count("best_pass", &CdmDirection::best_pass),
    f::List("passes_mb_s", &CdmDirection::passes_mb_s, f::NumberOf<double>()),
    f::Sub("metrics", &CdmDirection::metrics, kMetricsVia));

constexpr auto kCdmItem = f::Object<CdmItem>(
    f::Text("name", &CdmItem::name), f::Count("block_bytes", &CdmItem::block_bytes),
    f::Count("qd", &CdmItem::qd), f::Count("threads", &CdmItem::threads),
    f::Sub("read", &CdmItem::read, kCdmDirection), f::Sub("write", &CdmItem::write, kCdmDirection));

constexpr auto kCdm = f::Object<CdmResults>(
    f::List("items", &CdmResults::items, kCdmItem),
    f::Count("test_file_bytes", &CdmResults::test_file_bytes),
    f::Count("passes", &CdmResults::passes), f::Count("pass_ns", &CdmResults::pass_ns),
    f::Count("pause_ns", &CdmResults::pause_ns), f::Text("rule", &CdmResults::rule));

// ---- ATTO ----

constexpr auto kAttoRow = f::Object<AttoRow>(
    f::Count("block_bytes", &AttoRow::block_bytes), f::Number("write_mb_s", &AttoRow::write_mb_s),
    f::Number("read_mb_s", &AttoRow::read_mb_s), f::Number("write_iops", &AttoRow::write_iops),
    f::Number("read_iops", &AttoRow::read_iops), f::Sub("write", &AttoRow::write, kMetricsVia),
    f::Sub("read", &AttoRow::read, kMetricsVia));

constexpr auto kAttoSkipped = f::Object<AttoSkipped>(
    f::Count("block_bytes", &AttoSkipped::block_bytes), f::Text("reason", &AttoSkipped::reason));

constexpr auto kAtto = f::Object<AttoResults>(
    f::List("rows", &AttoResults::rows, kAttoRow),
    f::List("skipped", &AttoResults::skipped, kAttoSkipped),
    f::Count("span_bytes", &AttoResults::span_bytes), f::Count("qd", &AttoResults::qd));

// ---- AS SSD ----

constexpr auto kReadWrite =
    f::Object<ReadWriteMbps>(f::Number("read_mb_s", &ReadWriteMbps::read_mb_s),
                             f::Number("write_mb_s", &ReadWriteMbps::write_mb_s));

constexpr auto kAsSsd = f::Object<AsSsdResults>(
    f::At<AsSsdResults>(
        "seq", f::Object<AsSsdResults>(f::Inline(&AsSsdResults::seq, kReadWrite),
                                       f::Count("block_bytes", &AsSsdResults::seq_block_bytes))),
    f::Sub("4k", &AsSsdResults::k4, kReadWrite),
    f::Sub("4k_64thrd", &AsSsdResults::k4_64thrd, kReadWrite),
    f::At<AsSsdResults>("access_time_ms",
                        f::Object<AsSsdResults>(f::Number("read", &AsSsdResults::access_read_ms),
                                                f::Number("write", &AsSsdResults::access_write_ms),
                                                f::Count("write_block_bytes",
                                                         &AsSsdResults::access_write_block_bytes))),
    f::At<AsSsdResults>("score",
                        f::Object<AsSsdResults>(f::Number("read", &AsSsdResults::score_read),
                                                f::Number("write", &AsSsdResults::score_write),
                                                f::Number("total", &AsSsdResults::score_total))),
    f::Text("score_formula", &AsSsdResults::score_formula),
    f::Count("test_file_bytes", &AsSsdResults::test_file_bytes),
    f::Count("time_ns", &AsSsdResults::time_ns));

// ---- Surface ----

constexpr auto kSurfacePoint =
    f::Object<SurfacePoint>(f::Count("segment", &SurfacePoint::segment),
                            f::Count("position_bytes", &SurfacePoint::position_bytes),
                            f::Number("position_pct", &SurfacePoint::position_pct),
                            f::Number("write_mb_s", &SurfacePoint::write_mb_s),
                            f::Number("read_mb_s", &SurfacePoint::read_mb_s));

constexpr auto kCliffFound = f::Object<SurfaceCliff>(
    f::Flag("found", &SurfaceCliff::found), f::Number("segment", &SurfaceCliff::segment),
    f::Count("position_bytes", &SurfaceCliff::position_bytes),
    f::Number("position_pct", &SurfaceCliff::position_pct),
    f::Number("before_mb_s", &SurfaceCliff::before_mb_s),
    f::Number("after_mb_s", &SurfaceCliff::after_mb_s));

// No cliff is stored as whole zeros (and segment -1), as the suite has always written it.
struct CliffCodec {
  json Write(const SurfaceCliff& c) const {
    if (c.found) return kCliffFound.Write(c);
    return {{"found", false},    {"segment", -1},    {"position_bytes", 0},
            {"position_pct", 0}, {"before_mb_s", 0}, {"after_mb_s", 0}};
  }
  Status Read(const json& j, const std::string& where, SurfaceCliff& c) const {
    return kCliffFound.Read(j, where, c);
  }
};

constexpr auto kSurface = f::Object<SurfaceResults>(
    f::List("points", &SurfaceResults::points, kSurfacePoint),
    f::Count("segment_bytes", &SurfaceResults::segment_bytes),
    f::Count("block_bytes", &SurfaceResults::block_bytes), f::Count("qd", &SurfaceResults::qd),
    f::Sub("cliff", &SurfaceResults::cliff, CliffCodec{}),
    f::Number("cliff_ratio", &SurfaceResults::cliff_ratio),
    f::Number("write_mean_mb_s", &SurfaceResults::write_mean_mb_s),
    f::Number("read_mean_mb_s", &SurfaceResults::read_mean_mb_s));

// ---- sysbench fileio ----

constexpr auto kFileioLatency = f::Object<FileioLatencyNs>(
    f::Count("min", &FileioLatencyNs::min), f::Number("mean", &FileioLatencyNs::mean),
    f::Number("p95", &FileioLatencyNs::p95), f::Number("p99", &FileioLatencyNs::p99),
    f::Count("max", &FileioLatencyNs::max));

constexpr auto kFileioMode = f::Object<FileioMode>(
    f::Text("mode", &FileioMode::mode), f::Number("read_iops", &FileioMode::read_iops),
    f::Number("write_iops", &FileioMode::write_iops),
    f::Number("read_mib_s", &FileioMode::read_mib_s),
    f::Number("write_mib_s", &FileioMode::write_mib_s),
    f::Sub("lat_ns", &FileioMode::lat_ns, kFileioLatency),
    f::Sub("metrics", &FileioMode::metrics, kMetricsVia));

constexpr auto kFileio = f::Object<FileioResults>(
    f::List("modes", &FileioResults::modes, kFileioMode),
    f::Count("threads", &FileioResults::threads),
    f::Count("block_bytes", &FileioResults::block_bytes),
    f::Count("time_ns", &FileioResults::time_ns),
    f::Count("range_bytes", &FileioResults::range_bytes),
    f::Number("rndrw_reads_per_write", &FileioResults::rndrw_reads_per_write));

// ---- vdbench-style curves ----

constexpr auto kMix = f::Object<CurveMixRecord>(
    f::Text("name", &CurveMixRecord::name), f::Text("pattern", &CurveMixRecord::pattern),
    f::Number("read_pct", &CurveMixRecord::read_pct),
    f::List("block_sizes", &CurveMixRecord::block_sizes, f::kMixBlock),
    f::Sub("dist", &CurveMixRecord::dist, f::kMixDistribution),
    f::Count("threads", &CurveMixRecord::threads), f::Text("source", &CurveMixRecord::source));

constexpr auto kPreparation =
    f::Object<FillPreparation>(f::Text("purge_method", &FillPreparation::purge_method),
                               f::Count("filled_bytes", &FillPreparation::filled_bytes),
                               f::Number("mb_s", &FillPreparation::mb_s));

constexpr auto kCurvePoint = f::Object<ProfileCurvePoint>(
    f::Number("target_pct", &ProfileCurvePoint::target_pct),
    f::Number("rate_iops", &ProfileCurvePoint::rate_iops),
    f::Number("iops", &ProfileCurvePoint::iops), f::Number("mb_s", &ProfileCurvePoint::mb_s),
    f::Number("read_iops", &ProfileCurvePoint::read_iops),
    f::Number("write_iops", &ProfileCurvePoint::write_iops),
    f::Number("mean_ns", &ProfileCurvePoint::mean_ns),
    f::Number("p99_ns", &ProfileCurvePoint::p99_ns),
    f::Sub("metrics", &ProfileCurvePoint::metrics, kMetricsVia));

constexpr auto kCurve = f::Object<CurveResults>(
    f::Sub("mix", &CurveResults::mix, kMix),
    f::Count("section_bytes", &CurveResults::section_bytes),
    f::Number("section_pct", &CurveResults::section_pct),
    f::Nullable("preparation", &CurveResults::preparation, kPreparation),
    f::Count("threads", &CurveResults::threads), f::Count("jobs", &CurveResults::jobs),
    f::Count("qd", &CurveResults::qd), f::Count("time_ns", &CurveResults::time_ns),
    f::Count("ramp_ns", &CurveResults::ramp_ns), f::Sub("max", &CurveResults::max, kCurvePoint),
    f::List("points", &CurveResults::points, kCurvePoint), f::Text("rule", &CurveResults::rule));

// ---- Fill ----

constexpr auto kFill = f::Object<FillResults>(f::Count("filled_bytes", &FillResults::filled_bytes),
                                              f::Sub("metrics", &FillResults::metrics, kMetricsVia),
                                              f::Number("percent", &FillResults::percent),
                                              f::Number("mb_s", &FillResults::mb_s));

// Nothing written is stored as {"filled_bytes", "mb_s": 0}, as the suite has always written it.
struct FillCodec {
  json Write(const FillResults& r) const {
    if (!r.metrics) return {{"filled_bytes", r.filled_bytes}, {"mb_s", 0}};
    return kFill.Write(r);
  }
  Status Read(const json& j, const std::string& where, FillResults& r) const {
    return kFill.Read(j, where, r);
  }
};

// ---- OP advisor ----

constexpr auto kOpSample =
    f::Object<OpSample>(f::Number("t_s", &OpSample::t_s), f::Number("iops", &OpSample::iops),
                        f::Number("mean_ns", &OpSample::mean_ns));

constexpr auto kOpPoint =
    f::Object<OpAdvisorPoint>(f::Number("op_pct", &OpAdvisorPoint::op_pct),
                              f::Count("range_bytes", &OpAdvisorPoint::range_bytes),
                              f::Count("capacity_cost_bytes", &OpAdvisorPoint::capacity_cost_bytes),
                              f::Text("purge_method", &OpAdvisorPoint::purge_method),
                              f::Number("initial_iops", &OpAdvisorPoint::initial_iops),
                              f::Number("sustained_iops", &OpAdvisorPoint::sustained_iops),
                              f::Number("drop_at_s", &OpAdvisorPoint::drop_at_s),
                              f::Number("mean_iops", &OpAdvisorPoint::mean_iops),
                              f::List("series", &OpAdvisorPoint::series, kOpSample),
                              f::Sub("metrics", &OpAdvisorPoint::metrics, kMetricsVia));

constexpr auto kOpRecommendation = f::Object<OpRecommendation>(
    f::Number("op_pct", &OpRecommendation::op_pct),
    f::Number("sustained_iops", &OpRecommendation::sustained_iops),
    f::Number("baseline_op_pct", &OpRecommendation::baseline_op_pct),
    f::Number("baseline_sustained_iops", &OpRecommendation::baseline_sustained_iops),
    f::Number("gain_pct", &OpRecommendation::gain_pct),
    f::Count("capacity_cost_bytes", &OpRecommendation::capacity_cost_bytes),
    f::Number("capacity_cost_pct", &OpRecommendation::capacity_cost_pct),
    f::Text("rule", &OpRecommendation::rule),
    f::Text("no_recommendation", &OpRecommendation::no_recommendation));

constexpr auto kOpAdvisor = f::Object<OpAdvisorResults>(
    f::List("points", &OpAdvisorResults::points, kOpPoint),
    f::Sub("recommendation", &OpAdvisorResults::recommendation, kOpRecommendation),
    f::Count("threads", &OpAdvisorResults::threads), f::Count("qd", &OpAdvisorResults::qd),
    f::Count("time_ns", &OpAdvisorResults::time_ns),
    f::Count("interval_ns", &OpAdvisorResults::interval_ns));

// ---- User profiles ----

constexpr auto kUserPhase = f::Object<UserPhaseResult>(
    f::Text("name", &UserPhaseResult::name), f::Text("workload", &UserPhaseResult::workload),
    f::Count("idle_after_ns", &UserPhaseResult::idle_after_ns),
    f::Sub("metrics", &UserPhaseResult::metrics, kMetricsVia),
    f::Number("iops", &UserPhaseResult::iops), f::Number("mb_s", &UserPhaseResult::mb_s),
    f::Number("mean_ns", &UserPhaseResult::mean_ns), f::Number("p99_ns", &UserPhaseResult::p99_ns));

constexpr auto kUser = f::Object<UserResults>(f::List("phases", &UserResults::phases, kUserPhase));

// ---- The kinds ----

// The codec of each alternative of ProfileKindResults, by its type.
constexpr auto CodecOf(const CdmResults*) { return kCdm; }
constexpr auto CodecOf(const AttoResults*) { return kAtto; }
constexpr auto CodecOf(const AsSsdResults*) { return kAsSsd; }
constexpr auto CodecOf(const SurfaceResults*) { return kSurface; }
constexpr auto CodecOf(const FileioResults*) { return kFileio; }
constexpr auto CodecOf(const CurveResults*) { return kCurve; }
constexpr auto CodecOf(const FillResults*) { return FillCodec{}; }
constexpr auto CodecOf(const OpAdvisorResults*) { return kOpAdvisor; }
constexpr auto CodecOf(const UserResults*) { return kUser; }

struct Kind {
  const char* name;
  size_t index;  // of its type in ProfileKindResults
};
constexpr Kind kKinds[] = {{"cdm", 0},        {"cdm-nvme", 0}, {"atto", 1},  {"as-ssd", 2},
                           {"surface", 3},    {"fileio", 4},   {"curve", 5}, {"fill", 6},
                           {"op-advisor", 7}, {"user", 8}};

// Reads `j` as alternative I of the variant when I is `index`.
template <size_t I = 0>
Result<ProfileKindResults> ReadAlternative(size_t index, const json& j, const std::string& where) {
  if constexpr (I < std::variant_size_v<ProfileKindResults>) {
    if (index != I) return ReadAlternative<I + 1>(index, j, where);
    using T = std::variant_alternative_t<I, ProfileKindResults>;
    T r{};
    SSDLAB_RETURN_IF_ERROR(CodecOf(static_cast<const T*>(nullptr)).Read(j, where, r));
    return ProfileKindResults(std::move(r));
  } else {
    return Status::Invalid(where + " has no reader");
  }
}

}  // namespace

SSDLAB_FIELDS_JSON(CurveMixRecord, CurveMixFromJson, kMix)
SSDLAB_FIELDS_JSON(FillPreparation, FillPreparationFromJson, kPreparation)

bool IsProfileKind(const std::string& kind) {
  for (const Kind& k : kKinds) {
    if (kind == k.name) return true;
  }
  return false;
}

json ToJson(const ProfileKindResults& r) {
  return std::visit([](const auto& v) { return CodecOf(&v).Write(v); }, r);
}

Result<ProfileKindResults> ProfileKindResultsFromJson(const std::string& kind,
                                                      const std::string& kind_where, const json& j,
                                                      const std::string& where) {
  for (const Kind& k : kKinds) {
    if (kind == k.name) return ReadAlternative(k.index, j, where);
  }
  return Status::Invalid(kind_where + " '" + kind + "' is not a profile kind");
}

}  // namespace ssdlab::results
