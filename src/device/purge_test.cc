#include "device/purge.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace ssdlab {
namespace {

DeviceIdentity Disk(const std::string& name, Transport t, uint64_t discard_max = 1 << 30) {
  DeviceIdentity id;
  id.path = id.resolved_path = "/dev/" + name;
  id.kind = "block";
  id.size_bytes = 1ull << 36;
  DiskIdentity d;
  d.name = name;
  d.dev_path = "/dev/" + name;
  d.transport = t;
  d.capacity_bytes = id.size_bytes;
  d.discard_max_bytes = discard_max;
  d.model = "Model X";
  d.serial = "SER123";
  if (t == Transport::kNvme) {
    d.nvme_controller = "nvme0";
    d.nvme_namespace_id = 1;
    d.nvme_lba_formats = {{0, 512, 0, 0, false}, {1, 4096, 0, 0, true}};
  }
  id.disk = d;
  return id;
}

std::string Steps(const PurgePlan& p) {
  std::string s;
  for (const PurgeStep& st : p.steps) s += st.text + "\n";
  return s;
}

bool HasNote(const PurgePlan& p, const std::string& text) {
  return std::any_of(p.notes.begin(), p.notes.end(),
                     [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

PurgeCapabilities SataCaps(bool frozen) {
  PurgeCapabilities c;
  c.ata_probed = true;
  c.ata_security_supported = true;
  c.ata_enhanced_supported = true;
  c.ata_frozen = frozen;
  c.ata_erase_min = 2;
  c.ata_enhanced_erase_min = 4;
  return c;
}

TEST(ParsePurgeMethod, NamesRoundTrip) {
  for (const char* n : {"auto", "ata-secure-erase", "ata-enhanced", "sas-format", "nvme-format",
                        "nvme-sanitize", "discard", "zero", "punch-hole"}) {
    auto m = ParsePurgeMethod(n);
    ASSERT_TRUE(m.ok()) << n;
    EXPECT_STREQ(PurgeMethodName(m.value()), n);
  }
  auto bad = ParsePurgeMethod("shred");
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("nvme-sanitize"), std::string::npos);
}

// The one PurgeMethod: each spelling is one method, taken by `purge --method` (device), by
// --purge (flag), or both; the flag's transport-neutral names resolve by the drive's transport.
TEST(PurgeMethod, EachSpellingIsOneMethodOfItsCommands) {
  using M = PurgeMethod;
  struct Spelling {
    const char* name;
    M method;
    bool device, flag;
  };
  for (const Spelling& s :
       std::vector<Spelling>{{"auto", M::kAuto, true, true},
                             {"ata-secure-erase", M::kAtaSecureErase, true, false},
                             {"ata-enhanced", M::kAtaEnhanced, true, false},
                             {"sas-format", M::kSasFormat, true, false},
                             {"nvme-format", M::kNvmeFormat, true, false},
                             {"nvme-sanitize", M::kNvmeSanitize, true, false},
                             {"discard", M::kDiscard, true, true},
                             {"zero", M::kZero, true, false},
                             {"punch-hole", M::kPunchHole, true, false},
                             {"secure-erase", M::kSecureErase, false, true},
                             {"format", M::kFormat, false, true},
                             {"sanitize", M::kSanitize, false, true},
                             {"none", M::kNone, false, true}}) {
    EXPECT_STREQ(PurgeMethodName(s.method), s.name);
    ASSERT_TRUE(ParseAnyPurgeMethod(s.name).ok()) << s.name;
    EXPECT_EQ(ParseAnyPurgeMethod(s.name).value(), s.method) << s.name;
    EXPECT_EQ(ParsePurgeMethod(s.name).ok(), s.device) << s.name;
    EXPECT_EQ(ParsePurgeFlag("--purge", s.name).ok(), s.flag) << s.name;
    if (s.flag) {
      EXPECT_EQ(ParsePurgeFlag("--purge", s.name).value(), s.method) << s.name;
    }
  }
  EXPECT_EQ(PurgeFlagNames("|"), "auto|secure-erase|format|sanitize|discard|none");
  EXPECT_EQ(PurgeMethodNames("|"),
            "auto|ata-secure-erase|ata-enhanced|sas-format|nvme-format|nvme-sanitize|discard|"
            "zero|punch-hole");
  auto bad = ParsePurgeFlag("--purge", "zero");
  EXPECT_EQ(bad.status().message(),
            "--purge: unknown method 'zero' (auto, secure-erase, format, sanitize, discard, none)");
  EXPECT_FALSE(ParseAnyPurgeMethod("shred").ok());
}

TEST(PurgeMethod, FlagNamesResolveByTransport) {
  using M = PurgeMethod;
  const DeviceIdentity sata = Disk("sda", Transport::kSata), sas = Disk("sdb", Transport::kSas),
                       nvme = Disk("nvme0n1", Transport::kNvme);
  EXPECT_EQ(ResolvePurgeMethod(M::kSecureErase, sata).value(), M::kAtaEnhanced);
  EXPECT_EQ(ResolvePurgeMethod(M::kFormat, sas).value(), M::kSasFormat);
  EXPECT_EQ(ResolvePurgeMethod(M::kFormat, nvme).value(), M::kNvmeFormat);
  EXPECT_EQ(ResolvePurgeMethod(M::kSanitize, nvme).value(), M::kNvmeSanitize);
  for (M m : {M::kAuto, M::kDiscard, M::kZero, M::kAtaSecureErase, M::kNone})
    EXPECT_EQ(ResolvePurgeMethod(m, sata).value(), m) << PurgeMethodName(m);
  auto refused = ResolvePurgeMethod(M::kFormat, sata);
  EXPECT_EQ(refused.status().code(), Code::kUnsupported);
  EXPECT_EQ(refused.status().message(),
            "--purge format needs a SAS or NVMe drive; /dev/sda is sata");
  EXPECT_EQ(ResolvePurgeMethod(M::kSanitize, sas).status().message(),
            "--purge sanitize needs an NVMe drive; /dev/sdb is sas");
  EXPECT_EQ(ResolvePurgeMethod(M::kSecureErase, nvme).status().message(),
            "--purge secure-erase is an ATA method; /dev/nvme0n1 is nvme");
  // A plan of a flag name is the resolved method's plan.
  PurgeCapabilities c;
  c.nvme_probed = c.nvme_format_supported = true;
  c.nvme_namespaces = 1;
  auto p = BuildPurgePlan(nvme, c, M::kFormat);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->method, M::kNvmeFormat);
  EXPECT_FALSE(BuildPurgePlan(nvme, {}, M::kNone).ok());
}

TEST(BuildPurgePlan, FileIsPunchHole) {
  DeviceIdentity f;
  f.path = f.resolved_path = "/data/f";
  f.kind = "file";
  f.size_bytes = 4096;
  for (PurgeMethod m : {PurgeMethod::kAuto, PurgeMethod::kDiscard, PurgeMethod::kPunchHole}) {
    auto p = BuildPurgePlan(f, {}, m);
    ASSERT_TRUE(p.ok()) << p.status().message();
    EXPECT_EQ(p->method, PurgeMethod::kPunchHole);
    EXPECT_NE(Steps(p.value()).find("FALLOC_FL_PUNCH_HOLE"), std::string::npos);
    EXPECT_NE(Steps(p.value()).find("[0, 4096)"), std::string::npos);
  }
  EXPECT_EQ(BuildPurgePlan(f, {}, PurgeMethod::kNvmeFormat).status().code(), Code::kUnsupported);
}

TEST(BuildPurgePlan, NvmePrefersSanitizeThenFormat) {
  DeviceIdentity id = Disk("nvme0n1", Transport::kNvme);
  PurgeCapabilities c{.nvme_probed = true,
                      .nvme_format_supported = true,
                      .nvme_crypto_erase = true,
                      .nvme_sanitize_crypto = true,
                      .nvme_namespaces = 1};
  auto p = BuildPurgePlan(id, c, PurgeMethod::kAuto);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->method, PurgeMethod::kNvmeSanitize);
  EXPECT_TRUE(p->whole_device);
  EXPECT_EQ(p->steps.size(), 2u);
  EXPECT_EQ(p->steps[0].text, "nvme sanitize /dev/nvme0 --sanact=4");
  EXPECT_EQ(p->steps[1].kind, PurgeStep::Kind::kWaitSanitize);

  c.nvme_sanitize_crypto = false;
  p = BuildPurgePlan(id, c, PurgeMethod::kAuto);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->method, PurgeMethod::kNvmeFormat);
  EXPECT_EQ(p->steps[0].text,
            "nvme format /dev/nvme0n1 --namespace-id=1 --ses=2 --lbaf=1 --timeout=3600000 --force");
  c.nvme_crypto_erase = false;
  p = BuildPurgePlan(id, c, PurgeMethod::kNvmeFormat);
  ASSERT_TRUE(p.ok());
  EXPECT_NE(p->steps[0].text.find("--ses=1"), std::string::npos);
  auto s = BuildPurgePlan(id, c, PurgeMethod::kNvmeSanitize);
  EXPECT_EQ(s.status().code(), Code::kUnsupported);
  EXPECT_NE(s.status().message().find("SANICAP"), std::string::npos);
}

TEST(BuildPurgePlan, NvmeWithoutNvmeCliFallsBackWithANote) {
  DeviceIdentity id = Disk("nvme0n1", Transport::kNvme);
  PurgeCapabilities c;
  c.notes.push_back("nvme not found; install nvme-cli (apt-get install nvme-cli)");
  auto p = BuildPurgePlan(id, c, PurgeMethod::kAuto);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->method, PurgeMethod::kDiscard);
  EXPECT_TRUE(HasNote(p.value(), "nvme-cli"));
  auto f = BuildPurgePlan(id, c, PurgeMethod::kNvmeFormat);
  EXPECT_EQ(f.status().code(), Code::kUnsupported);
  EXPECT_NE(f.status().message().find("apt-get install nvme-cli"), std::string::npos);
}

TEST(BuildPurgePlan, SataSecureErase) {
  DeviceIdentity id = Disk("sdb", Transport::kSata);
  auto p = BuildPurgePlan(id, SataCaps(false), PurgeMethod::kAuto);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->method, PurgeMethod::kAtaEnhanced);
  EXPECT_EQ(Steps(p.value()),
            "hdparm --user-master u --security-set-pass ssdlab /dev/sdb\n"
            "hdparm --user-master u --security-erase-enhanced ssdlab /dev/sdb\n"
            "hdparm -I /dev/sdb  (security must be 'not enabled' afterwards)\n");
  EXPECT_GE(p->steps[1].timeout_s, 4u * 60);
  auto n = BuildPurgePlan(id, SataCaps(false), PurgeMethod::kAtaSecureErase);
  ASSERT_TRUE(n.ok());
  EXPECT_NE(Steps(n.value()).find("--security-erase ssdlab"), std::string::npos);
}

TEST(BuildPurgePlan, FrozenSataIsRefusedOrFallsBack) {
  DeviceIdentity id = Disk("sdb", Transport::kSata);
  auto e = BuildPurgePlan(id, SataCaps(true), PurgeMethod::kAtaSecureErase);
  EXPECT_EQ(e.status().code(), Code::kUnsupported);
  EXPECT_NE(e.status().message().find("frozen"), std::string::npos);
  EXPECT_NE(e.status().message().find("suspend"), std::string::npos);
  auto a = BuildPurgePlan(id, SataCaps(true), PurgeMethod::kAuto);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->method, PurgeMethod::kDiscard);
  EXPECT_TRUE(HasNote(a.value(), "frozen"));
  PurgeCapabilities no_enh = SataCaps(false);
  no_enh.ata_enhanced_supported = false;
  EXPECT_EQ(BuildPurgePlan(id, no_enh, PurgeMethod::kAuto)->method, PurgeMethod::kAtaSecureErase);
  EXPECT_EQ(BuildPurgePlan(id, no_enh, PurgeMethod::kAtaEnhanced).status().code(),
            Code::kUnsupported);
}

TEST(BuildPurgePlan, SasFormat) {
  DeviceIdentity id = Disk("sdc", Transport::kSas);
  PurgeCapabilities c;
  c.sg_format_available = true;
  auto p = BuildPurgePlan(id, c, PurgeMethod::kAuto);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->method, PurgeMethod::kSasFormat);
  EXPECT_EQ(p->steps[0].text, "sg_format --format --quick /dev/sdc");
  c.sg_format_available = false;
  EXPECT_NE(BuildPurgePlan(id, c, PurgeMethod::kSasFormat).status().message().find("sg3-utils"),
            std::string::npos);
}

TEST(BuildPurgePlan, VirtualDevicesDiscardOrZero) {
  auto p = BuildPurgePlan(Disk("loop3", Transport::kLoop), {}, PurgeMethod::kAuto);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->method, PurgeMethod::kDiscard);
  EXPECT_EQ(p->steps[0].kind, PurgeStep::Kind::kDiscard);
  EXPECT_NE(p->steps[0].text.find("BLKDISCARD"), std::string::npos);
  DeviceIdentity nodiscard = Disk("vdb", Transport::kVirtio, 0);
  p = BuildPurgePlan(nodiscard, {}, PurgeMethod::kAuto);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->method, PurgeMethod::kZero);
  auto d = BuildPurgePlan(nodiscard, {}, PurgeMethod::kDiscard);
  EXPECT_EQ(d.status().code(), Code::kUnsupported);
  EXPECT_NE(d.status().message().find("--method zero"), std::string::npos);
  EXPECT_EQ(BuildPurgePlan(Disk("loop3", Transport::kLoop), {}, PurgeMethod::kAtaSecureErase)
                .status()
                .code(),
            Code::kUnsupported);
  EXPECT_EQ(
      BuildPurgePlan(Disk("loop3", Transport::kLoop), {}, PurgeMethod::kPunchHole).status().code(),
      Code::kUnsupported);
}

TEST(BuildPurgePlan, PartitionsOnlyDiscardOrZero) {
  DeviceIdentity id = Disk("sdb", Transport::kSata);
  id.partition = "sdb1";
  id.resolved_path = "/dev/sdb1";
  id.size_bytes = 1 << 20;
  auto e = BuildPurgePlan(id, SataCaps(false), PurgeMethod::kAtaSecureErase);
  EXPECT_EQ(e.status().code(), Code::kInvalidArgument);
  EXPECT_NE(e.status().message().find("give /dev/sdb"), std::string::npos);
  auto a = BuildPurgePlan(id, SataCaps(false), PurgeMethod::kAuto);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->method, PurgeMethod::kDiscard);
  EXPECT_FALSE(a->whole_device);
  EXPECT_EQ(a->steps[0].path, "/dev/sdb1");
  EXPECT_EQ(a->steps[0].length_bytes, 1u << 20);
}

TEST(ParseHdparmSecurity, NotFrozenAndFrozen) {
  const char* text =
      "ATA device, with non-removable media\n"
      "\tModel Number:       Samsung SSD 860 EVO 500GB\n"
      "Security: \n"
      "\tMaster password revision code = 65534\n"
      "\t\tsupported\n"
      "\tnot\tenabled\n"
      "\tnot\tlocked\n"
      "\tnot\tfrozen\n"
      "\tnot\texpired: security count\n"
      "\t\tsupported: enhanced erase\n"
      "\t2min for SECURITY ERASE UNIT. 8min for ENHANCED SECURITY ERASE UNIT.\n"
      "Logical Unit WWN Device Identifier: 5002538e40a22954\n";
  PurgeCapabilities c;
  ParseHdparmSecurity(text, &c);
  EXPECT_TRUE(c.ata_probed);
  EXPECT_TRUE(c.ata_security_supported);
  EXPECT_TRUE(c.ata_enhanced_supported);
  EXPECT_FALSE(c.ata_security_enabled);
  EXPECT_FALSE(c.ata_locked);
  EXPECT_FALSE(c.ata_frozen);
  EXPECT_EQ(c.ata_erase_min, 2u);
  EXPECT_EQ(c.ata_enhanced_erase_min, 8u);
  std::string frozen = text;
  frozen.replace(frozen.find("\tnot\tfrozen"), 11, "\t\tfrozen");
  PurgeCapabilities f;
  ParseHdparmSecurity(frozen, &f);
  EXPECT_TRUE(f.ata_frozen);
  PurgeCapabilities none;
  ParseHdparmSecurity("ATA device\n\tModel Number: X\n", &none);
  EXPECT_FALSE(none.ata_probed);
}

TEST(ParseHdparmSecurity, EraseTimesEachAsWritten) {
  PurgeCapabilities c;
  ParseHdparmSecurity("Security:\n\t\t120min for ENHANCED SECURITY ERASE UNIT.\n", &c);
  EXPECT_EQ(c.ata_erase_min, 0u);
  EXPECT_EQ(c.ata_enhanced_erase_min, 120u);
  PurgeCapabilities d;
  ParseHdparmSecurity("Security:\n\tmin for SECURITY ERASE UNIT. 7min for SECURITY ERASE\n", &d);
  EXPECT_EQ(d.ata_erase_min, 0u);  // no number, then no UNIT: neither is a time
  PurgeCapabilities e;
  ParseHdparmSecurity("Security:\n\t30min for SECURITY ERASE UNIT.\n", &e);
  EXPECT_EQ(e.ata_erase_min, 30u);
  EXPECT_EQ(e.ata_enhanced_erase_min, 0u);
}

TEST(ParseNvmeIdCtrl, Fields) {
  PurgeCapabilities c;
  ASSERT_TRUE(
      ParseNvmeIdCtrl(R"({"vid":5197,"sn":"S5GX","oacs":23,"fna":4,"sanicap":3,"nn":1})", &c).ok());
  EXPECT_TRUE(c.nvme_probed);
  EXPECT_TRUE(c.nvme_format_supported);
  EXPECT_TRUE(c.nvme_crypto_erase);
  EXPECT_TRUE(c.nvme_sanitize_crypto);
  EXPECT_TRUE(c.nvme_sanitize_block);
  EXPECT_EQ(c.nvme_namespaces, 1u);
  PurgeCapabilities d;
  EXPECT_FALSE(ParseNvmeIdCtrl("oops", &d).ok());
  EXPECT_FALSE(d.nvme_probed);
}

TEST(ParseSanitizeLog, BothNvmeCliShapes) {
  auto a = ParseSanitizeLog(R"({"nvme0":{"sprog":32768,"sstat":2,"cdw10_info":0}})");
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->status, 2);
  EXPECT_DOUBLE_EQ(a->progress, 0.5);
  auto b = ParseSanitizeLog(R"({"sprog":65535,"sstat":257})");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->status, 1);  // bits 2:0; bit 8 is "global data erased"
  EXPECT_FALSE(ParseSanitizeLog(R"({"x":1})").ok());
}

}  // namespace
}  // namespace ssdlab
