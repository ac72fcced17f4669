// Purge and preparation: returning a drive to a fresh-out-of-box state before a test (SNIA PTS
// "purge"), or at least discarding or zeroing what a test wrote. A plan is the exact list of
// commands and ioctls; planning only reads (sysfs, `hdparm -I`, `nvme id-ctrl`), executing
// destroys data and passes every safety check first.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "device/identify.h"

namespace ssdlab {

// Every purge method, in one enum with one table of spellings (purge.cc): the device methods
// `ssdlab purge --method` takes, and the transport-neutral names the battery's and the
// profiles' `--purge` takes, which a plan resolves by the drive's transport
// (ResolvePurgeMethod).
enum class PurgeMethod {
  kAuto,            // the strongest method the target supports (see BuildPurgePlan)
  kAtaSecureErase,  // hdparm --security-erase (SATA)
  kAtaEnhanced,     // hdparm --security-erase-enhanced (SATA)
  kSasFormat,       // sg_format --format (SAS / SCSI)
  kNvmeFormat,      // nvme format --ses=1|2 (the namespace)
  kNvmeSanitize,    // nvme sanitize --sanact=4|2 (every namespace of the controller)
  kDiscard,         // BLKDISCARD over the range (on a file: punch-hole)
  kZero,            // BLKZEROOUT over the range (on a file: FALLOC_FL_ZERO_RANGE)
  kPunchHole,       // fallocate(FALLOC_FL_PUNCH_HOLE) over a regular file
  kSecureErase,     // --purge secure-erase: kAtaEnhanced on a SATA drive
  kFormat,          // --purge format: kSasFormat on SAS / SCSI, kNvmeFormat on NVMe
  kSanitize,        // --purge sanitize: kNvmeSanitize on NVMe
  kNone,            // --purge none: the battery does not purge
};
// The spelling of m: "auto", "ata-secure-erase", "ata-enhanced", "secure-erase", "sas-format",
// "nvme-format", "format", "nvme-sanitize", "sanitize", "discard", "zero", "punch-hole", "none".
const char* PurgeMethodName(PurgeMethod m);
// `ssdlab purge --method`: the device methods (auto, ata-secure-erase, ata-enhanced,
// sas-format, nvme-format, nvme-sanitize, discard, zero, punch-hole); Invalid listing them.
Result<PurgeMethod> ParsePurgeMethod(std::string_view name);
// The battery's and the profiles' `flag` (--purge): auto, secure-erase, format, sanitize,
// discard, none; Invalid naming the flag and listing them.
Result<PurgeMethod> ParsePurgeFlag(const std::string& flag, std::string_view text);
// The spellings joined by `sep`, for help texts: --purge's ("auto|secure-erase|...|none") and
// `ssdlab purge --method`'s ("auto|ata-secure-erase|...|punch-hole").
std::string PurgeFlagNames(std::string_view sep);
std::string PurgeMethodNames(std::string_view sep);
// Either spelling (a backend's Purge takes both): Invalid for any other.
Result<PurgeMethod> ParseAnyPurgeMethod(std::string_view name);
// A transport-neutral method (kSecureErase, kFormat, kSanitize) as the method of the drive's
// transport, any other unchanged; kUnsupported naming the target when its transport has none.
Result<PurgeMethod> ResolvePurgeMethod(PurgeMethod m, const DeviceIdentity& id);

// What the target supports, as probed by ProbePurgeCapabilities. Plain data so that method
// choice is testable without hardware.
struct PurgeCapabilities {
  // ATA security feature set, from `hdparm -I` (sata only).
  bool ata_probed = false;  // hdparm ran and printed a Security section
  bool ata_security_supported = false;
  bool ata_enhanced_supported = false;
  bool ata_security_enabled = false;  // a user password is set
  bool ata_locked = false;
  bool ata_frozen = false;
  uint32_t ata_erase_min = 0;           // drive's estimate for SECURITY ERASE UNIT
  uint32_t ata_enhanced_erase_min = 0;  // and for the enhanced erase
  // NVMe, from `nvme id-ctrl -o json` (nvme only).
  bool nvme_probed = false;
  bool nvme_format_supported = false;  // OACS bit 1
  bool nvme_crypto_erase = false;      // FNA bit 2: format can erase cryptographically
  bool nvme_sanitize_crypto = false;   // SANICAP bit 0
  bool nvme_sanitize_block = false;    // SANICAP bit 1
  uint32_t nvme_namespaces = 0;        // NN
  // SCSI.
  bool sg_format_available = false;
  // Why a probe could not run, e.g. "hdparm not found; install hdparm (apt-get install hdparm)".
  std::vector<std::string> notes;
};

// Parsers of the tools' output, for ProbePurgeCapabilities and tests.
void ParseHdparmSecurity(const std::string& hdparm_i_output, PurgeCapabilities* caps);
Status ParseNvmeIdCtrl(const std::string& json_text, PurgeCapabilities* caps);
// Sanitize Status (SSTAT bits 2:0) from `nvme sanitize-log -o json`: 0 never sanitized,
// 1 completed, 2 in progress, 3 failed, 4 completed without deallocation. `progress` is
// SPROG / 65536 while in progress.
struct SanitizeState {
  int status = 0;
  double progress = 0;
};
Result<SanitizeState> ParseSanitizeLog(const std::string& json_text);

struct PurgeStep {
  enum class Kind {
    kCommand,           // run argv; success is exit 0
    kDiscard,           // ioctl(BLKDISCARD) over [offset, offset + length) of path
    kZeroOut,           // ioctl(BLKZEROOUT), or FALLOC_FL_ZERO_RANGE on a file
    kPunchHole,         // fallocate(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE)
    kWaitSanitize,      // poll `nvme sanitize-log path` until done, failed or timeout_s
    kCheckAtaUnlocked,  // `hdparm -I path` must show security "not enabled" afterwards
  };
  Kind kind = Kind::kCommand;
  std::vector<std::string> argv;
  std::string path;
  uint64_t offset_bytes = 0;
  uint64_t length_bytes = 0;
  uint64_t timeout_s = 0;  // 0: none
  std::string text;        // exactly what runs, as printed by --dry-run
};

struct PurgePlan {
  DeviceIdentity target;
  PurgeMethod requested = PurgeMethod::kAuto;
  PurgeMethod method = PurgeMethod::kAuto;  // resolved, never kAuto
  bool whole_device = false;  // erases the whole disk (or, for nvme-sanitize, all namespaces)
  std::vector<PurgeStep> steps;
  std::vector<std::string> notes;  // why this method; caveats
};

// Runs the read-only probes for the target's transport (`hdparm -I`, `nvme id-ctrl`). A
// missing tool is a note, not an error.
PurgeCapabilities ProbePurgeCapabilities(const DeviceIdentity& id);

// Chooses and spells out the method. kAuto picks, strongest first: files punch-hole; NVMe
// sanitize (crypto, else block erase; single-namespace controllers only), else format (crypto
// erase, else user-data erase), else discard, else zero; SATA enhanced, else normal secure
// erase (not when frozen, locked or a password is set), else discard, else zero; SAS
// sg_format, else discard, else zero; anything else and partitions discard, else zero.
// An explicit method the target cannot do is kUnsupported (or kInvalidArgument for a
// whole-device method on a partition), naming why: frozen ATA security, a missing tool, no
// discard support...
Result<PurgePlan> BuildPurgePlan(const DeviceIdentity& id, const PurgeCapabilities& caps,
                                 PurgeMethod method);

// IdentifyTarget + ProbePurgeCapabilities + BuildPurgePlan.
Result<PurgePlan> PlanPurge(const std::string& path, PurgeMethod method);

struct PurgeOptions {
  bool destructive = false;  // --destructive: required for every purge
  std::string confirm;       // --confirm: must match the disk (CheckConfirmation); files need none
  const std::atomic<bool>* stop = nullptr;              // checked between 1 GiB chunks of ioctls
  uint64_t poll_interval_ms = 5000;                     // kWaitSanitize polling
  std::function<void(const std::string&)> on_progress;  // each step's text as it starts
};

// Checks that run before anything is destroyed: the target is unchanged since planning (same
// device number and serial), not mounted, swap or held (the whole disk for whole-device
// methods, every namespace for sanitize), --destructive was given (naming any signature found)
// and --confirm matches. Refused otherwise.
Status CheckPurgeAllowed(const PurgePlan& plan, const PurgeOptions& options);

// CheckPurgeAllowed, then every step in order. Ok only when every step succeeded; a failure
// after the first destructive step says the target is partly purged and in an unknown state.
Status ExecutePurge(const PurgePlan& plan, const PurgeOptions& options);

}  // namespace ssdlab
