#include "results/profile_kinds.h"

#include "results/read_extra.h"

namespace ssdlab::results {

using internal::Count;
using internal::Number;
using internal::Text;
using nlohmann::json;

// ---- CrystalDiskMark ----

json ToJson(const CdmDirection& d) {
  return {{"mb_s", d.mb_s},
          {"iops", d.iops},
          {"mean_us", d.mean_us},
          {"best_pass", d.best_pass},
          {"passes_mb_s", d.passes_mb_s},
          {"metrics", ToJson(d.metrics)}};
}

static Result<CdmDirection> CdmDirectionFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  CdmDirection d;
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "mb_s", d.mb_s));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "iops", d.iops));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "mean_us", d.mean_us));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "best_pass", d.best_pass));
  SSDLAB_RETURN_IF_ERROR(internal::Numbers(j, where, "passes_mb_s", d.passes_mb_s));
  SSDLAB_RETURN_IF_ERROR(internal::Sub(j, where, "metrics", PhaseMetricsFromJson, d.metrics));
  return d;
}

json ToJson(const CdmItem& i) {
  return {{"name", i.name},       {"block_bytes", i.block_bytes}, {"qd", i.qd},
          {"threads", i.threads}, {"read", ToJson(i.read)},       {"write", ToJson(i.write)}};
}

static Result<CdmItem> CdmItemFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  CdmItem i;
  SSDLAB_RETURN_IF_ERROR(Text(j, where, "name", i.name));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "block_bytes", i.block_bytes));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "qd", i.qd));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "threads", i.threads));
  SSDLAB_RETURN_IF_ERROR(internal::Sub(j, where, "read", CdmDirectionFromJson, i.read));
  SSDLAB_RETURN_IF_ERROR(internal::Sub(j, where, "write", CdmDirectionFromJson, i.write));
  return i;
}

json ToJson(const CdmResults& c) {
  return {{"items", internal::ListJson(c.items)},
          {"test_file_bytes", c.test_file_bytes},
          {"passes", c.passes},
          {"pass_ns", c.pass_ns},
          {"pause_ns", c.pause_ns},
          {"rule", c.rule}};
}

static Result<CdmResults> CdmFromJson(const json& j, const std::string& where) {
  CdmResults c;
  SSDLAB_RETURN_IF_ERROR(internal::List(j, where, "items", CdmItemFromJson, c.items));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "test_file_bytes", c.test_file_bytes));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "passes", c.passes));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "pass_ns", c.pass_ns));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "pause_ns", c.pause_ns));
  SSDLAB_RETURN_IF_ERROR(Text(j, where, "rule", c.rule));
  return c;
}

// ---- ATTO ----

json ToJson(const AttoRow& r) {
  return {{"block_bytes", r.block_bytes}, {"write_mb_s", r.write_mb_s}, {"read_mb_s", r.read_mb_s},
          {"write_iops", r.write_iops},   {"read_iops", r.read_iops},   {"write", ToJson(r.write)},
          {"read", ToJson(r.read)}};
}

static Result<AttoRow> AttoRowFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  AttoRow r;
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "block_bytes", r.block_bytes));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "write_mb_s", r.write_mb_s));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "read_mb_s", r.read_mb_s));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "write_iops", r.write_iops));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "read_iops", r.read_iops));
  SSDLAB_RETURN_IF_ERROR(internal::Sub(j, where, "write", PhaseMetricsFromJson, r.write));
  SSDLAB_RETURN_IF_ERROR(internal::Sub(j, where, "read", PhaseMetricsFromJson, r.read));
  return r;
}

static Result<AttoSkipped> AttoSkippedFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  AttoSkipped s;
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "block_bytes", s.block_bytes));
  SSDLAB_RETURN_IF_ERROR(Text(j, where, "reason", s.reason));
  return s;
}

json ToJson(const AttoResults& a) {
  return {{"rows", internal::ListJson(a.rows)},
          {"skipped",
           internal::ListJson(a.skipped,
                              [](const AttoSkipped& s) {
                                return json{{"block_bytes", s.block_bytes}, {"reason", s.reason}};
                              })},
          {"span_bytes", a.span_bytes},
          {"qd", a.qd}};
}

static Result<AttoResults> AttoFromJson(const json& j, const std::string& where) {
  AttoResults a;
  SSDLAB_RETURN_IF_ERROR(internal::List(j, where, "rows", AttoRowFromJson, a.rows));
  SSDLAB_RETURN_IF_ERROR(internal::List(j, where, "skipped", AttoSkippedFromJson, a.skipped));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "span_bytes", a.span_bytes));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "qd", a.qd));
  return a;
}

// ---- AS SSD ----

json ToJson(const ReadWriteMbps& m) {
  return {{"read_mb_s", m.read_mb_s}, {"write_mb_s", m.write_mb_s}};
}

static Result<ReadWriteMbps> ReadWriteMbpsFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  ReadWriteMbps m;
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "read_mb_s", m.read_mb_s));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "write_mb_s", m.write_mb_s));
  return m;
}

json ToJson(const AsSsdResults& a) {
  json seq = ToJson(a.seq);
  seq["block_bytes"] = a.seq_block_bytes;
  return {{"seq", seq},
          {"4k", ToJson(a.k4)},
          {"4k_64thrd", ToJson(a.k4_64thrd)},
          {"access_time_ms",
           {{"read", a.access_read_ms},
            {"write", a.access_write_ms},
            {"write_block_bytes", a.access_write_block_bytes}}},
          {"score", {{"read", a.score_read}, {"write", a.score_write}, {"total", a.score_total}}},
          {"score_formula", a.score_formula},
          {"test_file_bytes", a.test_file_bytes},
          {"time_ns", a.time_ns}};
}

static Result<AsSsdResults> AsSsdFromJson(const json& j, const std::string& where) {
  AsSsdResults a;
  SSDLAB_RETURN_IF_ERROR(internal::Sub(j, where, "seq", ReadWriteMbpsFromJson, a.seq));
  SSDLAB_RETURN_IF_ERROR(internal::Sub(j, where, "4k", ReadWriteMbpsFromJson, a.k4));
  SSDLAB_RETURN_IF_ERROR(internal::Sub(j, where, "4k_64thrd", ReadWriteMbpsFromJson, a.k4_64thrd));
  if (j.contains("seq"))
    SSDLAB_RETURN_IF_ERROR(Count(j["seq"], where + ".seq", "block_bytes", a.seq_block_bytes));
  const std::string at = where + ".access_time_ms", sc = where + ".score";
  const json none = json::object();
  const json& acc = j.contains("access_time_ms") ? j["access_time_ms"] : none;
  const json& score = j.contains("score") ? j["score"] : none;
  SSDLAB_RETURN_IF_ERROR(internal::Object(acc, at));
  SSDLAB_RETURN_IF_ERROR(Number(acc, at, "read", a.access_read_ms));
  SSDLAB_RETURN_IF_ERROR(Number(acc, at, "write", a.access_write_ms));
  SSDLAB_RETURN_IF_ERROR(Count(acc, at, "write_block_bytes", a.access_write_block_bytes));
  SSDLAB_RETURN_IF_ERROR(internal::Object(score, sc));
  SSDLAB_RETURN_IF_ERROR(Number(score, sc, "read", a.score_read));
  SSDLAB_RETURN_IF_ERROR(Number(score, sc, "write", a.score_write));
  SSDLAB_RETURN_IF_ERROR(Number(score, sc, "total", a.score_total));
  SSDLAB_RETURN_IF_ERROR(Text(j, where, "score_formula", a.score_formula));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "test_file_bytes", a.test_file_bytes));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "time_ns", a.time_ns));
  return a;
}

// ---- Surface ----

json ToJson(const SurfacePoint& p) {
  return {{"segment", p.segment},
          {"position_bytes", p.position_bytes},
          {"position_pct", p.position_pct},
          {"write_mb_s", p.write_mb_s},
          {"read_mb_s", p.read_mb_s}};
}

static Result<SurfacePoint> SurfacePointFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  SurfacePoint p;
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "segment", p.segment));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "position_bytes", p.position_bytes));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "position_pct", p.position_pct));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "write_mb_s", p.write_mb_s));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "read_mb_s", p.read_mb_s));
  return p;
}

// No cliff is stored as whole zeros (and segment -1), as the suite has always written it.
json ToJson(const SurfaceCliff& c) {
  if (!c.found) {
    return {{"found", false},    {"segment", -1},    {"position_bytes", 0},
            {"position_pct", 0}, {"before_mb_s", 0}, {"after_mb_s", 0}};
  }
  return {{"found", true},
          {"segment", c.segment},
          {"position_bytes", c.position_bytes},
          {"position_pct", c.position_pct},
          {"before_mb_s", c.before_mb_s},
          {"after_mb_s", c.after_mb_s}};
}

static Result<SurfaceCliff> SurfaceCliffFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  SurfaceCliff c;
  SSDLAB_RETURN_IF_ERROR(internal::Flag(j, where, "found", c.found));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "segment", c.segment));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "position_bytes", c.position_bytes));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "position_pct", c.position_pct));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "before_mb_s", c.before_mb_s));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "after_mb_s", c.after_mb_s));
  return c;
}

json ToJson(const SurfaceResults& s) {
  return {{"points", internal::ListJson(s.points)},
          {"segment_bytes", s.segment_bytes},
          {"block_bytes", s.block_bytes},
          {"qd", s.qd},
          {"cliff", ToJson(s.cliff)},
          {"cliff_ratio", s.cliff_ratio},
          {"write_mean_mb_s", s.write_mean_mb_s},
          {"read_mean_mb_s", s.read_mean_mb_s}};
}

static Result<SurfaceResults> SurfaceFromJson(const json& j, const std::string& where) {
  SurfaceResults s;
  SSDLAB_RETURN_IF_ERROR(internal::List(j, where, "points", SurfacePointFromJson, s.points));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "segment_bytes", s.segment_bytes));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "block_bytes", s.block_bytes));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "qd", s.qd));
  SSDLAB_RETURN_IF_ERROR(internal::Sub(j, where, "cliff", SurfaceCliffFromJson, s.cliff));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "cliff_ratio", s.cliff_ratio));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "write_mean_mb_s", s.write_mean_mb_s));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "read_mean_mb_s", s.read_mean_mb_s));
  return s;
}

// ---- sysbench fileio ----

json ToJson(const FileioMode& m) {
  return {{"mode", m.mode},
          {"read_iops", m.read_iops},
          {"write_iops", m.write_iops},
          {"read_mib_s", m.read_mib_s},
          {"write_mib_s", m.write_mib_s},
          {"lat_ns",
           {{"min", m.lat_ns.min},
            {"mean", m.lat_ns.mean},
            {"p95", m.lat_ns.p95},
            {"p99", m.lat_ns.p99},
            {"max", m.lat_ns.max}}},
          {"metrics", ToJson(m.metrics)}};
}

static Result<FileioLatencyNs> FileioLatencyFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  FileioLatencyNs l;
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "min", l.min));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "mean", l.mean));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "p95", l.p95));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "p99", l.p99));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "max", l.max));
  return l;
}

static Result<FileioMode> FileioModeFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  FileioMode m;
  SSDLAB_RETURN_IF_ERROR(Text(j, where, "mode", m.mode));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "read_iops", m.read_iops));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "write_iops", m.write_iops));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "read_mib_s", m.read_mib_s));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "write_mib_s", m.write_mib_s));
  SSDLAB_RETURN_IF_ERROR(internal::Sub(j, where, "lat_ns", FileioLatencyFromJson, m.lat_ns));
  SSDLAB_RETURN_IF_ERROR(internal::Sub(j, where, "metrics", PhaseMetricsFromJson, m.metrics));
  return m;
}

json ToJson(const FileioResults& f) {
  return {
      {"modes", internal::ListJson(f.modes)}, {"threads", f.threads},
      {"block_bytes", f.block_bytes},         {"time_ns", f.time_ns},
      {"range_bytes", f.range_bytes},         {"rndrw_reads_per_write", f.rndrw_reads_per_write}};
}

static Result<FileioResults> FileioFromJson(const json& j, const std::string& where) {
  FileioResults f;
  SSDLAB_RETURN_IF_ERROR(internal::List(j, where, "modes", FileioModeFromJson, f.modes));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "threads", f.threads));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "block_bytes", f.block_bytes));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "time_ns", f.time_ns));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "range_bytes", f.range_bytes));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "rndrw_reads_per_write", f.rndrw_reads_per_write));
  return f;
}

// ---- vdbench-style curves ----

static Result<MixBlock> MixBlockFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  MixBlock b;
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "bytes", b.bytes));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "pct", b.pct));
  return b;
}

static Result<MixZone> MixZoneFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  MixZone z;
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "access_pct", z.access_pct));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "range_pct", z.range_pct));
  return z;
}

json ToJson(const ProfileCurvePoint& p) {
  return {{"target_pct", p.target_pct},
          {"rate_iops", p.rate_iops},
          {"iops", p.iops},
          {"mb_s", p.mb_s},
          {"read_iops", p.read_iops},
          {"write_iops", p.write_iops},
          {"mean_ns", p.mean_ns},
          {"p99_ns", p.p99_ns},
          {"metrics", ToJson(p.metrics)}};
}

static Result<ProfileCurvePoint> CurvePointFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  ProfileCurvePoint p;
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "target_pct", p.target_pct));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "rate_iops", p.rate_iops));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "iops", p.iops));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "mb_s", p.mb_s));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "read_iops", p.read_iops));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "write_iops", p.write_iops));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "mean_ns", p.mean_ns));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "p99_ns", p.p99_ns));
  SSDLAB_RETURN_IF_ERROR(internal::Sub(j, where, "metrics", PhaseMetricsFromJson, p.metrics));
  return p;
}

json ToJson(const CurveResults& c) {
  return {{"mix", ToJson(c.mix)},
          {"section_bytes", c.section_bytes},
          {"section_pct", c.section_pct},
          {"preparation", c.preparation ? ToJson(*c.preparation) : json(nullptr)},
          {"threads", c.threads},
          {"jobs", c.jobs},
          {"qd", c.qd},
          {"time_ns", c.time_ns},
          {"ramp_ns", c.ramp_ns},
          {"max", ToJson(c.max)},
          {"points", internal::ListJson(c.points)},
          {"rule", c.rule}};
}

static Result<CurveResults> ProfileCurveFromJson(const json& j, const std::string& where) {
  CurveResults c;
  SSDLAB_RETURN_IF_ERROR(internal::Sub(j, where, "mix", CurveMixFromJson, c.mix));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "section_bytes", c.section_bytes));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "section_pct", c.section_pct));
  SSDLAB_RETURN_IF_ERROR(
      internal::Sub(j, where, "preparation", FillPreparationFromJson, c.preparation));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "threads", c.threads));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "jobs", c.jobs));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "qd", c.qd));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "time_ns", c.time_ns));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "ramp_ns", c.ramp_ns));
  SSDLAB_RETURN_IF_ERROR(internal::Sub(j, where, "max", CurvePointFromJson, c.max));
  SSDLAB_RETURN_IF_ERROR(internal::List(j, where, "points", CurvePointFromJson, c.points));
  SSDLAB_RETURN_IF_ERROR(Text(j, where, "rule", c.rule));
  return c;
}

// ---- Fill ----

json ToJson(const FillResults& f) {
  if (!f.metrics) return {{"filled_bytes", f.filled_bytes}, {"mb_s", 0}};
  return {{"filled_bytes", f.filled_bytes},
          {"percent", f.percent},
          {"mb_s", f.mb_s},
          {"metrics", ToJson(*f.metrics)}};
}

static Result<FillResults> FillFromJson(const json& j, const std::string& where) {
  FillResults f;
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "filled_bytes", f.filled_bytes));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "percent", f.percent));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "mb_s", f.mb_s));
  SSDLAB_RETURN_IF_ERROR(internal::Sub(j, where, "metrics", PhaseMetricsFromJson, f.metrics));
  return f;
}

// ---- OP advisor ----

static Result<OpSample> OpSampleFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  OpSample s;
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "t_s", s.t_s));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "iops", s.iops));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "mean_ns", s.mean_ns));
  return s;
}

json ToJson(const OpAdvisorPoint& p) {
  return {{"op_pct", p.op_pct},
          {"range_bytes", p.range_bytes},
          {"capacity_cost_bytes", p.capacity_cost_bytes},
          {"purge_method", p.purge_method},
          {"initial_iops", p.initial_iops},
          {"sustained_iops", p.sustained_iops},
          {"drop_at_s", p.drop_at_s},
          {"mean_iops", p.mean_iops},
          {"series", internal::ListJson(
                         p.series,
                         [](const OpSample& s) {
                           return json{{"t_s", s.t_s}, {"iops", s.iops}, {"mean_ns", s.mean_ns}};
                         })},
          {"metrics", ToJson(p.metrics)}};
}

static Result<OpAdvisorPoint> OpAdvisorPointFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  OpAdvisorPoint p;
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "op_pct", p.op_pct));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "range_bytes", p.range_bytes));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "capacity_cost_bytes", p.capacity_cost_bytes));
  SSDLAB_RETURN_IF_ERROR(Text(j, where, "purge_method", p.purge_method));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "initial_iops", p.initial_iops));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "sustained_iops", p.sustained_iops));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "drop_at_s", p.drop_at_s));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "mean_iops", p.mean_iops));
  SSDLAB_RETURN_IF_ERROR(internal::List(j, where, "series", OpSampleFromJson, p.series));
  SSDLAB_RETURN_IF_ERROR(internal::Sub(j, where, "metrics", PhaseMetricsFromJson, p.metrics));
  return p;
}

json ToJson(const OpRecommendation& r) {
  return {{"op_pct", r.op_pct},
          {"sustained_iops", r.sustained_iops},
          {"baseline_op_pct", r.baseline_op_pct},
          {"baseline_sustained_iops", r.baseline_sustained_iops},
          {"gain_pct", r.gain_pct},
          {"capacity_cost_bytes", r.capacity_cost_bytes},
          {"capacity_cost_pct", r.capacity_cost_pct},
          {"rule", r.rule}};
}

static Result<OpRecommendation> OpRecommendationFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  OpRecommendation r;
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "op_pct", r.op_pct));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "sustained_iops", r.sustained_iops));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "baseline_op_pct", r.baseline_op_pct));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "baseline_sustained_iops", r.baseline_sustained_iops));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "gain_pct", r.gain_pct));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "capacity_cost_bytes", r.capacity_cost_bytes));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "capacity_cost_pct", r.capacity_cost_pct));
  SSDLAB_RETURN_IF_ERROR(Text(j, where, "rule", r.rule));
  return r;
}

json ToJson(const OpAdvisorResults& o) {
  return {{"points", internal::ListJson(o.points)},
          {"recommendation", ToJson(o.recommendation)},
          {"threads", o.threads},
          {"qd", o.qd},
          {"time_ns", o.time_ns},
          {"interval_ns", o.interval_ns}};
}

static Result<OpAdvisorResults> OpAdvisorFromJson(const json& j, const std::string& where) {
  OpAdvisorResults o;
  SSDLAB_RETURN_IF_ERROR(internal::List(j, where, "points", OpAdvisorPointFromJson, o.points));
  SSDLAB_RETURN_IF_ERROR(
      internal::Sub(j, where, "recommendation", OpRecommendationFromJson, o.recommendation));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "threads", o.threads));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "qd", o.qd));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "time_ns", o.time_ns));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "interval_ns", o.interval_ns));
  return o;
}

// ---- User profiles ----

json ToJson(const UserPhaseResult& p) {
  return {{"name", p.name},
          {"workload", p.workload},
          {"idle_after_ns", p.idle_after_ns},
          {"metrics", ToJson(p.metrics)},
          {"iops", p.iops},
          {"mb_s", p.mb_s},
          {"mean_ns", p.mean_ns},
          {"p99_ns", p.p99_ns}};
}

static Result<UserPhaseResult> UserPhaseFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  UserPhaseResult p;
  SSDLAB_RETURN_IF_ERROR(Text(j, where, "name", p.name));
  SSDLAB_RETURN_IF_ERROR(Text(j, where, "workload", p.workload));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "idle_after_ns", p.idle_after_ns));
  SSDLAB_RETURN_IF_ERROR(internal::Sub(j, where, "metrics", PhaseMetricsFromJson, p.metrics));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "iops", p.iops));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "mb_s", p.mb_s));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "mean_ns", p.mean_ns));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "p99_ns", p.p99_ns));
  return p;
}

json ToJson(const UserResults& u) { return {{"phases", internal::ListJson(u.phases)}}; }

static Result<UserResults> UserFromJson(const json& j, const std::string& where) {
  UserResults u;
  SSDLAB_RETURN_IF_ERROR(internal::List(j, where, "phases", UserPhaseFromJson, u.phases));
  return u;
}

// Reads `j` as a T with `from` into the variant.
template <class T>
static Result<ProfileKindResults> As(Result<T> (*from)(const json&, const std::string&),
                                     const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  auto r = from(j, where);
  if (!r.ok()) return r.status();
  return ProfileKindResults(std::move(r).value());
}

json ToJson(const FillPreparation& p) {
  json out = {{"filled_bytes", p.filled_bytes}, {"mb_s", p.mb_s}};
  if (p.purge_method) out["purge_method"] = *p.purge_method;
  return out;
}

Result<FillPreparation> FillPreparationFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  FillPreparation p;
  SSDLAB_RETURN_IF_ERROR(internal::Optional(j, where, "purge_method", Text, p.purge_method));
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "filled_bytes", p.filled_bytes));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "mb_s", p.mb_s));
  return p;
}

json ToJson(const CurveMixRecord& m) {
  return {{"name", m.name},
          {"pattern", m.pattern},
          {"read_pct", m.read_pct},
          {"block_sizes", internal::ListJson(m.block_sizes,
                                             [](const MixBlock& b) {
                                               return json{{"bytes", b.bytes}, {"pct", b.pct}};
                                             })},
          {"dist",
           {{"kind", m.dist_kind},
            {"param", m.dist_param},
            {"zones", internal::ListJson(
                          m.dist_zones,
                          [](const MixZone& z) {
                            return json{{"access_pct", z.access_pct}, {"range_pct", z.range_pct}};
                          })}}},
          {"threads", m.threads},
          {"source", m.source}};
}

Result<CurveMixRecord> CurveMixFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  CurveMixRecord m;
  SSDLAB_RETURN_IF_ERROR(Text(j, where, "name", m.name));
  SSDLAB_RETURN_IF_ERROR(Text(j, where, "pattern", m.pattern));
  SSDLAB_RETURN_IF_ERROR(Number(j, where, "read_pct", m.read_pct));
  SSDLAB_RETURN_IF_ERROR(internal::List(j, where, "block_sizes", MixBlockFromJson, m.block_sizes));
  if (auto it = j.find("dist"); it != j.end() && !it->is_null()) {
    const std::string at = where + ".dist";
    SSDLAB_RETURN_IF_ERROR(internal::Object(*it, at));
    SSDLAB_RETURN_IF_ERROR(Text(*it, at, "kind", m.dist_kind));
    SSDLAB_RETURN_IF_ERROR(Number(*it, at, "param", m.dist_param));
    SSDLAB_RETURN_IF_ERROR(internal::List(*it, at, "zones", MixZoneFromJson, m.dist_zones));
  }
  SSDLAB_RETURN_IF_ERROR(Count(j, where, "threads", m.threads));
  SSDLAB_RETURN_IF_ERROR(Text(j, where, "source", m.source));
  return m;
}

bool IsProfileKind(const std::string& kind) {
  for (const char* k : {"cdm", "cdm-nvme", "atto", "as-ssd", "surface", "fileio", "curve", "fill",
                        "op-advisor", "user"}) {
    if (kind == k) return true;
  }
  return false;
}

json ToJson(const ProfileKindResults& r) {
  return std::visit([](const auto& v) { return ToJson(v); }, r);
}

Result<ProfileKindResults> ProfileKindResultsFromJson(const std::string& kind,
                                                      const std::string& kind_where, const json& j,
                                                      const std::string& where) {
  if (kind == "cdm" || kind == "cdm-nvme") return As(CdmFromJson, j, where);
  if (kind == "atto") return As(AttoFromJson, j, where);
  if (kind == "as-ssd") return As(AsSsdFromJson, j, where);
  if (kind == "surface") return As(SurfaceFromJson, j, where);
  if (kind == "fileio") return As(FileioFromJson, j, where);
  if (kind == "curve") return As(ProfileCurveFromJson, j, where);
  if (kind == "fill") return As(FillFromJson, j, where);
  if (kind == "op-advisor") return As(OpAdvisorFromJson, j, where);
  if (kind == "user") return As(UserFromJson, j, where);
  return Status::Invalid(kind_where + " '" + kind + "' is not a profile kind");
}

}  // namespace ssdlab::results
