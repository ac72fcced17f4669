#include "results/run_document.h"

#include "results/counters.h"
#include "results/fields.h"
#include "results/fields_more.h"
#include "results/mix_fields.h"

namespace ssdlab::results {

using nlohmann::json;

namespace {

namespace f = fields;

constexpr auto kPlatform = f::Object<Platform>(
    f::Text("tool", &Platform::tool), f::Text("tool_version", &Platform::tool_version),
    f::Text("git_revision", &Platform::git_revision), f::Text("host", &Platform::host),
    f::Text("os", &Platform::os), f::Text("kernel", &Platform::kernel),
    f::Text("arch", &Platform::arch), f::Text("cpu_model", &Platform::cpu_model),
    f::Number("cpus", &Platform::cpus), f::Count("memory_bytes", &Platform::memory_bytes));

constexpr auto kTarget =
    f::Object<TargetDoc>(f::Text("path", &TargetDoc::path), f::Text("kind", &TargetDoc::kind),
                         f::Count("size_bytes", &TargetDoc::size_bytes),
                         f::Count("logical_block_bytes", &TargetDoc::logical_block_bytes),
                         f::Count("physical_block_bytes", &TargetDoc::physical_block_bytes),
                         f::Text("model", &TargetDoc::model), f::Text("serial", &TargetDoc::serial),
                         f::Text("firmware", &TargetDoc::firmware),
                         f::Sub("details", &TargetDoc::details, f::MapOf(f::TextOf())));

using Wd = WorkloadDoc;
constexpr auto kData =
    f::Object<Wd::Data>(f::Text("kind", &Wd::Data::kind), f::Number("pct", &Wd::Data::pct));
constexpr auto kWorkloadDoc =
    f::Object<Wd>(f::Text("description", &Wd::description), f::Text("pattern", &Wd::pattern),
                  f::Number("read_pct", &Wd::read_pct), f::Flag("trim", &Wd::trim),
                  f::List("block_sizes", &Wd::block_sizes, f::kMixBlock),
                  f::Count("queue_depth", &Wd::queue_depth), f::Count("jobs", &Wd::jobs),
                  f::Count("runtime_ns", &Wd::runtime_ns), f::Count("io_bytes", &Wd::io_bytes),
                  f::Count("ramp_ns", &Wd::ramp_ns), f::Count("ramp_bytes", &Wd::ramp_bytes),
                  f::Count("range_begin_bytes", &Wd::range_begin_bytes),
                  f::Count("range_end_bytes", &Wd::range_end_bytes),
                  f::Sub("distribution", &Wd::distribution, f::kMixDistribution),
                  f::Number("rate_iops", &Wd::rate_iops), f::Sub("data", &Wd::data, kData),
                  f::Id("seed", &Wd::seed), f::Flag("verify", &Wd::verify),
                  f::Count("interval_ns", &Wd::interval_ns));

// A number, a word in its place, or null.
struct SettingCodec {
  json Write(const EngineSetting& s) const {
    if (s.number) return *s.number;
    if (!s.word.empty()) return s.word;
    return nullptr;
  }
  Status Read(const json& j, const std::string& where, EngineSetting& out) const {
    if (j.is_number_integer()) {
      out.number = j.get<int64_t>();
    } else if (j.is_string()) {
      out.word = j.get<std::string>();
    } else {
      return Status::Invalid(where + " is not a number or a word");
    }
    return Status::Ok();
  }
};
template <class T>
constexpr auto Setting(const char* key, EngineSetting T::*member) {
  return f::Sub(key, member, SettingCodec{});
}

using Eng = EngineContext;
constexpr auto kRequested = f::Object<Eng::Requested>(
    Setting("batch_submit", &Eng::Requested::batch_submit),
    Setting("batch_complete_min", &Eng::Requested::batch_complete_min),
    Setting("batch_complete_max", &Eng::Requested::batch_complete_max),
    f::Flag("sqpoll", &Eng::Requested::sqpoll), Setting("sqpoll_cpu", &Eng::Requested::sqpoll_cpu),
    f::Flag("hipri", &Eng::Requested::hipri),
    f::Flag("register_ring_fd", &Eng::Requested::register_ring_fd),
    f::Text("force_async", &Eng::Requested::force_async),
    f::Text("pin_workers", &Eng::Requested::pin_workers),
    Setting("cpus_allowed", &Eng::Requested::cpus_allowed));
constexpr auto kUring = f::Object<Eng::Uring>(
    f::Text("features", &Eng::Uring::features),
    f::Flag("single_issuer", &Eng::Uring::single_issuer),
    f::Flag("defer_taskrun", &Eng::Uring::defer_taskrun), f::Flag("sqpoll", &Eng::Uring::sqpoll),
    Setting("sqpoll_cpu", &Eng::Uring::sqpoll_cpu), f::Flag("hipri", &Eng::Uring::hipri),
    f::Flag("registered_ring_fd", &Eng::Uring::registered_ring_fd),
    f::Flag("fixed_buffers", &Eng::Uring::fixed_buffers),
    f::Flag("fixed_files", &Eng::Uring::fixed_files),
    f::Flag("nowait_target", &Eng::Uring::nowait_target),
    f::Flag("force_async", &Eng::Uring::force_async),
    Setting("async_workers", &Eng::Uring::async_workers),
    Setting("pin_workers", &Eng::Uring::pin_workers),
    f::Flag("iowq_affinity", &Eng::Uring::iowq_affinity));
constexpr auto kGranted = f::Object<Eng::Granted>(
    f::Count("batch_submit", &Eng::Granted::batch_submit),
    Setting("batch_complete_min", &Eng::Granted::batch_complete_min),
    Setting("batch_complete_max", &Eng::Granted::batch_complete_max),
    Setting("cpus", &Eng::Granted::cpus), f::Text("cpus_source", &Eng::Granted::cpus_source),
    Setting("numa_node", &Eng::Granted::numa_node), f::Inline(&Eng::Granted::uring, kUring));
constexpr auto kEngine =
    f::Object<Eng>(f::Text("name", &Eng::name), f::Sub("requested", &Eng::requested, kRequested),
                   f::Sub("granted", &Eng::granted, kGranted));

using Iv = IntervalDoc;
constexpr auto kIntervalDirection = f::Object<Iv::Direction>(
    f::Count("ios", &Iv::Direction::ios), f::Count("bytes", &Iv::Direction::bytes),
    f::Number("iops", &Iv::Direction::iops),
    f::Number("bw_bytes_per_s", &Iv::Direction::bw_bytes_per_s),
    f::Number("lat_mean_ns", &Iv::Direction::lat_mean_ns),
    f::Count("lat_max_ns", &Iv::Direction::lat_max_ns));
constexpr auto kInterval = f::Object<Iv>(
    f::Count("t_begin_ns", &Iv::t_begin_ns), f::Count("t_end_ns", &Iv::t_end_ns),
    f::Sub("read", &Iv::read, kIntervalDirection), f::Sub("write", &Iv::write, kIntervalDirection),
    f::Sub("trim", &Iv::trim, kIntervalDirection));

constexpr auto kEdge = f::Object<EdgeStats>(
    f::Count("in_flight", &EdgeStats::in_flight), f::Count("longest_ns", &EdgeStats::longest_ns),
    f::Count("abandoned", &EdgeStats::abandoned),
    f::Count("abandoned_age_ns", &EdgeStats::abandoned_age_ns),
    f::Count("from_ramp", &EdgeStats::from_ramp), f::Count("held", &EdgeStats::held),
    f::Flag("held_all", &EdgeStats::held_all));

constexpr auto kVerifyRecord = f::Object<VerifyRecord>(
    f::Count("offset", &VerifyRecord::offset), f::Text("problem", &VerifyRecord::problem),
    f::Count("found_offset", &VerifyRecord::found_offset),
    f::Count("generation", &VerifyRecord::generation));

using Ph = PhaseDoc;
constexpr auto kDirectionMetrics = f::Via<DirectionMetricsFromJson>();
constexpr auto kResults =
    f::Object<Ph::Results>(f::Sub("read", &Ph::Results::read, kDirectionMetrics),
                           f::Sub("write", &Ph::Results::write, kDirectionMetrics),
                           f::Sub("trim", &Ph::Results::trim, kDirectionMetrics),
                           f::Sub("total", &Ph::Results::total, kDirectionMetrics));
constexpr auto kCpu =
    f::Object<Ph::Cpu>(f::Number("user_s", &Ph::Cpu::user_s), f::Number("sys_s", &Ph::Cpu::sys_s),
                       f::Number("us_per_io", &Ph::Cpu::us_per_io));
constexpr auto kVerify =
    f::Object<Ph::Verify>(f::Count("failures", &Ph::Verify::failures),
                          f::List("records", &Ph::Verify::records, kVerifyRecord));

constexpr auto kPhase = f::Object<Ph>(
    f::Sub("results", &Ph::results, kResults), f::Count("measured_ns", &Ph::measured_ns),
    f::Sub("edge", &Ph::edge, kEdge), f::List("intervals", &Ph::intervals, kInterval),
    f::Sub("cpu", &Ph::cpu, kCpu), f::Count("io_errors", &Ph::io_errors),
    f::List("errors", &Ph::errors, f::TextOf()), f::Sub("verify", &Ph::verify, kVerify),
    f::Flag("interrupted", &Ph::interrupted), f::List("notes", &Ph::notes, f::TextOf()),
    f::Merge<Ph>(f::CountersOf(&Ph::counters_name, &Ph::counters)));

constexpr auto kStoredPhase =
    f::Object<StoredPhaseDoc>(f::Inline(&StoredPhaseDoc::phase, kPhase),
                              f::Sub("workload", &StoredPhaseDoc::workload, kWorkloadDoc));

using Ctx = PhaseContext;
constexpr auto kPhaseContext = f::Object<Ctx>(
    f::Inline(&Ctx::platform, kPlatform), f::List("command_line", &Ctx::command_line, f::TextOf()),
    f::Sub("target", &Ctx::target, kTarget), f::Raw("device", &Ctx::device),
    f::Sub("workload", &Ctx::workload, kWorkloadDoc), f::Flag("direct", &Ctx::direct),
    f::Id("seed", &Ctx::seed), f::Text("start_time", &Ctx::start_time),
    f::Text("end_time", &Ctx::end_time));

constexpr auto kRunContext =
    f::Object<RunContextDoc>(f::Inline(&RunContextDoc::phase, kPhaseContext),
                             f::Sub("engine", &RunContextDoc::engine, kEngine));
constexpr auto kRunDocument = f::Object<RunDocument>(
    f::Number("schema_version", &RunDocument::schema_version),
    f::Sub("context", &RunDocument::context, kRunContext), f::Inline(&RunDocument::phase, kPhase),
    f::Raw("health", &RunDocument::health), f::Sub("mpi", &RunDocument::mpi, f::RawCodec{}));

using Ri = ReplayInfo;
constexpr auto kReplayTrace = f::Object<Ri::Trace>(
    f::Text("path", &Ri::Trace::path), f::List("files", &Ri::Trace::files, f::TextOf()),
    f::Text("format", &Ri::Trace::format), f::Text("event", &Ri::Trace::event),
    f::Text("device_id", &Ri::Trace::device_id), f::Count("records", &Ri::Trace::records),
    f::Count("requests", &Ri::Trace::requests), f::Count("bytes", &Ri::Trace::bytes),
    f::Count("skipped", &Ri::Trace::skipped), f::Count("filtered", &Ri::Trace::filtered),
    f::Count("split", &Ri::Trace::split), f::Count("reordered", &Ri::Trace::reordered),
    f::Count("remapped", &Ri::Trace::remapped), f::Count("passes", &Ri::Trace::passes),
    f::Count("span_ns", &Ri::Trace::span_ns));
constexpr auto kReplayTiming = f::Object<Ri::Timing>(
    f::Text("mode", &Ri::Timing::mode), f::Number("speedup", &Ri::Timing::speedup),
    f::Count("qd", &Ri::Timing::qd), f::Count("jobs", &Ri::Timing::jobs));
constexpr auto kReplayLag =
    f::Object<Ri::Lag>(f::Count("count", &Ri::Lag::count), f::Number("mean", &Ri::Lag::mean),
                       f::Number("p50", &Ri::Lag::p50), f::Number("p99", &Ri::Lag::p99),
                       f::Count("max", &Ri::Lag::max), f::Count("limit", &Ri::Lag::limit));
constexpr auto kReplayLagPoint = f::Object<Ri::LagPoint>(
    f::Count("t_begin_ns", &Ri::LagPoint::t_begin_ns),
    f::Count("t_end_ns", &Ri::LagPoint::t_end_ns), f::Count("ios", &Ri::LagPoint::ios),
    f::Number("lag_mean_ns", &Ri::LagPoint::lag_mean_ns),
    f::Count("lag_max_ns", &Ri::LagPoint::lag_max_ns));
constexpr auto kReplayLatency = f::Object<Ri::Latency>(
    f::Count("ios", &Ri::Latency::ios), f::Number("mean", &Ri::Latency::mean),
    f::Number("p50", &Ri::Latency::p50), f::Number("p90", &Ri::Latency::p90),
    f::Number("p99", &Ri::Latency::p99), f::Number("p99_9", &Ri::Latency::p99_9),
    f::Count("max", &Ri::Latency::max));
constexpr auto kReplayCompared =
    f::Object<Ri::Compared>(f::Sub("recorded", &Ri::Compared::recorded, kReplayLatency),
                            f::Sub("replayed", &Ri::Compared::replayed, kReplayLatency));
constexpr auto kReplayInfo = f::Object<Ri>(
    f::Sub("trace", &Ri::trace, kReplayTrace), f::Sub("timing", &Ri::timing, kReplayTiming),
    f::Text("remap", &Ri::remap), f::Sub("range", &Ri::range, f::PairOf<uint64_t, uint64_t>()),
    f::Count("loop", &Ri::loop), f::Count("max_io_bytes", &Ri::max_io_bytes),
    f::Nullable("lag_ns", &Ri::lag_ns, kReplayLag),
    f::Nullable("kept_up", &Ri::kept_up, f::FlagOf()),
    f::Nullable("lag_series", &Ri::lag_series, f::ListOf(kReplayLagPoint)),
    f::Nullable("latency_compare", &Ri::latency_compare, f::MapOf(kReplayCompared)),
    f::Sub("replayed_total", &Ri::replayed_total, kDirectionMetrics));

constexpr auto kReplayContext =
    f::Object<ReplayContextDoc>(f::Inline(&ReplayContextDoc::phase, kPhaseContext),
                                f::Text("engine", &ReplayContextDoc::engine));
constexpr auto kReplayDocument = f::Object<ReplayDocument>(
    f::Number("schema_version", &ReplayDocument::schema_version),
    f::Sub("context", &ReplayDocument::context, kReplayContext),
    f::Inline(&ReplayDocument::phase, kPhase), f::Raw("health", &ReplayDocument::health),
    f::Sub("replay", &ReplayDocument::replay, kReplayInfo));

}  // namespace

SSDLAB_FIELDS_JSON(Platform, PlatformFromJson, kPlatform)
SSDLAB_FIELDS_JSON(TargetDoc, TargetDocFromJson, kTarget)
SSDLAB_FIELDS_JSON(WorkloadDoc, WorkloadDocFromJson, kWorkloadDoc)
SSDLAB_FIELDS_JSON(EngineContext, EngineContextFromJson, kEngine)
SSDLAB_FIELDS_JSON(PhaseDoc, PhaseDocFromJson, kPhase)
SSDLAB_FIELDS_JSON(StoredPhaseDoc, StoredPhaseDocFromJson, kStoredPhase)
SSDLAB_FIELDS_JSON(RunContextDoc, RunContextDocFromJson, kRunContext)
SSDLAB_FIELDS_JSON(RunDocument, RunDocumentFromJson, kRunDocument)
SSDLAB_FIELDS_JSON(ReplayInfo, ReplayInfoFromJson, kReplayInfo)
SSDLAB_FIELDS_JSON(ReplayDocument, ReplayDocumentFromJson, kReplayDocument)

}  // namespace ssdlab::results
