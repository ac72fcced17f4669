#include "usecase/app.h"

#include <fmt/format.h>
#include <sys/statvfs.h>

#include "device/device_json.h"
#include "serve/served_fs.h"
#include "store/store.h"
#include "usecase/documents.h"
#include "usecase/paths.h"
#include "usecase/pts.h"
#include "usecase/runs.h"

namespace ssdlab::usecase {
namespace {

using nlohmann::json;

TargetInfo DirectoryTarget(const DeviceIdentity& id) {
  TargetInfo t;
  t.path = id.path;
  t.kind = "directory";
  struct statvfs v;
  if (statvfs(id.path.c_str(), &v) == 0)
    t.size_bytes = static_cast<uint64_t>(v.f_blocks) * v.f_frsize;
  if (id.disk) {
    t.model = id.disk->model;
    t.serial = id.disk->serial;
    t.firmware = id.disk->firmware;
    t.details.emplace_back("device", id.disk->dev_path);
  }
  t.details.emplace_back("filesystem", id.filesystem);
  t.details.emplace_back("mount_point", id.mount_point);
  return t;
}

// The stored run's target: the directory's drive, or the simulated drive served.
TargetInfo StoredTarget(const AppRequest& r, const DeviceIdentity& identity) {
  if (r.target.empty()) return DirectoryTarget(identity);
  TargetInfo t;
  t.path = r.target;
  t.kind = "sim";
  t.details.emplace_back("served", "FUSE and a loop device, ext4 (docs/serve.md)");
  return t;
}

json ConfigJson(const AppRequest& r) {
  const AppOptions& o = r.options;
  return {{"app", o.name},
          {"dir", o.dir},
          {"target", r.target},
          {"threads", o.threads},
          {"time_s", o.time_ns / 1'000'000'000},
          {"warmup_s", o.warmup_ns / 1'000'000'000},
          {"tables", o.tables},
          {"table_rows", o.table_rows},
          {"scale", o.scale},
          {"buffer_bytes", o.buffer_bytes},
          {"port", o.port},
          {"any_dir", r.any_dir},
          {"keep_data", o.keep_data}};
}

// What is checked before anything starts: with a directory, the directory (and the drive under
// it), with a target the programs (missing ones: Io, the host cannot proceed). The directory's
// identity into `identity`.
Status CheckBeforeStart(const AppRequest& r, DeviceIdentity* identity) {
  if (!r.target.empty()) {
    SSDLAB_RETURN_IF_ERROR(serve::CheckServedFsTools());
    Status s = CheckAppPrograms(r.options);
    return s.ok() || s.code() != Code::kUnsupported ? s : Status::Io(s.message());
  }
  SSDLAB_RETURN_IF_ERROR(CheckApp(r.options));
  SSDLAB_ASSIGN_OR_RETURN(*identity, IdentifyDirectory(r.options.dir));
  if (!identity->disk && !r.any_dir) {
    return Status::Invalid("cannot tell which drive holds " + r.options.dir + " (" +
                           identity->disk_note +
                           "); give a directory on the drive under test, or --any-dir to run "
                           "anyway");
  }
  return Status::Ok();
}

// The simulated drive's part of the results: the counters' difference over the test and the
// serve's pacing.
results::AppSimulatedDrive SimulatedDriveOf(const serve::ServedFsReport& r) {
  results::AppSimulatedDrive d;
  d.target = r.serve.target;
  d.capacity_bytes = r.serve.capacity_bytes;
  d.host_pages_written = r.after.host_pages_written - r.before.host_pages_written;
  d.nand_pages_written = r.after.nand_pages_written - r.before.nand_pages_written;
  d.write_amplification = d.host_pages_written ? static_cast<double>(d.nand_pages_written) /
                                                     static_cast<double>(d.host_pages_written)
                                               : 0.0;
  d.gc_page_copies = r.after.gc_page_copies - r.before.gc_page_copies;
  d.erases = r.after.erases - r.before.erases;
  d.host_read_pages = r.after.host_read_pages - r.before.host_read_pages;
  d.nand_page_reads = r.after.nand_page_reads - r.before.nand_page_reads;
  d.paced = r.serve.paced();  // replies on time, and a transport that kept up
  d.late_share = r.serve.pacer.late_share();
  d.transport_round_trip_ns = r.serve.transport_ns;
  return d;
}

// The app on a served simulated drive: its filesystem made, mounted, used and undone
// (serve/served_fs.h); the drive's figures into `drive`, the serve's warnings into `errors`.
AppOutcome RunOnServedDrive(const AppRequest& r, std::optional<results::AppSimulatedDrive>* drive,
                            std::vector<std::string>* errors) {
  AppOutcome outcome;
  serve::ServedFsOptions so;
  so.target = r.target;
  so.stop = r.stop;
  so.progress = r.progress;
  auto served = serve::WithServedFilesystem(so, [&](const std::string& mnt) {
    AppOptions o = r.options;
    o.dir = mnt;
    auto id = IdentifyDirectory(mnt);
    DeviceIdentity none;
    none.path = mnt;
    outcome = RunApp(o, id.ok() ? *id : none, r.stop, r.progress);
  });
  if (!served.ok()) {
    if (outcome.status.ok()) outcome.status = served.status();
    return outcome;
  }
  *drive = SimulatedDriveOf(*served);
  for (const std::string& w : served->warnings) errors->push_back("warning: " + w);
  return outcome;
}

}  // namespace

Status ValidateAppRequest(const AppRequest& r) {
  if (r.options.dir.empty() == r.target.empty())
    return Status::Invalid("app: give either --dir DIR or --target sim:PRESET");
  if (!r.target.empty() && r.target.rfind("sim:", 0) != 0)
    return Status::Invalid("--target serves a simulated drive, sim:PRESET[?...], not " + r.target +
                           " (a real drive: --dir on its filesystem)");
  AppOptions check = r.options;
  if (!r.target.empty()) check.dir = "/";  // the served filesystem's, made later
  return ValidateAppOptions(check);
}

Result<AppTestOutcome> RunAppTest(const AppRequest& r) {
  SSDLAB_RETURN_IF_ERROR(ValidateAppRequest(r));
  DeviceIdentity identity;
  SSDLAB_RETURN_IF_ERROR(CheckBeforeStart(r, &identity));
  PathRegistry paths = CommandPaths();
  AddDatabasePath(paths, "--db", r.db, true);
  paths.AddOutput("--json", r.json_path);
  SSDLAB_RETURN_IF_ERROR(paths.Check());
  SSDLAB_ASSIGN_OR_RETURN(std::unique_ptr<Store> store, Store::Open(r.db));
  AppTestOutcome out;
  out.run = r.run.empty() ? DefaultRunName("app-" + r.options.name) : r.run;
  const TargetInfo target = StoredTarget(r, identity);
  const json config = ConfigJson(r);
  json context = PlatformJson();
  context["target"] = TargetJson(target);
  context["device"] = r.target.empty() ? IdentityJson(identity) : json(nullptr);
  SSDLAB_ASSIGN_OR_RETURN(int64_t run_id,
                          store->CreateRun(out.run, "app", config, context, target));
  SSDLAB_ASSIGN_OR_RETURN(int64_t test_id, store->BeginTest(run_id, 0, r.options.name, config));
  r.console->Note(fmt::format(
      "ssdlab app: run '{}', {} {}\n", out.run, r.options.name,
      r.target.empty() ? fmt::format("in {} ({})", r.options.dir, DescribeTarget(identity))
                       : "on a served " + r.target));
  std::optional<results::AppSimulatedDrive> drive;
  AppOutcome outcome = r.target.empty() ? RunApp(r.options, identity, r.stop, r.progress)
                                        : RunOnServedDrive(r, &drive, &out.errors);
  out.status = outcome.status;
  out.results = AppResultsOf(outcome, r.options.name);
  out.results.simulated_drive = std::move(drive);
  if (Status s = store->FinishTest(test_id, nullptr, ToJson(out.results)); !s.ok())
    out.errors.insert(out.errors.begin(), "cannot store the results: " + s.message());
  out.doc = EndStoredRun(*store, run_id, out.run, out.status, *r.console);
  return out;
}

}  // namespace ssdlab::usecase
