#include "device/purge.h"

#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "base/process.h"
#include "base/units.h"
#include "device/safety.h"
#include "device/sysfs.h"

namespace ssdlab {
namespace {

namespace fs = std::filesystem;

constexpr const char* kAtaPassword = "ssdlab";
constexpr uint64_t kChunkBytes = kGiB;

struct MethodName {
  PurgeMethod m;
  const char* name;
  bool device, flag;
};
// Every spelling, once; `device`: `purge --method` takes it, `flag`: --purge takes it. In an
// order that lists each command's choices as its help always has.
constexpr MethodName kMethods[] = {
    {PurgeMethod::kAuto, "auto", true, true},
    {PurgeMethod::kAtaSecureErase, "ata-secure-erase", true, false},
    {PurgeMethod::kAtaEnhanced, "ata-enhanced", true, false},
    {PurgeMethod::kSecureErase, "secure-erase", false, true},
    {PurgeMethod::kSasFormat, "sas-format", true, false},
    {PurgeMethod::kNvmeFormat, "nvme-format", true, false},
    {PurgeMethod::kFormat, "format", false, true},
    {PurgeMethod::kNvmeSanitize, "nvme-sanitize", true, false},
    {PurgeMethod::kSanitize, "sanitize", false, true},
    {PurgeMethod::kDiscard, "discard", true, true},
    {PurgeMethod::kZero, "zero", true, false},
    {PurgeMethod::kPunchHole, "punch-hole", true, false},
    {PurgeMethod::kNone, "none", false, true},
};

// The entry spelled `name` among those `takes`, and the list of those (joined by `sep`).
template <class Takes>
const MethodName* FindMethod(std::string_view name, Takes takes, std::string* all,
                             std::string_view sep) {
  const MethodName* found = nullptr;
  for (const auto& e : kMethods) {
    if (!takes(e)) continue;
    if (name == e.name) found = &e;
    if (all) *all += (all->empty() ? "" : std::string(sep)) + e.name;
  }
  return found;
}

std::string PackageOf(const std::string& tool) {
  if (tool == "nvme") return "nvme-cli";
  if (tool.rfind("sg_", 0) == 0) return "sg3-utils";
  return tool;
}

std::string Collapse(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\t' || c == ' ') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += c;
    }
  }
  return std::string(Trim(out, kSpaceOrNul));
}

PurgeStep Command(std::vector<std::string> argv, uint64_t timeout_s) {
  PurgeStep s;
  s.kind = PurgeStep::Kind::kCommand;
  s.text = JoinArgv(argv);
  s.argv = std::move(argv);
  s.timeout_s = timeout_s;
  return s;
}

PurgeStep RangeStep(PurgeStep::Kind kind, const std::string& path, uint64_t length, bool file) {
  PurgeStep s;
  s.kind = kind;
  s.path = path;
  s.offset_bytes = 0;
  s.length_bytes = length;
  std::string what;
  switch (kind) {
    case PurgeStep::Kind::kDiscard:
      what = "ioctl(BLKDISCARD)";
      break;
    case PurgeStep::Kind::kZeroOut:
      what = file ? "fallocate(FALLOC_FL_ZERO_RANGE)" : "ioctl(BLKZEROOUT)";
      break;
    default:
      what = "fallocate(FALLOC_FL_PUNCH_HOLE|FALLOC_FL_KEEP_SIZE)";
      break;
  }
  s.text = what + " on " + path + " over bytes [0, " + std::to_string(length) + ")" +
           (file ? "" : " in chunks of 1 GiB");
  return s;
}

Status Unsupported(const std::string& msg) { return Status::Error(Code::kUnsupported, msg); }

// Whole-device methods want the disk, not a partition of it.
Status NeedWholeDisk(const DeviceIdentity& id, PurgeMethod m) {
  if (id.partition.empty()) return Status::Ok();
  return Status::Invalid(std::string(PurgeMethodName(m)) + " erases the whole disk " +
                         id.disk->dev_path + "; give " + id.disk->dev_path +
                         " rather than its partition /dev/" + id.partition);
}

Status NeedTransport(const DiskIdentity& d, PurgeMethod m, std::initializer_list<Transport> ok) {
  if (std::find(ok.begin(), ok.end(), d.transport) != ok.end()) return Status::Ok();
  std::string want;
  for (Transport t : ok) want += (want.empty() ? "" : "/") + std::string(TransportName(t));
  return Unsupported(std::string(PurgeMethodName(m)) + " needs a " + want + " drive; " +
                     d.dev_path + " is " + TransportName(d.transport) + " (try --method auto)");
}

std::string FirstNote(const PurgeCapabilities& caps, const std::string& tool) {
  for (const std::string& n : caps.notes) {
    if (n.find(tool) != std::string::npos) return n;
  }
  return "";
}

Status AtaUsable(const DiskIdentity& d, const PurgeCapabilities& caps, bool enhanced) {
  if (!caps.ata_probed) {
    std::string n = FirstNote(caps, "hdparm");
    return Unsupported(n.empty() ? "cannot read the ATA security state of " + d.dev_path : n);
  }
  if (!caps.ata_security_supported) {
    return Unsupported(d.dev_path +
                       " does not support the ATA security feature set (no secure erase)");
  }
  if (caps.ata_frozen) {
    return Unsupported("ATA security of " + d.dev_path +
                       " is frozen (firmware froze it at boot); suspend and resume the machine "
                       "(systemctl suspend) or hot-plug the drive, then retry");
  }
  if (caps.ata_locked)
    return Unsupported(d.dev_path + " is locked by an ATA password; unlock it first");
  if (caps.ata_security_enabled) {
    return Unsupported(d.dev_path +
                       " already has an ATA user password set; disable it first "
                       "(hdparm --user-master u --security-disable PASSWORD " +
                       d.dev_path + ")");
  }
  if (enhanced && !caps.ata_enhanced_supported) {
    return Unsupported(
        d.dev_path + " does not support the enhanced secure erase; use --method ata-secure-erase");
  }
  return Status::Ok();
}

Status NvmeProbed(const DiskIdentity& d, const PurgeCapabilities& caps) {
  if (caps.nvme_probed) return Status::Ok();
  std::string n = FirstNote(caps, "nvme");
  return Unsupported(n.empty() ? "cannot read the NVMe controller data of " + d.dev_path : n);
}

uint32_t CurrentLbaf(const DiskIdentity& d) {
  for (const NvmeLbaFormat& f : d.nvme_lba_formats) {
    if (f.in_use) return f.index;
  }
  return UINT32_MAX;
}

void AddAtaSteps(const DiskIdentity& d, const PurgeCapabilities& caps, bool enhanced,
                 PurgePlan* p) {
  uint32_t est_min = enhanced ? caps.ata_enhanced_erase_min : caps.ata_erase_min;
  uint64_t timeout_s = std::max<uint64_t>(3600, uint64_t{est_min} * 60 * 2);
  p->steps.push_back(Command(
      {"hdparm", "--user-master", "u", "--security-set-pass", kAtaPassword, d.dev_path}, 60));
  p->steps.push_back(Command(
      {"hdparm", "--user-master", "u", enhanced ? "--security-erase-enhanced" : "--security-erase",
       kAtaPassword, d.dev_path},
      timeout_s));
  PurgeStep check;
  check.kind = PurgeStep::Kind::kCheckAtaUnlocked;
  check.path = d.dev_path;
  check.argv = {"hdparm", "-I", d.dev_path};
  check.text = "hdparm -I " + d.dev_path + "  (security must be 'not enabled' afterwards)";
  check.timeout_s = 60;
  p->steps.push_back(check);
  if (est_min)
    p->notes.push_back("the drive estimates " + std::to_string(est_min) + " min for the erase");
  p->notes.push_back("temporary ATA user password '" + std::string(kAtaPassword) +
                     "'; the erase clears it");
}

}  // namespace

const char* PurgeMethodName(PurgeMethod m) {
  for (const auto& e : kMethods) {
    if (e.m == m) return e.name;
  }
  return "?";
}

Result<PurgeMethod> ParsePurgeMethod(std::string_view name) {
  std::string all;
  const MethodName* e = FindMethod(
      name, [](const MethodName& m) { return m.device; }, &all, ", ");
  if (e) return e->m;
  return Status::Invalid("unknown purge method '" + std::string(name) + "' (choose from " + all +
                         ")");
}

Result<PurgeMethod> ParsePurgeFlag(const std::string& flag, std::string_view text) {
  std::string all;
  const MethodName* e = FindMethod(
      text, [](const MethodName& m) { return m.flag; }, &all, ", ");
  if (e) return e->m;
  return Status::Invalid(flag + ": unknown method '" + std::string(text) + "' (" + all + ")");
}

std::string PurgeFlagNames(std::string_view sep) {
  std::string all;
  FindMethod(
      "", [](const MethodName& m) { return m.flag; }, &all, sep);
  return all;
}

std::string PurgeMethodNames(std::string_view sep) {
  std::string all;
  FindMethod(
      "", [](const MethodName& m) { return m.device; }, &all, sep);
  return all;
}

Result<PurgeMethod> ParseAnyPurgeMethod(std::string_view name) {
  if (const MethodName* e = FindMethod(
          name, [](const MethodName&) { return true; }, nullptr, ""))
    return e->m;
  return ParsePurgeMethod(name);  // Invalid listing the device methods, as before
}

Result<PurgeMethod> ResolvePurgeMethod(PurgeMethod m, const DeviceIdentity& id) {
  const Transport t = id.disk ? id.disk->transport : Transport::kUnknown;
  auto refuse = [&](const std::string& what) {
    return Status::Error(Code::kUnsupported, std::string("--purge ") + PurgeMethodName(m) + " " +
                                                 what + "; " + id.path + " is " + TransportName(t));
  };
  switch (m) {
    case PurgeMethod::kSecureErase:
      if (t == Transport::kSata) return PurgeMethod::kAtaEnhanced;
      return refuse("is an ATA method");
    case PurgeMethod::kFormat:
      if (t == Transport::kSas || t == Transport::kScsi) return PurgeMethod::kSasFormat;
      if (t == Transport::kNvme) return PurgeMethod::kNvmeFormat;
      return refuse("needs a SAS or NVMe drive");
    case PurgeMethod::kSanitize:
      if (t == Transport::kNvme) return PurgeMethod::kNvmeSanitize;
      return refuse("needs an NVMe drive");
    default:
      return m;
  }
}

namespace {

// hdparm's "2min for SECURITY ERASE UNIT. 8min for ENHANCED SECURITY ERASE UNIT." (one line,
// collapsed): each "Nmin for [ENHANCED ]SECURITY ERASE UNIT" in it, into `caps`.
void ReadEraseTimes(std::string_view line, PurgeCapabilities* caps) {
  constexpr std::string_view kMin = "min for ", kEnhanced = "ENHANCED ",
                             kUnit = "SECURITY ERASE UNIT";
  for (size_t at = line.find(kMin); at != std::string_view::npos; at = line.find(kMin, at + 1)) {
    size_t first = at;
    while (first > 0 && line[first - 1] >= '0' && line[first - 1] <= '9') --first;
    std::string_view rest = line.substr(at + kMin.size());
    const bool enhanced = rest.substr(0, kEnhanced.size()) == kEnhanced;
    if (enhanced) rest.remove_prefix(kEnhanced.size());
    if (first == at || rest.substr(0, kUnit.size()) != kUnit) continue;
    auto min = ParseCount(line.substr(first, at - first));
    if (!min.ok()) continue;
    (enhanced ? caps->ata_enhanced_erase_min : caps->ata_erase_min) =
        static_cast<uint32_t>(min.value());
  }
}

}  // namespace

void ParseHdparmSecurity(const std::string& text, PurgeCapabilities* caps) {
  std::istringstream in(text);
  std::string line;
  bool in_section = false;
  while (std::getline(in, line)) {
    if (!in_section) {
      if (line.rfind("Security:", 0) == 0) {
        in_section = true;
        caps->ata_probed = true;
      }
      continue;
    }
    if (!line.empty() && line[0] != '\t' && line[0] != ' ') break;  // next section
    std::string l = Collapse(line);
    if (l == "supported") caps->ata_security_supported = true;
    if (l == "enabled") caps->ata_security_enabled = true;
    if (l == "locked") caps->ata_locked = true;
    if (l == "frozen") caps->ata_frozen = true;
    if (l == "supported: enhanced erase") caps->ata_enhanced_supported = true;
    ReadEraseTimes(l, caps);
  }
}

Status ParseNvmeIdCtrl(const std::string& text, PurgeCapabilities* caps) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return Status::Invalid("nvme id-ctrl output is not JSON");
  auto num = [&](const char* k) -> uint64_t {
    auto it = j.find(k);
    return it != j.end() && it->is_number_unsigned() ? it->get<uint64_t>() : 0;
  };
  if (!j.contains("oacs")) return Status::Invalid("nvme id-ctrl JSON has no \"oacs\" field");
  caps->nvme_probed = true;
  caps->nvme_format_supported = num("oacs") & 0x2;
  caps->nvme_crypto_erase = num("fna") & 0x4;
  caps->nvme_sanitize_crypto = num("sanicap") & 0x1;
  caps->nvme_sanitize_block = num("sanicap") & 0x2;
  caps->nvme_namespaces = static_cast<uint32_t>(num("nn"));
  return Status::Ok();
}

Result<SanitizeState> ParseSanitizeLog(const std::string& text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return Status::Invalid("nvme sanitize-log output is not JSON");
  // nvme-cli 1.x prints the fields at top level, 2.x under the device name.
  const nlohmann::json* log = &j;
  if (j.is_object() && !j.contains("sstat")) {
    for (auto& [k, v] : j.items()) {
      if (v.is_object() && v.contains("sstat")) {
        log = &v;
        break;
      }
    }
  }
  if (!log->is_object() || !log->contains("sstat") || !(*log)["sstat"].is_number()) {
    return Status::Invalid("nvme sanitize-log JSON has no \"sstat\" field");
  }
  SanitizeState s;
  s.status = static_cast<int>((*log)["sstat"].get<uint64_t>() & 0x7);
  if (log->contains("sprog") && (*log)["sprog"].is_number()) {
    s.progress = (*log)["sprog"].get<double>() / 65536.0;
  }
  return s;
}

PurgeCapabilities ProbePurgeCapabilities(const DeviceIdentity& id) {
  PurgeCapabilities caps;
  if (id.kind != "block" || !id.disk) return caps;
  const DiskIdentity& d = *id.disk;
  if (d.transport == Transport::kSata) {
    auto r = RunProcess({"hdparm", "-I", d.dev_path}, 60, "hdparm");
    if (!r.ok()) {
      caps.notes.push_back(r.status().message());
    } else {
      ParseHdparmSecurity(r->out, &caps);
      if (!caps.ata_probed)
        caps.notes.push_back("hdparm -I " + d.dev_path + " printed no Security section");
    }
  } else if (d.transport == Transport::kNvme) {
    auto r =
        RunProcess({"nvme", "id-ctrl", "/dev/" + d.nvme_controller, "-o", "json"}, 60, "nvme-cli");
    if (!r.ok()) {
      caps.notes.push_back(r.status().message());
    } else if (Status s = ParseNvmeIdCtrl(r->out, &caps); !s.ok()) {
      caps.notes.push_back("nvme id-ctrl /dev/" + d.nvme_controller + " failed: " +
                           std::string(Trim(r->err.substr(0, r->err.find('\n')), kSpaceOrNul)));
    }
  } else if (d.transport == Transport::kSas || d.transport == Transport::kScsi) {
    caps.sg_format_available = !FindTool("sg_format").empty();
    if (!caps.sg_format_available)
      caps.notes.push_back("sg_format not found; install sg3-utils (apt-get install sg3-utils)");
  }
  return caps;
}

Result<PurgePlan> BuildPurgePlan(const DeviceIdentity& id, const PurgeCapabilities& caps,
                                 PurgeMethod method) {
  PurgePlan p;
  p.target = id;
  p.requested = method;
  if (method == PurgeMethod::kNone)
    return Status::Invalid("--purge none: there is nothing to plan");
  SSDLAB_ASSIGN_OR_RETURN(method, ResolvePurgeMethod(method, id));
  const bool file = id.kind == "file";
  if (file) {
    if (method == PurgeMethod::kAuto || method == PurgeMethod::kDiscard)
      method = PurgeMethod::kPunchHole;
    if (method != PurgeMethod::kPunchHole && method != PurgeMethod::kZero) {
      return Unsupported(std::string(PurgeMethodName(method)) + " needs a block device; " +
                         id.path + " is a regular file (use --method discard or zero)");
    }
    p.method = method;
    p.steps.push_back(RangeStep(
        method == PurgeMethod::kZero ? PurgeStep::Kind::kZeroOut : PurgeStep::Kind::kPunchHole,
        id.resolved_path, id.size_bytes, true));
    return p;
  }
  if (!id.disk) return Status::Error(Code::kInternal, "block target without disk identity");
  const DiskIdentity& d = *id.disk;
  if (method == PurgeMethod::kPunchHole) {
    return Unsupported("punch-hole needs a regular file; " + id.path +
                       " is a block device (use --method discard)");
  }
  const bool discard = d.discard_max_bytes > 0;
  auto fallback = [&](const std::string& why) {
    if (!why.empty()) p.notes.push_back(why);
    return discard ? PurgeMethod::kDiscard : PurgeMethod::kZero;
  };
  if (method == PurgeMethod::kAuto) {
    if (!id.partition.empty()) {
      method = fallback(
          "a partition can only be discarded or zeroed; give the whole disk for a secure erase");
    } else if (d.transport == Transport::kNvme) {
      if (!caps.nvme_probed) {
        method = fallback(FirstNote(caps, "nvme") + "; cannot format or sanitize");
      } else if ((caps.nvme_sanitize_crypto || caps.nvme_sanitize_block) &&
                 caps.nvme_namespaces <= 1) {
        method = PurgeMethod::kNvmeSanitize;
      } else if (caps.nvme_format_supported) {
        method = PurgeMethod::kNvmeFormat;
      } else {
        method = fallback("the controller supports neither sanitize nor format");
      }
    } else if (d.transport == Transport::kSata) {
      if (AtaUsable(d, caps, true).ok()) {
        method = PurgeMethod::kAtaEnhanced;
      } else if (Status s = AtaUsable(d, caps, false); s.ok()) {
        method = PurgeMethod::kAtaSecureErase;
      } else {
        method = fallback(s.message());
      }
    } else if (d.transport == Transport::kSas) {
      method = caps.sg_format_available ? PurgeMethod::kSasFormat
                                        : fallback(FirstNote(caps, "sg_format"));
    } else {
      method = fallback(std::string(TransportName(d.transport)) +
                        " devices have no secure erase; " + (discard ? "discarding" : "zeroing"));
    }
    p.notes.insert(p.notes.begin(), std::string("auto chose ") + PurgeMethodName(method) +
                                        " for a " + TransportName(d.transport) + " device");
  }
  p.method = method;
  switch (method) {
    case PurgeMethod::kAtaSecureErase:
    case PurgeMethod::kAtaEnhanced: {
      bool enhanced = method == PurgeMethod::kAtaEnhanced;
      SSDLAB_RETURN_IF_ERROR(NeedWholeDisk(id, method));
      SSDLAB_RETURN_IF_ERROR(NeedTransport(d, method, {Transport::kSata}));
      SSDLAB_RETURN_IF_ERROR(AtaUsable(d, caps, enhanced));
      p.whole_device = true;
      AddAtaSteps(d, caps, enhanced, &p);
      break;
    }
    case PurgeMethod::kSasFormat:
      SSDLAB_RETURN_IF_ERROR(NeedWholeDisk(id, method));
      SSDLAB_RETURN_IF_ERROR(NeedTransport(d, method, {Transport::kSas, Transport::kScsi}));
      if (!caps.sg_format_available) {
        return Unsupported("sg_format not found; install sg3-utils (apt-get install sg3-utils)");
      }
      p.whole_device = true;
      // --quick skips sg_format's 15 s pause (we confirmed already); it then polls to the end.
      p.steps.push_back(Command({"sg_format", "--format", "--quick", d.dev_path}, 24 * 3600));
      p.notes.push_back("a FORMAT UNIT may take hours on large drives; sg_format reports progress");
      break;
    case PurgeMethod::kNvmeFormat: {
      SSDLAB_RETURN_IF_ERROR(NeedWholeDisk(id, method));
      SSDLAB_RETURN_IF_ERROR(NeedTransport(d, method, {Transport::kNvme}));
      SSDLAB_RETURN_IF_ERROR(NvmeProbed(d, caps));
      if (!caps.nvme_format_supported)
        return Unsupported(d.dev_path + " does not support the NVMe Format command");
      int ses = caps.nvme_crypto_erase ? 2 : 1;
      std::vector<std::string> argv = {"nvme", "format", d.dev_path,
                                       "--namespace-id=" + std::to_string(d.nvme_namespace_id),
                                       "--ses=" + std::to_string(ses)};
      uint32_t lbaf = CurrentLbaf(d);
      if (lbaf != UINT32_MAX) argv.push_back("--lbaf=" + std::to_string(lbaf));
      argv.push_back("--timeout=3600000");
      argv.push_back("--force");
      p.whole_device = true;
      p.steps.push_back(Command(argv, 2 * 3600));
      p.notes.push_back(ses == 2 ? "secure erase setting 2: cryptographic erase"
                                 : "secure erase setting 1: user data erase");
      if (lbaf == UINT32_MAX)
        p.notes.push_back("current LBA format unknown (needs root); nvme-cli keeps its default");
      break;
    }
    case PurgeMethod::kNvmeSanitize: {
      SSDLAB_RETURN_IF_ERROR(NeedWholeDisk(id, method));
      SSDLAB_RETURN_IF_ERROR(NeedTransport(d, method, {Transport::kNvme}));
      SSDLAB_RETURN_IF_ERROR(NvmeProbed(d, caps));
      if (!caps.nvme_sanitize_crypto && !caps.nvme_sanitize_block) {
        return Unsupported(
            d.dev_path +
            " does not support NVMe sanitize (SANICAP is 0); use --method nvme-format");
      }
      std::string ctrl = "/dev/" + d.nvme_controller;
      int sanact = caps.nvme_sanitize_crypto ? 4 : 2;
      p.whole_device = true;
      p.steps.push_back(
          Command({"nvme", "sanitize", ctrl, "--sanact=" + std::to_string(sanact)}, 120));
      PurgeStep wait;
      wait.kind = PurgeStep::Kind::kWaitSanitize;
      wait.path = ctrl;
      wait.argv = {"nvme", "sanitize-log", ctrl, "-o", "json"};
      wait.timeout_s = 4 * 3600;
      wait.text = "nvme sanitize-log " + ctrl +
                  " -o json  (repeated until sanitize completes, at most 4 h)";
      p.steps.push_back(wait);
      p.notes.push_back(sanact == 4 ? "sanitize action 4: crypto erase"
                                    : "sanitize action 2: block erase");
      p.notes.push_back("sanitize erases every namespace of controller " + d.nvme_controller);
      break;
    }
    case PurgeMethod::kDiscard:
      if (!discard) {
        return Unsupported(
            d.dev_path +
            " does not support discard (queue/discard_max_bytes is 0); use --method zero");
      }
      p.whole_device = id.partition.empty();
      p.steps.push_back(
          RangeStep(PurgeStep::Kind::kDiscard, id.resolved_path, id.size_bytes, false));
      p.notes.push_back(
          "discard tells the device the blocks are free; it need not make old data unreadable");
      break;
    case PurgeMethod::kZero:
      p.whole_device = id.partition.empty();
      p.steps.push_back(
          RangeStep(PurgeStep::Kind::kZeroOut, id.resolved_path, id.size_bytes, false));
      if (!d.write_zeroes_max_bytes)
        p.notes.push_back("the device has no Write Zeroes; the kernel writes zeros (slow)");
      break;
    default:
      return Status::Error(Code::kInternal, "unhandled purge method");
  }
  return p;
}

Result<PurgePlan> PlanPurge(const std::string& path, PurgeMethod method) {
  SSDLAB_ASSIGN_OR_RETURN(DeviceIdentity id, IdentifyTarget(path));
  SSDLAB_ASSIGN_OR_RETURN(method, ResolvePurgeMethod(method, id));
  PurgeCapabilities caps;
  if (method == PurgeMethod::kAuto || method == PurgeMethod::kAtaSecureErase ||
      method == PurgeMethod::kAtaEnhanced || method == PurgeMethod::kSasFormat ||
      method == PurgeMethod::kNvmeFormat || method == PurgeMethod::kNvmeSanitize) {
    caps = ProbePurgeCapabilities(id);
  }
  return BuildPurgePlan(id, caps, method);
}

namespace {

// Every namespace block device of an NVMe controller ("nvme0" -> /dev/nvme0n1, ...).
std::vector<std::string> ControllerNamespaces(const std::string& ctrl) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/sys/block", ec)) {
    std::string n = e.path().filename().string();
    if (n.rfind(ctrl + "n", 0) == 0) out.push_back("/dev/" + n);
  }
  return out;
}

// Refused up front when the target cannot be written (a read-only file, filesystem or device):
// a purge must not start what it cannot finish.
Status CheckWritable(const DeviceIdentity& id) {
  if (id.kind == "block" && id.disk && id.disk->read_only)
    return Status::Refused(id.path + " is a read-only block device; it cannot be purged");
  if (access(id.resolved_path.c_str(), W_OK) != 0)
    return Status::Refused(id.path + " is read-only (" + std::strerror(errno) +
                           "); it cannot be purged");
  int fd = open(id.resolved_path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0 && (errno == EROFS || errno == EACCES || errno == EPERM))
    return Status::Refused(id.path + " is read-only (" + std::strerror(errno) +
                           "); it cannot be purged");
  if (fd >= 0) close(fd);
  return Status::Ok();
}

Status RunRange(const PurgeStep& step, const PurgeOptions& o, bool file) {
  int flags = O_RDWR | O_CLOEXEC | (file ? 0 : O_EXCL);
  int fd = open(step.path.c_str(), flags);
  if (fd < 0) {
    int e = errno;
    if (e == EBUSY)
      return Status::Refused(step.path + " is in use (exclusive open failed); refusing to purge");
    return Status::Io("cannot open " + step.path + " for writing: " + std::strerror(e));
  }
  uint64_t end = step.offset_bytes + step.length_bytes;
  uint64_t chunk = file ? step.length_bytes : kChunkBytes;
  for (uint64_t off = step.offset_bytes; off < end;) {
    if (o.stop && o.stop->load()) {
      close(fd);
      return Status::Error(Code::kInterrupted, "interrupted after " + std::to_string(off) + " of " +
                                                   std::to_string(end) + " bytes");
    }
    uint64_t len = std::min(chunk, end - off);
    int rc = 0;
    const char* what = "";
    if (file) {
      int mode = step.kind == PurgeStep::Kind::kZeroOut
                     ? FALLOC_FL_ZERO_RANGE
                     : (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE);
      what = step.kind == PurgeStep::Kind::kZeroOut ? "fallocate(ZERO_RANGE)"
                                                    : "fallocate(PUNCH_HOLE)";
      rc = fallocate(fd, mode, static_cast<off_t>(off), static_cast<off_t>(len));
    } else {
      uint64_t range[2] = {off, len};
      bool discard = step.kind == PurgeStep::Kind::kDiscard;
      what = discard ? "BLKDISCARD" : "BLKZEROOUT";
      rc = ioctl(fd, discard ? BLKDISCARD : BLKZEROOUT, range);
    }
    if (rc != 0) {
      int e = errno;
      close(fd);
      std::string why = std::strerror(e);
      if (e == EOPNOTSUPP)
        why = file ? "the filesystem does not support it" : "the device does not support it";
      return Status::Io(std::string(what) + " on " + step.path + " at byte " + std::to_string(off) +
                        " failed: " + why);
    }
    off += len;
  }
  if (file && fsync(fd) != 0) {
    int e = errno;
    close(fd);
    return Status::Io("fsync " + step.path + ": " + std::strerror(e));
  }
  close(fd);
  return Status::Ok();
}

Status RunCommand(const PurgeStep& step) {
  SSDLAB_ASSIGN_OR_RETURN(ProcessResult r,
                          RunProcess(step.argv, step.timeout_s, PackageOf(step.argv[0])));
  if (r.exit_code != 0) {
    std::string msg(Trim(r.err.empty() ? r.out : r.err, kSpaceOrNul));
    msg = msg.substr(0, msg.find('\n'));
    return Status::Io(step.argv[0] + " exited with " + std::to_string(r.exit_code) +
                      (msg.empty() ? "" : ": " + msg));
  }
  return Status::Ok();
}

Status WaitSanitize(const PurgeStep& step, const PurgeOptions& o) {
  auto start = std::chrono::steady_clock::now();
  int in_progress_seen = 0;
  for (;;) {
    SSDLAB_ASSIGN_OR_RETURN(ProcessResult r, RunProcess(step.argv, 60, "nvme-cli"));
    if (r.exit_code != 0)
      return Status::Io("nvme sanitize-log " + step.path +
                        " failed: " + std::string(Trim(r.err, kSpaceOrNul)));
    SSDLAB_ASSIGN_OR_RETURN(SanitizeState s, ParseSanitizeLog(r.out));
    if (s.status == 1 || s.status == 4) return Status::Ok();
    if (s.status == 3) return Status::Io("the controller reports the sanitize operation failed");
    if (s.status == 2) {
      ++in_progress_seen;
      if (o.on_progress)
        o.on_progress("sanitize " + std::to_string(static_cast<int>(s.progress * 100)) + "% done");
    }
    auto elapsed = std::chrono::steady_clock::now() - start;
    if (elapsed > std::chrono::seconds(step.timeout_s)) {
      return Status::Io("sanitize did not complete within " + std::to_string(step.timeout_s) +
                        " s; it continues in the drive (check nvme sanitize-log " + step.path +
                        ")");
    }
    if (o.stop && o.stop->load()) {
      return Status::Error(
          Code::kInterrupted,
          "stopped waiting; the sanitize continues in the drive (check nvme sanitize-log " +
              step.path + ")");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(o.poll_interval_ms));
  }
}

Status CheckAtaUnlocked(const PurgeStep& step) {
  SSDLAB_ASSIGN_OR_RETURN(ProcessResult r, RunProcess(step.argv, step.timeout_s, "hdparm"));
  PurgeCapabilities caps;
  ParseHdparmSecurity(r.out, &caps);
  if (!caps.ata_probed)
    return Status::Io("hdparm -I " + step.path + " printed no Security section after the erase");
  if (caps.ata_security_enabled || caps.ata_locked) {
    return Status::Io("the erase returned but ATA security is still enabled on " + step.path +
                      "; disable it with hdparm --user-master u --security-disable " +
                      kAtaPassword + " " + step.path);
  }
  return Status::Ok();
}

}  // namespace

Status CheckPurgeAllowed(const PurgePlan& plan, const PurgeOptions& o) {
  const DeviceIdentity& was = plan.target;
  auto now = IdentifyTarget(was.path);
  if (!now.ok()) return now.status();
  if (now->resolved_path != was.resolved_path || now->kind != was.kind ||
      (was.disk && (!now->disk || now->disk->devno != was.disk->devno ||
                    now->disk->serial != was.disk->serial))) {
    return Status::Refused(was.path + " changed since the purge was planned; plan again");
  }
  SSDLAB_RETURN_IF_ERROR(CheckWritable(was));
  if (was.kind == "file") {
    SSDLAB_RETURN_IF_ERROR(CheckFileWritable(was.resolved_path, o.destructive));
    if (!o.destructive) {
      return Status::Refused("purging destroys the data of " + DescribeTarget(was) +
                             "; pass --destructive to allow it");
    }
    return Status::Ok();
  }
  const DiskIdentity& d = *was.disk;
  std::vector<std::string> check;
  if (plan.method == PurgeMethod::kNvmeSanitize) {
    check = ControllerNamespaces(d.nvme_controller);
  } else {
    check.push_back(plan.whole_device ? d.dev_path : was.resolved_path);
  }
  for (const std::string& dev : check) SSDLAB_RETURN_IF_ERROR(CheckBlockDeviceNotInUse(dev));
  if (!o.destructive) {
    auto sig = ProbeSignature(was.resolved_path);
    std::string holds = sig.ok() && !sig->empty() ? " (it holds " + sig.value() + ")" : "";
    return Status::Refused(std::string(PurgeMethodName(plan.method)) + " destroys all data on " +
                           DescribeTarget(was) + holds +
                           "; pass --destructive and --confirm to allow it");
  }
  return CheckConfirmation(was, o.confirm);
}

Status ExecutePurge(const PurgePlan& plan, const PurgeOptions& o) {
  SSDLAB_RETURN_IF_ERROR(CheckPurgeAllowed(plan, o));
  const bool file = plan.target.kind == "file";
  bool ata_password_set = false;
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const PurgeStep& step = plan.steps[i];
    if (o.on_progress)
      o.on_progress("step " + std::to_string(i + 1) + "/" + std::to_string(plan.steps.size()) +
                    ": " + step.text);
    Status s;
    switch (step.kind) {
      case PurgeStep::Kind::kCommand:
        s = RunCommand(step);
        break;
      case PurgeStep::Kind::kDiscard:
      case PurgeStep::Kind::kZeroOut:
      case PurgeStep::Kind::kPunchHole:
        s = RunRange(step, o, file);
        break;
      case PurgeStep::Kind::kWaitSanitize:
        s = WaitSanitize(step, o);
        break;
      case PurgeStep::Kind::kCheckAtaUnlocked:
        s = CheckAtaUnlocked(step);
        break;
    }
    if (s.ok()) {
      if (step.kind == PurgeStep::Kind::kCommand && step.argv.size() > 3 &&
          step.argv[3] == "--security-set-pass") {
        ata_password_set = true;
      }
      continue;
    }
    std::string where = "purge (" + std::string(PurgeMethodName(plan.method)) + ") of " +
                        plan.target.path + " incomplete: step " + std::to_string(i + 1) + " of " +
                        std::to_string(plan.steps.size()) + " failed: " + s.message();
    if (ata_password_set) {
      PurgeStep disable = Command({"hdparm", "--user-master", "u", "--security-disable",
                                   kAtaPassword, plan.target.disk->dev_path},
                                  60);
      bool cleared = RunCommand(disable).ok();
      where += cleared ? " (the temporary ATA password was removed)"
                       : "; the drive may still hold the ATA password '" +
                             std::string(kAtaPassword) + "': " + disable.text;
    }
    if (i > 0 || step.kind != PurgeStep::Kind::kCommand)
      where += "; the target may be partly erased";
    Code code = s.code() == Code::kInterrupted  ? Code::kInterrupted
                : s.code() == Code::kPermission ? Code::kPermission
                                                : Code::kIoError;
    return Status::Error(code, where);
  }
  return Status::Ok();
}

}  // namespace ssdlab
