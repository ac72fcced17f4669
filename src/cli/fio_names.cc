#include "cli/fio_names.h"

#include <array>
#include <utility>

namespace ssdlab {
namespace {

// fio's name -> ssdlab's way of saying it. Only names that are no ssdlab flag: the names both
// tools share (--bs, --size, --rw, --runtime, --verify) are parsed as ssdlab's.
constexpr std::array<std::pair<std::string_view, std::string_view>, 28> kFioNames = {{
    {"filename", "--target PATH (a file, a block device or sim:PRESET)"},
    {"iodepth", "--qd N (queue depth per job)"},
    {"numjobs", "--jobs N"},
    {"readwrite", "--rw MODE"},
    {"blocksize", "--bs SIZE"},
    {"bssplit", "--bs SIZE:PCT,SIZE:PCT,... (e.g. 4KiB:67,64KiB:33)"},
    {"rwmixread", "--rwmix-read PCT"},
    {"rwmixwrite", "--rwmix-read PCT (100 minus the write share)"},
    {"io_size", "--io-size SIZE (or 3x: times the active range)"},
    {"ramp_time", "--ramp TIME (or an amount: 2x, 1GiB)"},
    {"time_based", "--runtime TIME (random workloads are timed by default)"},
    {"rate_iops", "--rate-iops N (open loop, over all jobs)"},
    {"random_distribution", "--dist (uniform|zipf:S|pareto:H|zoned:...)"},
    {"ioengine", "--engine (io_uring|libaio|psync)"},
    {"direct", "the default (O_DIRECT); --buffered for direct=0"},
    {"randseed", "--seed N"},
    {"iodepth_batch", "--batch-submit N"},
    {"iodepth_batch_submit", "--batch-submit N"},
    {"iodepth_batch_complete_min", "--batch-complete MIN[:MAX]"},
    {"iodepth_batch_complete", "--batch-complete MIN[:MAX]"},
    {"sqthread_poll", "--sqpoll"},
    {"offset", "--range FROM-TO (e.g. 1GiB-2GiB or 0%-25%)"},
    {"group_reporting", "the default (jobs are always reported together)"},
    {"output-format", "--json FILE (- for stdout)"},
    {"write_lat_log", "--lat-log FILE"},
    {"log_avg_msec", "--interval TIME"},
    {"zero_buffers", "--data zero"},
    {"buffer_compress_percentage", "--data compressible:N"},
}};

}  // namespace

std::optional<std::string> FioFlagHint(std::string_view arg) {
  if (arg.substr(0, 2) != "--") return std::nullopt;
  std::string_view name = arg.substr(
      2, arg.find('=') == std::string_view::npos ? std::string_view::npos : arg.find('=') - 2);
  for (const auto& [fio, ours] : kFioNames)
    if (name == fio)
      return "--" + std::string(fio) + " is fio's name; ssdlab's is " + std::string(ours);
  return std::nullopt;
}

}  // namespace ssdlab
