// The table of trace formats: each format's name, description, detection and reader in one
// entry; the readers are in format_NAME.cc.
#include "trace/formats.h"

namespace ssdlab::trace {

const std::vector<FormatDef>& Formats() {
  static const std::vector<FormatDef> kFormats = {
      {TraceFormat::kBlktrace, "blktrace", nullptr, "blktrace binary (*.blktrace.N, one per CPU)",
       IsBlktraceMagic, nullptr, OpenBlktrace},
      {TraceFormat::kBlkparse, "blkparse", nullptr, "blkparse's default text output", nullptr,
       IsBlkparseLine, OpenBlkparse},
      // "fio": either version, as the header line says.
      {TraceFormat::kFioV2, "fio-v2", "fio", "fio iolog version 2", nullptr, IsFioV2Line, OpenFio},
      {TraceFormat::kFioV3, "fio-v3", nullptr, "fio iolog version 3 (timestamps in us)", nullptr,
       IsFioV3Line, OpenFio},
      {TraceFormat::kMsr, "msr", nullptr, "SNIA IOTTA MSR Cambridge CSV", nullptr, IsMsrLine,
       OpenCsv<ParseMsrCsv>},
      {TraceFormat::kAlibaba, "alibaba", nullptr, "Alibaba Cloud block traces", nullptr,
       IsAlibabaLine, OpenCsv<ParseAlibabaCsv>},
      {TraceFormat::kTencent, "tencent", nullptr, "Tencent CBS", nullptr, IsTencentLine,
       OpenCsv<ParseTencentCsv>},
      {TraceFormat::kSpc, "spc", nullptr, "SPC / UMass (ASU,LBA,Size,Opcode,Timestamp)", nullptr,
       IsSpcLine, OpenCsv<ParseSpcCsv>},
  };
  return kFormats;
}

const FormatDef* FindFormat(TraceFormat f) {
  for (const FormatDef& d : Formats())
    if (d.format == f) return &d;
  return nullptr;
}

const char* TraceFormatName(TraceFormat f) {
  if (f == TraceFormat::kAuto) return "auto";
  const FormatDef* d = FindFormat(f);
  return d ? d->name : "?";
}

std::string TraceFormatNames() {
  std::string names = "auto";
  for (const FormatDef& d : Formats()) names += std::string(", ") + d.name;
  return names;
}

std::vector<TraceFormatInfo> TraceFormatTable() {
  std::vector<TraceFormatInfo> out;
  for (const FormatDef& d : Formats()) out.push_back({d.format, d.name, d.description});
  return out;
}

Result<TraceFormat> ParseTraceFormat(const std::string& name) {
  if (name == "auto") return TraceFormat::kAuto;
  for (const FormatDef& d : Formats()) {
    if (name == d.name || (d.alias && name == d.alias)) return d.format;
  }
  return Status::Invalid("--format: unknown trace format '" + name + "' (" + TraceFormatNames() +
                         ")");
}

}  // namespace ssdlab::trace
