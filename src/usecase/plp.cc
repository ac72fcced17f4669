#include "usecase/plp.h"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <queue>
#include <unordered_map>

#include "base/units.h"
#include "device/safety.h"
#include "sim/params.h"
#include "sim/sim.h"
#include "store/store.h"
#include "usecase/documents.h"
#include "usecase/options.h"
#include "usecase/paths.h"
#include "usecase/plp_rig.h"
#include "usecase/runs.h"

namespace ssdlab::usecase {

using nlohmann::json;

namespace {

// The simulated drive as a rig: the load runs in virtual time, the cut is the model's
// (SimBackend::PowerCutAt), and a unit reads back as the tag the model says it holds.
class SimPlpRig : public PlpRig {
 public:
  explicit SimPlpRig(std::unique_ptr<SimBackend> b) : b_(std::move(b)) {}
  uint64_t units() const override { return b_->info().size_bytes / kPlpUnitBytes; }
  Status RunAndCut(const PlpLoad& load, uint64_t cut_after_ns, Rng& rng, uint32_t* next_seq,
                   PlpJournal* journal, PlpLoadAtCut* at_cut, uint64_t* cut_ns) override;
  Status Restore(uint64_t* ready_ns) override {
    *ready_ns = truth_.value("ready_ns", uint64_t{0}) - truth_.value("cut_ns", uint64_t{0});
    return Status::Ok();
  }
  Result<PlpReading> Read(uint64_t lpn) override {
    PlpReading r;
    r.lpn = lpn;
    r.seq = b_->HeldTag(lpn);
    return r;
  }
  const json* Truth() const override { return &truth_; }

 private:
  // One command of the load issued at t by a submitter; returns its completion.
  Result<uint64_t> Issue(const PlpLoad& load, Rng& rng, uint64_t t, uint32_t* next_seq,
                         PlpJournal* journal);
  std::unique_ptr<SimBackend> b_;
  uint32_t writes_since_flush_ = 0;
  json truth_;
};

Result<uint64_t> SimPlpRig::Issue(const PlpLoad& load, Rng& rng, uint64_t t, uint32_t* next_seq,
                                  PlpJournal* journal) {
  if (load.flush == PlpLoad::Flush::kEvery && writes_since_flush_ >= load.flush_every) {
    writes_since_flush_ = 0;
    journal->flushes.push_back({t, b_->FlushAt(t)});
    return journal->flushes.back().done_ns;
  }
  const uint32_t bytes = load.block_bytes[rng.Below(load.block_bytes.size())];
  const uint64_t units = std::min<uint64_t>(bytes / kPlpUnitBytes, load.range_units);
  const uint64_t offset = rng.Below(load.range_units - units + 1) * kPlpUnitBytes;
  const auto n = static_cast<uint32_t>(units * kPlpUnitBytes);
  if (load.read_pct > 0 && rng.Uniform() * 100 < load.read_pct)
    return b_->SubmitAt(Direction::kRead, offset, n, t);
  PlpJournal::Write w;
  w.seq = (*next_seq)++;
  w.offset = offset;
  w.bytes = n;
  w.issue_ns = t;
  w.fua = load.flush == PlpLoad::Flush::kFua;
  SSDLAB_ASSIGN_OR_RETURN(w.ack_ns, b_->SubmitTaggedWrite(offset, n, t, w.seq, w.fua));
  journal->writes.push_back(w);
  ++writes_since_flush_;
  return w.ack_ns;
}

Status SimPlpRig::RunAndCut(const PlpLoad& load, uint64_t cut_after_ns, Rng& rng,
                            uint32_t* next_seq, PlpJournal* journal, PlpLoadAtCut* at_cut,
                            uint64_t* cut_ns) {
  const uint64_t start = b_->now_ns();
  const uint64_t cut = start + cut_after_ns;
  // Closed loop: each of qd submitters issues its next command when the last one completes.
  std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<>> free_at;
  for (uint32_t i = 0; i < load.qd; ++i) free_at.push(start);
  uint64_t acked = 0;
  while (free_at.top() < cut) {
    const uint64_t t = free_at.top();
    free_at.pop();
    SSDLAB_ASSIGN_OR_RETURN(uint64_t done, Issue(load, rng, t, next_seq, journal));
    if (done <= cut) ++acked;
    free_at.push(done);
  }
  at_cut->in_flight = 0;
  for (; !free_at.empty(); free_at.pop())
    if (free_at.top() > cut) ++at_cut->in_flight;
  // What was acknowledged after the cut never was.
  for (PlpJournal::Write& w : journal->writes) {
    if (w.ack_ns > cut) w.ack_ns = kPlpNever;
    if (w.ack_ns != kPlpNever) ++at_cut->writes_acked;
  }
  for (PlpJournal::Flush& f : journal->flushes)
    if (f.done_ns > cut) f.done_ns = kPlpNever;
  at_cut->iops = static_cast<double>(acked) * 1e9 / static_cast<double>(cut_after_ns);
  SSDLAB_ASSIGN_OR_RETURN(SimBackend::PowerCut c, b_->PowerCutAt(cut));
  truth_ = {{"cut_ns", c.cut_ns},
            {"ready_ns", c.ready_ns},
            {"lost_flushed", c.lost_flushed},
            {"lost_unflushed", c.lost_unflushed},
            {"mapping", c.mapping},
            {"units_in_buffer", c.units_in_buffer},
            {"units_saved", c.units_saved}};
  writes_since_flush_ = 0;
  *cut_ns = cut;
  return Status::Ok();
}

// Per unit touched by the segment: the newest acknowledged write, the newest made durable by
// a completed flush or FUA, and the newest made durable by the sync point before the last.
struct Newest {
  uint32_t acked = 0, synced = 0, synced_before_last = 0;
};

// When each write became durable-promised (kPlpNever: not before the cut): FUA at its
// acknowledgement, otherwise at the completion of the first flush issued at or after it.
std::vector<uint64_t> SyncTimes(const PlpJournal& j) {
  std::vector<uint64_t> out(j.writes.size(), kPlpNever);
  for (size_t i = 0; i < j.writes.size(); ++i) {
    const PlpJournal::Write& w = j.writes[i];
    if (w.ack_ns == kPlpNever) continue;
    if (w.fua) {
      out[i] = w.ack_ns;
      continue;
    }
    auto it =
        std::lower_bound(j.flushes.begin(), j.flushes.end(), w.ack_ns,
                         [](const PlpJournal::Flush& f, uint64_t t) { return f.issue_ns < t; });
    if (it != j.flushes.end()) out[i] = it->done_ns;
  }
  return out;
}

}  // namespace

const char* PlpClassKey(int c) {
  switch (c) {
    case kLostFlushed:
      return "lost_flushed";
    case kLostUnflushed:
      return "lost_unflushed";
    case kTorn:
      return "torn";
    case kOldGeneration:
      return "old_generation";
    case kMisdirected:
      return "misdirected";
    default:
      return "unreadable";
  }
}

Status ParsePlpFlush(const std::string& text, PlpLoad* load) {
  if (text == "none") {
    load->flush = PlpLoad::Flush::kNone;
  } else if (text == "fua") {
    load->flush = PlpLoad::Flush::kFua;
  } else if (text.rfind("every:", 0) == 0) {
    auto n = ParseCount(text.substr(6));
    if (!n.ok() || n.value() < 1 || n.value() > (1u << 30))
      return Status::Invalid("--flush " + text + ": N of every:N is a whole number from 1");
    load->flush = PlpLoad::Flush::kEvery;
    load->flush_every = static_cast<uint32_t>(n.value());
  } else {
    return Status::Invalid("--flush: unknown policy '" + text + "' (none, every:N, fua)");
  }
  return Status::Ok();
}

Result<std::array<uint64_t, kPlpClasses>> ClassifyCut(PlpRig& rig, const PlpJournal& j,
                                                      uint64_t cut_ns, uint64_t range_units,
                                                      std::vector<uint32_t>* baseline) {
  const std::vector<uint64_t> sync = SyncTimes(j);
  // The last sync point before the cut and the one before it.
  uint64_t last = 0, before_last = 0;
  auto sync_point = [&](uint64_t t) {
    if (t > cut_ns || t == kPlpNever) return;
    if (t > last) {
      before_last = last;
      last = t;
    } else if (t < last && t > before_last) {
      before_last = t;
    }
  };
  for (const PlpJournal::Flush& f : j.flushes) sync_point(f.done_ns);
  for (const PlpJournal::Write& w : j.writes)
    if (w.fua) sync_point(w.ack_ns);
  std::unordered_map<uint64_t, Newest> newest;
  for (size_t i = 0; i < j.writes.size(); ++i) {
    const PlpJournal::Write& w = j.writes[i];
    if (w.ack_ns == kPlpNever) continue;
    for (uint64_t u = w.offset / kPlpUnitBytes; u < (w.offset + w.bytes) / kPlpUnitBytes; ++u) {
      Newest& n = newest[u];
      n.acked = w.seq;
      if (sync[i] <= cut_ns) n.synced = w.seq;
      if (sync[i] <= before_last) n.synced_before_last = w.seq;
    }
  }
  const uint32_t first_seq = j.writes.empty() ? 0 : j.writes.front().seq;
  std::array<uint64_t, kPlpClasses> found{};
  for (uint64_t u = 0; u < range_units; ++u) {
    SSDLAB_ASSIGN_OR_RETURN(PlpReading r, rig.Read(u));
    uint32_t& base = (*baseline)[u];
    if (!r.readable) {
      ++found[kUnreadable];
      continue;
    }
    if (!r.intact) {
      ++found[kTorn];
      continue;
    }
    // The write the data came from must have covered this unit: the verified data of the
    // previous cut, or a write of this segment (acknowledged or in flight).
    bool ours = r.seq == base && r.lpn == u;
    if (!ours && r.lpn == u && !j.writes.empty() && r.seq >= first_seq &&
        r.seq - first_seq < j.writes.size()) {
      const PlpJournal::Write& w = j.writes[r.seq - first_seq];
      ours = u >= w.offset / kPlpUnitBytes && u < (w.offset + w.bytes) / kPlpUnitBytes;
    }
    if (!ours) {
      ++found[r.lpn == u && r.seq < base ? kOldGeneration : kMisdirected];
      continue;
    }
    auto it = newest.find(u);
    if (it != newest.end()) {
      const Newest& n = it->second;
      if (r.seq < n.synced_before_last) {
        ++found[kOldGeneration];
      } else if (r.seq < n.synced) {
        ++found[kLostFlushed];
      } else if (r.seq < n.acked) {
        ++found[kLostUnflushed];
      }
    }
    base = r.seq;
  }
  return found;
}

namespace {

Status ParseLoad(const PlpRequest& a, uint64_t drive_units, PlpLoad* load, uint64_t* segment_ns) {
  if (a.cuts < 1) return Status::Invalid("--cuts: at least 1");
  if (a.qd < 1 || a.qd > 4096) return Status::Invalid("--qd: from 1 to 4096");
  if (a.rwmix_read < 0 || a.rwmix_read >= 100)
    return Status::Invalid("--rwmix-read: from 0 to below 100 (the load must write)");
  SSDLAB_RETURN_IF_ERROR(ParsePlpFlush(a.flush, load));
  SSDLAB_RETURN_IF_ERROR(DurationFlag("--segment", a.segment, *segment_ns));
  if (*segment_ns < 1000) return Status::Invalid("--segment: at least 1us");
  load->block_bytes.clear();
  for (size_t at = 0; at <= a.bs.size();) {
    size_t end = a.bs.find(',', at);
    if (end == std::string::npos) end = a.bs.size();
    auto b = ParseBytes(a.bs.substr(at, end - at));
    if (!b.ok() || b.value() == 0 || b.value() % kPlpUnitBytes != 0 || b.value() > (64u << 20))
      return Status::Invalid("--bs: '" + a.bs.substr(at, end - at) +
                             "' is not a multiple of 4KiB up to 64MiB");
    load->block_bytes.push_back(static_cast<uint32_t>(b.value()));
    at = end + 1;
  }
  load->range_units = drive_units;
  if (!a.size.empty()) {
    auto s = ParseBytes(a.size);
    if (!s.ok() || s.value() < kPlpUnitBytes || s.value() / kPlpUnitBytes > drive_units)
      return Status::Invalid("--size: '" + a.size + "' is not a size from 4KiB to the drive's " +
                             FormatBytes(drive_units * kPlpUnitBytes));
    load->range_units = s.value() / kPlpUnitBytes;
  }
  load->read_pct = a.rwmix_read;
  load->qd = a.qd;
  return Status::Ok();
}

json CutJson(size_t i, const PlpCut& c) {
  json findings = json::object();
  for (int k = 0; k < kPlpClasses; ++k) findings[PlpClassKey(k)] = c.findings[k];
  return {{"cut", i + 1},
          {"time_ns", c.cut_ns},
          {"power_on_to_ready_ns", c.ready_ns},
          {"load",
           {{"iops", c.load.iops},
            {"in_flight", c.load.in_flight},
            {"writes_acked", c.load.writes_acked}}},
          {"findings", findings},
          {"sim", c.truth}};
}

json CampaignDoc(const PlpRequest& a, const PlpLoad& load, const PlpOutcome& o) {
  json totals = json::object();
  for (int k = 0; k < kPlpClasses; ++k) totals[PlpClassKey(k)] = o.totals[k];
  json cuts = json::array();
  for (size_t i = 0; i < o.cuts.size(); ++i) cuts.push_back(CutJson(i, o.cuts[i]));
  return {{"schema_version", 1},
          {"kind", "plp"},
          {"target", a.target},
          {"config",
           {{"cuts", a.cuts},
            {"flush", a.flush},
            {"bs", a.bs},
            {"rwmix_read", a.rwmix_read},
            {"qd", a.qd},
            {"segment", a.segment},
            {"range_bytes", load.range_units * kPlpUnitBytes},
            {"seed", std::to_string(a.seed)}}},
          {"summary", totals},
          {"cuts", cuts}};
}

// The rig of a real target (its power commands and journal), the failure that ended the
// campaign early: added to the document.
void AddRigJson(const PlpRequest& a, const PlpOutcome& o, json* doc) {
  if (!IsSimTarget(a.target)) {
    (*doc)["rig"] = {{"power_off", a.power_off},
                     {"power_on", a.power_on},
                     {"settle", a.settle},
                     {"journal", a.journal}};
  }
  if (!o.failed.ok()) (*doc)["failed"] = o.failed.message();
}

// A real rig: a block device, both power commands, a journal off it; the destructive-write
// checks of every command that writes a device.
Result<std::unique_ptr<PlpRig>> OpenRealRig(const PlpRequest& a,
                                            std::unique_ptr<PlpJournalSink>* journal) {
  struct stat st;
  if (stat(a.target.c_str(), &st) != 0 || !S_ISBLK(st.st_mode)) {
    return Status::Invalid("plp: --target " + a.target +
                           " is neither a simulated drive (sim:PRESET) nor a block device");
  }
  if (a.power_off.empty() || a.power_on.empty())
    return Status::Invalid("plp on " + a.target + " needs --power-off CMD and --power-on CMD");
  if (a.journal.empty()) {
    return Status::Invalid("plp on " + a.target +
                           " needs --journal FILE (on another disk) or --journal HOST:PORT");
  }
  RealRigOptions o;
  o.target = a.target;
  o.power_off = a.power_off;
  o.power_on = a.power_on;
  SSDLAB_RETURN_IF_ERROR(DurationFlag("--settle", a.settle, o.settle_ns));
  SSDLAB_RETURN_IF_ERROR(DurationFlag("--ready-timeout", a.ready_timeout, o.ready_timeout_ns));
  SSDLAB_RETURN_IF_ERROR(CheckBlockDeviceWritable(a.target, a.destructive));
  o.nonce = Mix64(a.seed ^ Mix64(static_cast<uint64_t>(
                               std::chrono::system_clock::now().time_since_epoch().count())));
  SSDLAB_ASSIGN_OR_RETURN(*journal, OpenPlpJournal(a.journal));
  return OpenRealPlpRig(o, journal->get());
}

Result<std::unique_ptr<PlpRig>> OpenRig(const PlpRequest& a,
                                        std::unique_ptr<PlpJournalSink>* journal) {
  if (!IsSimTarget(a.target) || a.target.rfind("sim:", 0) != 0) return OpenRealRig(a, journal);
  if (!a.power_off.empty() || !a.power_on.empty() || !a.journal.empty()) {
    return Status::Invalid(
        "plp: --power-off, --power-on and --journal are for real rigs; a simulated drive's "
        "power is cut in virtual time");
  }
  SimOpenOptions so;
  so.lock_state = false;  // the campaign leaves any state= file as it was
  SSDLAB_ASSIGN_OR_RETURN(std::unique_ptr<SimBackend> b, OpenSimBackend(a.target, so));
  SSDLAB_RETURN_IF_ERROR(b->EnablePowerLossTracking());
  return std::unique_ptr<PlpRig>(new SimPlpRig(std::move(b)));
}

Status StoreCampaign(Store& store, const PlpRequest& a, const PlpOutcome& o) {
  TargetInfo target;
  target.path = a.target;
  target.kind = IsSimTarget(a.target) ? "sim" : "block";
  if (auto sim = sim::ParseSimTarget(a.target); sim.ok()) target.model = sim->preset;
  json context = PlatformJson();
  context["target"] = TargetJson(target);
  SSDLAB_ASSIGN_OR_RETURN(int64_t id,
                          store.CreateRun(o.run, "plp", o.doc["config"], context, target));
  auto t = store.BeginTest(id, 0, "plp", o.doc["config"]);
  Status st = t.ok() ? store.FinishTest(t.value(), json::object(), o.doc) : t.status();
  if (st.ok()) st = store.SetRunStatus(id, o.failed.ok() ? "done" : "failed");
  if (!st.ok()) return Status::Io("cannot store the campaign in " + a.db + ": " + st.message());
  return Status::Ok();
}

}  // namespace

Result<PlpOutcome> RunPlp(const PlpRequest& a) {
  if (a.cuts < 1) return Status::Invalid("--cuts: at least 1");
  {
    PlpLoad probe;
    SSDLAB_RETURN_IF_ERROR(ParsePlpFlush(a.flush, &probe));
  }
  PathRegistry paths = CommandPaths();
  if (IsSimTarget(a.target)) {
    SSDLAB_RETURN_IF_ERROR(AddTargetPaths(paths, "--target", a.target, false));
  }
  AddDatabasePath(paths, "--db", a.db, true);
  for (const auto& [what, path] : a.outputs) paths.AddOutput(what, path);
  if (struct stat st;
      !a.journal.empty() && stat(a.target.c_str(), &st) == 0 && S_ISBLK(st.st_mode)) {
    // First: a journal on the drive is refused as such, not as a block device output.
    SSDLAB_RETURN_IF_ERROR(CheckJournalOffTarget(a.journal, a.target));
  }
  if (!a.journal.empty() && !IsJournalStream(a.journal)) paths.AddOutput("--journal", a.journal);
  SSDLAB_RETURN_IF_ERROR(paths.Check());
  if (!a.run.empty() && a.db.empty()) return Status::Invalid("--run needs --db");
  std::unique_ptr<PlpJournalSink> journal;
  SSDLAB_ASSIGN_OR_RETURN(std::unique_ptr<PlpRig> rig, OpenRig(a, &journal));
  PlpLoad load;
  uint64_t segment_ns = 0;
  SSDLAB_RETURN_IF_ERROR(ParseLoad(a, rig->units(), &load, &segment_ns));
  std::unique_ptr<Store> store;
  if (!a.db.empty()) {
    SSDLAB_ASSIGN_OR_RETURN(store, Store::Open(a.db));
  }
  Rng rng(a.seed);
  uint32_t seq = 1;
  std::vector<uint32_t> baseline(load.range_units, 0);
  PlpOutcome out;
  for (uint32_t i = 0; i < a.cuts; ++i) {
    if (a.stop && a.stop->load()) return Status::Error(Code::kInterrupted, "interrupted");
    PlpJournal journal;
    PlpCut c;
    const uint64_t cut_after = 1 + rng.Below(segment_ns);
    out.failed = rig->RunAndCut(load, cut_after, rng, &seq, &journal, &c.load, &c.cut_ns);
    if (out.failed.ok()) out.failed = rig->Restore(&c.ready_ns);
    if (out.failed.ok()) {
      auto found = ClassifyCut(*rig, journal, c.cut_ns, load.range_units, &baseline);
      if (found.ok()) c.findings = *found;
      out.failed = found.status();
    }
    if (!out.failed.ok()) break;  // the cuts before it are kept
    if (const json* t = rig->Truth()) c.truth = *t;
    for (int k = 0; k < kPlpClasses; ++k) out.totals[k] += c.findings[k];
    out.cuts.push_back(std::move(c));
  }
  out.doc = CampaignDoc(a, load, out);
  AddRigJson(a, out, &out.doc);
  if (store) {
    out.run = a.run.empty() ? DefaultRunName("plp") : a.run;
    out.stored = StoreCampaign(*store, a, out);
  }
  return out;
}

}  // namespace ssdlab::usecase
