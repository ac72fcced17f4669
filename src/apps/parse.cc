#include "apps/parse.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>

namespace ssdlab {
namespace {

bool StartsWith(const std::string& s, const char* prefix) {
  return s.compare(0, std::strlen(prefix), prefix) == 0;
}

// The number after `key` in `line` (e.g. key "tps:"), or NaN.
double After(const std::string& line, const std::string& key) {
  size_t p = line.find(key);
  if (p == std::string::npos) return std::nan("");
  const char* s = line.c_str() + p + key.size();
  char* end = nullptr;
  double v = std::strtod(s, &end);
  return end == s ? std::nan("") : v;
}

void RecordMs(Histogram* h, double ms, uint64_t count) {
  uint64_t ns = static_cast<uint64_t>(std::llround(ms * 1e6));
  for (uint64_t i = 0; i < count; ++i) h->Record(ns);
}

}  // namespace

Result<ClientResult> ParseSysbench(std::istream& in) {
  ClientResult r;
  bool seen_header = false, in_histogram = false, seen_total_time = false;
  for (std::string line; std::getline(in, line);) {
    if (StartsWith(line, "sysbench ")) seen_header = true;
    if (StartsWith(line, "[ ")) {
      // [ 1s ] thds: 4 tps: 327.59 qps: 6601.72 (r/w/o: ...) lat (ms,99%): 38.25 err/s: 0.00 ...
      ClientSecond s;
      s.t_s = After(line, "[ ");
      s.threads = static_cast<uint32_t>(After(line, "thds:"));
      s.tps = After(line, "tps:");
      s.qps = After(line, "qps:");
      size_t lat = line.find("lat (ms,");
      s.lat_ms = lat == std::string::npos ? std::nan("") : After(line.substr(lat), "):");
      s.errors_per_s = After(line, "err/s:");
      if (std::isnan(s.t_s) || std::isnan(s.tps) || std::isnan(s.qps)) continue;
      if (std::isnan(s.lat_ms)) s.lat_ms = 0;
      if (std::isnan(s.errors_per_s)) s.errors_per_s = 0;
      r.seconds.push_back(s);
      continue;
    }
    if (StartsWith(line, "Latency histogram")) {
      in_histogram = true;
      continue;
    }
    if (in_histogram) {
      // "       1.925 |**                    1"; the header line and a blank line end it.
      size_t bar = line.find('|');
      if (bar == std::string::npos) {
        if (line.find("value") == std::string::npos) in_histogram = false;
        continue;
      }
      double value_ms = std::strtod(line.c_str(), nullptr);
      size_t last = line.find_last_of(" *|");
      uint64_t count = std::strtoull(line.c_str() + last + 1, nullptr, 10);
      RecordMs(&r.latency, value_ms, count);
      continue;
    }
    std::string t =
        line.substr(line.find_first_not_of(' ') == std::string::npos ? line.size()
                                                                     : line.find_first_not_of(' '));
    if (StartsWith(t, "transactions:")) {
      r.transactions = static_cast<uint64_t>(After(t, "transactions:"));
      r.tps = After(t, "(");
    } else if (StartsWith(t, "queries:")) {
      r.queries = static_cast<uint64_t>(After(t, "queries:"));
      r.qps = After(t, "(");
    } else if (StartsWith(t, "ignored errors:")) {
      r.errors = static_cast<uint64_t>(After(t, "ignored errors:"));
    } else if (StartsWith(t, "total time:")) {
      r.duration_s = After(t, "total time:");
      seen_total_time = true;
    } else if (StartsWith(t, "min:")) {
      r.lat_min_ms = After(t, "min:");
    } else if (StartsWith(t, "avg:")) {
      r.lat_mean_ms = After(t, "avg:");
    } else if (StartsWith(t, "max:")) {
      r.lat_max_ms = After(t, "max:");
    }
  }
  if (!seen_header && r.seconds.empty())
    return Status::Invalid("not sysbench output (no report lines)");
  r.complete = seen_total_time && r.transactions > 0;
  if (!r.complete) {
    // Killed part-way: what the per-second lines say.
    double tx = 0, q = 0;
    for (const ClientSecond& s : r.seconds) {
      tx += s.tps;
      q += s.qps;
    }
    r.duration_s = r.seconds.empty() ? 0 : r.seconds.back().t_s;
    r.transactions = static_cast<uint64_t>(std::llround(tx));
    r.queries = static_cast<uint64_t>(std::llround(q));
    r.tps = r.duration_s > 0 ? tx / r.duration_s : 0;
    r.qps = r.duration_s > 0 ? q / r.duration_s : 0;
  }
  if (r.latency.count()) {
    if (!r.complete) {
      r.lat_mean_ms = r.latency.Mean() / 1e6;
      r.lat_min_ms = static_cast<double>(r.latency.min()) / 1e6;
      r.lat_max_ms = static_cast<double>(r.latency.max()) / 1e6;
    }
  }
  return r;
}

Result<ClientResult> ParsePgbench(std::istream& in) {
  ClientResult r;
  bool seen = false, seen_tps = false;
  double lat_sum_ms = 0;
  for (std::string line; std::getline(in, line);) {
    if (StartsWith(line, "pgbench ")) seen = true;
    if (StartsWith(line, "progress: ")) {
      // progress: 1.0 s, 491.0 tps, lat 8.015 ms stddev 6.193, 0 failed
      ClientSecond s;
      s.t_s = After(line, "progress: ");
      s.tps = After(line, "s, ");
      s.lat_ms = After(line, "lat ");
      s.lat_stddev_ms = After(line, "stddev ");
      size_t comma = line.rfind(", ");
      s.errors_per_s = comma == std::string::npos ? 0 : After(line.substr(comma), ", ");
      if (std::isnan(s.t_s) || std::isnan(s.tps)) continue;
      if (std::isnan(s.lat_ms)) s.lat_ms = 0;
      if (std::isnan(s.lat_stddev_ms)) s.lat_stddev_ms = 0;
      if (std::isnan(s.errors_per_s)) s.errors_per_s = 0;
      lat_sum_ms += s.lat_ms * s.tps;
      r.seconds.push_back(s);
    } else if (StartsWith(line, "number of transactions actually processed:")) {
      r.transactions = static_cast<uint64_t>(After(line, "processed:"));
    } else if (StartsWith(line, "number of failed transactions:")) {
      r.errors = static_cast<uint64_t>(After(line, "transactions:"));
    } else if (StartsWith(line, "duration:")) {
      r.duration_s = After(line, "duration:");
    } else if (StartsWith(line, "latency average =")) {
      r.lat_mean_ms = After(line, "=");
    } else if (StartsWith(line, "tps =")) {
      r.tps = After(line, "=");
      seen_tps = true;
    }
  }
  if (!seen && r.seconds.empty()) return Status::Invalid("not pgbench output (no progress lines)");
  r.complete = seen_tps;
  if (!r.complete) {
    double tx = 0;
    for (const ClientSecond& s : r.seconds) tx += s.tps;
    r.duration_s = r.seconds.empty() ? 0 : r.seconds.back().t_s;
    r.transactions = static_cast<uint64_t>(std::llround(tx));
    r.tps = r.duration_s > 0 ? tx / r.duration_s : 0;
    r.lat_mean_ms = tx > 0 ? lat_sum_ms / tx : 0;
  }
  return r;
}

Result<uint64_t> ReadPgbenchLog(std::istream& in, Histogram* latency, uint64_t* failed) {
  uint64_t n = 0;
  int line_no = 0;
  std::string pending_error;  // a malformed line is an error unless it is the last one
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.empty()) continue;
    if (!pending_error.empty()) return Status::Invalid(pending_error);
    std::istringstream f(line);
    std::string client, tx, lat;
    if (!(f >> client >> tx >> lat)) {
      pending_error = "pgbench log line " + std::to_string(line_no) + " is malformed";
      continue;
    }
    if (lat == "failed" || lat == "skipped") {
      ++*failed;
      continue;
    }
    char* end = nullptr;
    unsigned long long us = std::strtoull(lat.c_str(), &end, 10);
    if (*end != '\0' || !(f >> client)) {
      pending_error = "pgbench log line " + std::to_string(line_no) + ": latency '" + lat +
                      "' is not a number or the line is cut short";
      continue;
    }
    latency->Record(us * 1000);
    ++n;
  }
  // A last line cut short is what a client killed part-way leaves: it is ignored.
  return n;
}

}  // namespace ssdlab
