#include "apps/app.h"

#include <fmt/format.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "apps/child.h"
#include "apps/disk_stats.h"
#include "base/clock.h"
#include "base/process.h"
#include "base/units.h"

namespace ssdlab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr uint64_t kSecondNs = 1'000'000'000;
constexpr uint64_t kStartTimeoutNs = 120 * kSecondNs;
constexpr uint64_t kStopGraceNs = 60 * kSecondNs;

// The private directories of one run: the runtime directory (configuration, sockets, logs;
// short, under /tmp, because a Unix socket path has at most 107 bytes) and the data root
// under the user's --dir (the server's data directory is its "data" subdirectory). Both are
// created here and carry an owner file with ssdlab's pid, so both may be deleted here, and a
// later run deletes those whose owner died without cleaning up (killed with SIGKILL).
constexpr char kOwnerFile[] = ".ssdlab-owner";

struct Workspace {
  std::string run_dir, data_root, data_dir;
  bool keep_data = false;
  ~Workspace() {
    std::error_code ec;
    if (!run_dir.empty()) fs::remove_all(run_dir, ec);
    if (!data_root.empty() && !keep_data) fs::remove_all(data_root, ec);
  }
};

// Creates a directory from a mkdtemp pattern with the owner file in it; mode 0755, and handed
// to `user` when given.
Result<std::string> MakeOwnedDir(const std::string& pattern, const RunAs* user) {
  std::string t = pattern;
  if (mkdtemp(t.data()) == nullptr)
    return Status::Io("cannot create a directory " + pattern + ": " + std::strerror(errno));
  std::ofstream(t + "/" + kOwnerFile) << getpid() << "\n";
  if (chmod(t.c_str(), 0755) != 0 ||
      (user && !user->name.empty() && chown(t.c_str(), user->uid, user->gid) != 0))
    return Status::Io("cannot prepare " + t + ": " + std::strerror(errno));
  return t;
}

// Deletes directories named `prefix`* in `parent` that hold an owner file naming a process
// that no longer runs ssdlab.
void RemoveStale(const std::string& parent, const std::string& prefix) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(parent, ec)) {
    if (e.path().filename().string().rfind(prefix, 0) != 0) continue;
    std::ifstream f(e.path() / kOwnerFile);
    pid_t pid = 0;
    if (!(f >> pid) || pid <= 0) continue;
    std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
    std::string name;
    if (comm >> name && name == "ssdlab") continue;  // still running
    fs::remove_all(e.path(), ec);
  }
}

// A server running as `user` must be able to enter every directory above its data directory.
Status CheckReachable(const std::string& dir, const RunAs& user) {
  if (user.name.empty()) return Status::Ok();
  for (fs::path p = fs::absolute(dir); !p.empty(); p = p.parent_path()) {
    struct stat st;
    if (stat(p.c_str(), &st) != 0) break;
    bool ok = (st.st_mode & S_IXOTH) || (st.st_uid == user.uid && (st.st_mode & S_IXUSR)) ||
              (st.st_gid == user.gid && (st.st_mode & S_IXGRP));
    if (!ok) {
      return Status::Refused(fmt::format(
          "the server runs as user '{}' (ssdlab is root), which cannot enter {} (mode {:o}); "
          "allow it (chmod o+x {}) or run ssdlab as an ordinary user",
          user.name, p.string(), st.st_mode & 07777, p.string()));
    }
    if (p == p.root_path()) break;
  }
  return Status::Ok();
}

std::string ToolVersion(const std::vector<std::string>& argv, const std::string& package) {
  auto r = RunProcess(argv, 10, package);
  if (!r.ok()) return "";
  const std::string& text = r->out.empty() ? r->err : r->out;
  return text.substr(0, text.find('\n'));
}

bool UnixSocketAccepts(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  struct sockaddr_un a {};
  a.sun_family = AF_UNIX;
  std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  close(fd);
  return ok;
}

uint64_t FreeBytes(const std::string& dir) {
  struct statvfs v;
  if (statvfs(dir.c_str(), &v) != 0) return UINT64_MAX;
  return static_cast<uint64_t>(v.f_bavail) * v.f_frsize;
}

// Everything one run shares.
struct Ctx {
  Ctx(const AppOptions& options, const std::atomic<bool>* stop_flag, const AppProgress& p)
      : o(options), stop(stop_flag), progress(p) {}
  const AppOptions& o;
  const std::atomic<bool>* stop;
  const AppProgress& progress;
  RunAs user;
  uint16_t port = 0;
  Workspace ws;
  std::string server_log, client_log;
  Child server;
  DiskSampler* sampler = nullptr;  // started with the measured client run
  std::string server_name;         // "MariaDB", "PostgreSQL"
  AppOutcome* out = nullptr;

  void Say(const std::string& s) const {
    if (progress) progress(s);
  }
  bool Stopped() const { return stop && stop->load(); }
  Status Interrupted() const { return Status::Error(Code::kInterrupted, "interrupted"); }
  Status ServerDied() {
    return Status::Io(fmt::format("the {} server exited (status {}): {}", server_name,
                                  server.exit_code().value_or(-1), LogTail(server_log, 3)));
  }
  SpawnOptions AsServer() const {
    SpawnOptions s;
    s.log_path = server_log;
    s.user = user;
    s.cwd = ws.run_dir;
    return s;
  }
  SpawnOptions AsClient(const std::string& log) const {
    SpawnOptions s;
    s.log_path = log;
    s.cwd = ws.run_dir;
    return s;
  }

  // Polls `ready` until it holds, the server dies, the time runs out or the user stops.
  Status WaitReady(const std::function<bool()>& ready) {
    const uint64_t start = MonotonicNs();
    while (!ready()) {
      if (!server.running()) return ServerDied();
      if (Stopped()) return Interrupted();
      if (MonotonicNs() - start > kStartTimeoutNs)
        return Status::Io(fmt::format("the {} server did not become ready within {} s: {}",
                                      server_name, kStartTimeoutNs / kSecondNs,
                                      LogTail(server_log, 3)));
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return Status::Ok();
  }

  // Runs a client to its end while watching the server; with `measured`, samples the device
  // and reports each second the client prints.
  Status RunClient(const std::vector<std::string>& argv, const std::string& package,
                   const std::string& log, bool measured, uint64_t timeout_ns) {
    SSDLAB_ASSIGN_OR_RETURN(Child client, Child::Spawn(argv, AsClient(log), package));
    if (measured && sampler) SSDLAB_RETURN_IF_ERROR(sampler->Start());
    std::ifstream tail;
    std::string partial;
    const uint64_t start = MonotonicNs();
    Status result = Status::Ok();
    while (client.running()) {
      if (Stopped()) {
        result = Interrupted();
        break;
      }
      if (!server.running()) {
        result = ServerDied();
        break;
      }
      if (timeout_ns && MonotonicNs() - start > timeout_ns) {
        result = Status::Io(
            fmt::format("{} did not finish within {} s", argv[0], timeout_ns / kSecondNs));
        break;
      }
      if (measured && progress) {
        if (!tail.is_open()) tail.open(log);
        std::string line;
        while (std::getline(tail, line)) {
          if (tail.eof()) {  // an unfinished line: keep it for the next round
            partial += line;
            break;
          }
          line = partial + line;
          partial.clear();
          if (line.rfind("[ ", 0) == 0 || line.rfind("progress: ", 0) == 0) Say(line);
        }
        tail.clear();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (!result.ok()) {
      client.Terminate(SIGTERM, 5 * kSecondNs);
      return result;
    }
    if (*client.exit_code() != 0) {
      if (!server.running()) return ServerDied();
      return Status::Io(
          fmt::format("{} failed (exit {}): {}", argv[0], *client.exit_code(), LogTail(log, 3)));
    }
    return Status::Ok();
  }

  void StopServer() {
    if (server.pid() <= 0) return;
    // MariaDB: SIGTERM is a clean shutdown; PostgreSQL: SIGINT is its "fast" shutdown.
    Say(fmt::format("stopping the {} server", server_name));
    server.Terminate(server_name == "PostgreSQL" ? SIGINT : SIGTERM, kStopGraceNs);
  }
};

// The newest packaged PostgreSQL's postgres binary ("" when none).
std::string PackagedPostgres() {
  std::string best;
  int best_v = -1;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    int v = std::atoi(e.path().filename().c_str());
    fs::path bin = e.path() / "bin/postgres";
    if (v > best_v && access(bin.c_str(), X_OK) == 0) {
      best_v = v;
      best = bin.string();
    }
  }
  return best.empty() ? FindTool("postgres") : best;
}

Status Missing(const std::string& tool, const std::string& package) {
  return Status::Error(Code::kUnsupported, tool + " not found; install " + package +
                                               " (apt-get install " + package + ")");
}

// The server program and, beside it or in $PATH, the tools the app needs. Unsupported naming
// the package when something is missing.
Result<std::string> ServerBinary(const AppOptions& o) {
  const bool pg = o.name == "pgbench";
  std::string server = !o.server_bin.empty() ? FindTool(o.server_bin)
                       : pg                  ? PackagedPostgres()
                                             : FindTool("mariadbd");
  if (server.empty()) {
    if (!o.server_bin.empty())
      return Status::Error(Code::kUnsupported,
                           "--server-bin " + o.server_bin + " is not an executable program");
    return pg ? Missing("postgres", "postgresql") : Missing("mariadbd", "mariadb-server");
  }
  if (pg) {
    const std::string bin = fs::path(server).parent_path().string();
    for (const char* tool : {"initdb", "pgbench", "pg_isready"}) {
      if (access((bin + "/" + tool).c_str(), X_OK) != 0)
        return Missing(bin + "/" + tool, "postgresql");
    }
    return server;
  }
  for (const auto& [tool, pkg] :
       std::vector<std::pair<std::string, std::string>>{{"mariadb-install-db", "mariadb-server"},
                                                        {"mariadb", "mariadb-client"},
                                                        {"sysbench", "sysbench"}}) {
    if (FindTool(tool).empty()) return Missing(tool, pkg);
  }
  return server;
}

// ---- sysbench on MariaDB ---------------------------------------------------------------

std::string MariaDbConfig(const Ctx& c) {
  // Written to <run dir>/my.cnf and recorded in the results. Buffer pool deliberately
  // smaller than the data; O_DIRECT so that reads and writes reach the drive rather than
  // the page cache; every commit durable (flush at each commit, doublewrite on).
  return fmt::format(
      "[mysqld]\n"
      "datadir={data}\n"
      "socket={run}/mysqld.sock\n"
      "pid-file={run}/mysqld.pid\n"
      "port={port}\n"
      "bind-address=127.0.0.1\n"
      "skip-name-resolve\n"
      "skip-log-bin\n"
      "performance_schema=OFF\n"
      "max_connections={conns}\n"
      "innodb_buffer_pool_size={bp}\n"
      "innodb_flush_method=O_DIRECT\n"
      "innodb_flush_log_at_trx_commit=1\n"
      "innodb_doublewrite=1\n"
      "innodb_log_file_size=128M\n"
      "innodb_file_per_table=1\n",
      fmt::arg("data", c.ws.data_dir), fmt::arg("run", c.ws.run_dir), fmt::arg("port", c.port),
      fmt::arg("conns", c.o.threads + 16), fmt::arg("bp", c.o.buffer_bytes));
}

Status RunSysbench(Ctx& c) {
  const AppOptions& o = c.o;
  c.server_name = "MariaDB";
  SSDLAB_ASSIGN_OR_RETURN(const std::string mariadbd, ServerBinary(o));
  const std::string cnf = c.ws.run_dir + "/my.cnf";
  const std::string config = MariaDbConfig(c);
  {
    std::ofstream f(cnf);
    f << config;
    if (!f) return Status::Io("cannot write " + cnf);
  }
  const std::string sock = c.ws.run_dir + "/mysqld.sock";
  json& s = c.out->settings;
  s["server"] = ToolVersion({mariadbd, "--version"}, "mariadb-server");
  s["client"] = ToolVersion({"sysbench", "--version"}, "sysbench");
  s["server_config"] = config;
  s["tables"] = o.tables;
  s["table_rows"] = o.table_rows;
  s["script"] = "oltp_read_write";

  c.Say("initialising a MariaDB data directory in " + c.ws.data_dir);
  SpawnOptions as_server = c.AsServer();
  SSDLAB_RETURN_IF_ERROR(RunToCompletion(
      {"mariadb-install-db", "--defaults-file=" + cnf, "--auth-root-authentication-method=normal",
       "--skip-test-db", "--basedir=/usr"},
      as_server, "mariadb-server", 300 * kSecondNs, c.stop));
  c.Say(fmt::format("starting {} on 127.0.0.1:{}", s["server"].get<std::string>(), c.port));
  SSDLAB_ASSIGN_OR_RETURN(
      c.server, Child::Spawn({mariadbd, "--defaults-file=" + cnf}, as_server, "mariadb-server"));
  SSDLAB_RETURN_IF_ERROR(c.WaitReady([&] { return UnixSocketAccepts(sock); }));
  const std::string setup_log = c.ws.run_dir + "/setup.log";
  SSDLAB_RETURN_IF_ERROR(RunToCompletion(
      {"mariadb", "--socket=" + sock, "--user=root", "-e", "CREATE DATABASE sbtest"},
      c.AsClient(setup_log), "mariadb-client", 60 * kSecondNs, c.stop));
  std::vector<std::string> base = {"sysbench",
                                   "oltp_read_write",
                                   "--db-driver=mysql",
                                   "--mysql-socket=" + sock,
                                   "--mysql-user=root",
                                   "--mysql-db=sbtest",
                                   fmt::format("--tables={}", o.tables),
                                   fmt::format("--table-size={}", o.table_rows)};
  c.Say(fmt::format("preparing {} tables of {} rows", o.tables, o.table_rows));
  auto prepare = base;
  prepare.push_back(fmt::format("--threads={}", std::min(o.tables, o.threads)));
  prepare.push_back("prepare");
  SSDLAB_RETURN_IF_ERROR(c.RunClient(prepare, "sysbench", setup_log, false, 0));
  auto run = base;
  run.push_back(fmt::format("--threads={}", o.threads));
  if (o.warmup_ns) {
    c.Say(fmt::format("warming up for {} s", o.warmup_ns / kSecondNs));
    auto warm = run;
    warm.push_back(fmt::format("--time={}", std::max<uint64_t>(1, o.warmup_ns / kSecondNs)));
    warm.push_back("run");
    SSDLAB_RETURN_IF_ERROR(c.RunClient(warm, "sysbench", setup_log, false, 0));
  }
  run.push_back(fmt::format("--time={}", std::max<uint64_t>(1, o.time_ns / kSecondNs)));
  for (const char* a : {"--report-interval=1", "--histogram=on", "--percentile=99", "run"})
    run.emplace_back(a);
  s["client_command"] = JoinArgv(run);
  c.Say(fmt::format("running sysbench oltp_read_write, {} threads, {} s", o.threads,
                    o.time_ns / kSecondNs));
  return c.RunClient(run, "sysbench", c.client_log, true, 0);
}

Result<ClientResult> ReadSysbench(const std::string& log) {
  std::ifstream in(log);
  return ParseSysbench(in);
}

// ---- pgbench on PostgreSQL ---------------------------------------------------------------

Status RunPgbench(Ctx& c) {
  const AppOptions& o = c.o;
  c.server_name = "PostgreSQL";
  SSDLAB_ASSIGN_OR_RETURN(const std::string postgres, ServerBinary(o));
  const std::string bin = fs::path(postgres).parent_path().string();
  const std::string pgbench = bin + "/pgbench";
  const std::string port = std::to_string(c.port);
  const std::string conns = std::to_string(c.o.threads + 10);
  // Recorded in the results; shared_buffers deliberately smaller than the data, every commit
  // durable (fsync, synchronous_commit and full_page_writes at their defaults, on).
  const std::vector<std::string> settings = {
      "listen_addresses=127.0.0.1",
      "shared_buffers=" + std::to_string(o.buffer_bytes / 8192 * 8) + "kB",
      "max_connections=" + conns, "fsync=on", "synchronous_commit=on", "full_page_writes=on",
      "max_wal_size=1GB", "checkpoint_timeout=5min", "autovacuum=on",
      // Dynamic shared memory in the data directory rather than /dev/shm, so that a server
      // killed part-way leaves nothing outside the directories ssdlab deletes.
      "dynamic_shared_memory_type=mmap"};
  json& s = c.out->settings;
  s["server"] = ToolVersion({postgres, "--version"}, "postgresql");
  s["client"] = ToolVersion({pgbench, "--version"}, "postgresql");
  s["server_config"] = settings;
  s["scale"] = o.scale;
  s["script"] = "tpcb-like";

  c.Say("initialising a PostgreSQL cluster in " + c.ws.data_dir);
  SpawnOptions as_server = c.AsServer();
  SSDLAB_RETURN_IF_ERROR(RunToCompletion({bin + "/initdb", "-D", c.ws.data_dir, "-A", "trust", "-U",
                                          "ssdlab", "-E", "UTF8", "--no-locale"},
                                         as_server, "postgresql", 300 * kSecondNs, c.stop));
  std::vector<std::string> argv = {postgres, "-D", c.ws.data_dir, "-k", c.ws.run_dir, "-p", port};
  for (const std::string& kv : settings) {
    argv.push_back("-c");
    argv.push_back(kv);
  }
  c.Say(fmt::format("starting {} on 127.0.0.1:{}", s["server"].get<std::string>(), c.port));
  SSDLAB_ASSIGN_OR_RETURN(c.server, Child::Spawn(argv, as_server, "postgresql"));
  SSDLAB_RETURN_IF_ERROR(c.WaitReady([&] {
    auto r =
        RunProcess({bin + "/pg_isready", "-q", "-h", c.ws.run_dir, "-p", port}, 10, "postgresql");
    return r.ok() && r->exit_code == 0;
  }));
  const std::vector<std::string> conn = {"-h", c.ws.run_dir, "-p", port, "-U", "ssdlab"};
  auto with = [&](std::vector<std::string> a, const std::vector<std::string>& more) {
    a.insert(a.begin() + 1, conn.begin(), conn.end());
    a.insert(a.end(), more.begin(), more.end());
    a.push_back("postgres");
    return a;
  };
  const std::string setup_log = c.ws.run_dir + "/setup.log";
  c.Say(fmt::format("initialising pgbench tables at scale {}", o.scale));
  SSDLAB_RETURN_IF_ERROR(
      c.RunClient(with({pgbench}, {"-i", "-I", "dtGvp", "-s", std::to_string(o.scale), "-q"}),
                  "postgresql", setup_log, false, 0));
  const uint32_t jobs = std::max(1u, std::min(o.threads, std::thread::hardware_concurrency()));
  std::vector<std::string> load = {"-M", "prepared",          "-c", std::to_string(o.threads),
                                   "-j", std::to_string(jobs)};
  if (o.warmup_ns) {
    c.Say(fmt::format("warming up for {} s", o.warmup_ns / kSecondNs));
    auto warm = load;
    warm.push_back("-T");
    warm.push_back(std::to_string(std::max<uint64_t>(1, o.warmup_ns / kSecondNs)));
    SSDLAB_RETURN_IF_ERROR(c.RunClient(with({pgbench}, warm), "postgresql", setup_log, false, 0));
  }
  auto run = load;
  for (const std::string& a :
       {std::string("-T"), std::to_string(std::max<uint64_t>(1, o.time_ns / kSecondNs)),
        std::string("-P"), std::string("1"), std::string("-l"),
        "--log-prefix=" + c.ws.run_dir + "/tx"})
    run.push_back(a);
  auto cmd = with({pgbench}, run);
  s["client_command"] = JoinArgv(cmd);
  c.Say(fmt::format("running pgbench (TPC-B-like), {} clients, {} s", o.threads,
                    o.time_ns / kSecondNs));
  return c.RunClient(cmd, "postgresql", c.client_log, true, 0);
}

// The progress lines and summary, with the latency histogram from the per-transaction logs.
Result<ClientResult> ReadPgbench(const std::string& log, const std::string& run_dir) {
  std::ifstream in(log);
  SSDLAB_ASSIGN_OR_RETURN(ClientResult r, ParsePgbench(in));
  std::error_code ec;
  uint64_t failed = 0;
  for (const auto& e : fs::directory_iterator(run_dir, ec)) {
    if (e.path().filename().string().rfind("tx.", 0) != 0) continue;
    std::ifstream f(e.path());
    SSDLAB_RETURN_IF_ERROR(ReadPgbenchLog(f, &r.latency, &failed).status());
  }
  if (r.latency.count()) {
    r.lat_min_ms = static_cast<double>(r.latency.min()) / 1e6;
    r.lat_max_ms = static_cast<double>(r.latency.max()) / 1e6;
    if (!r.complete) r.lat_mean_ms = r.latency.Mean() / 1e6;
  }
  return r;
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& AppNames() {
  static const std::vector<std::pair<std::string, std::string>> kApps = {
      {"sysbench-oltp", "sysbench oltp_read_write on a private MariaDB server"},
      {"pgbench", "pgbench TPC-B-like on a private PostgreSQL cluster"}};
  return kApps;
}

Status ValidateAppOptions(const AppOptions& o) {
  bool known = false;
  std::string names;
  for (const auto& [n, d] : AppNames()) {
    known |= n == o.name;
    names += (names.empty() ? "" : ", ") + n;
  }
  if (!known) return Status::Invalid("unknown app '" + o.name + "' (" + names + ")");
  if (o.dir.empty()) return Status::Invalid("--dir is required");
  if (o.threads == 0 || o.threads > 4096) return Status::Invalid("--threads must be 1..4096");
  if (o.time_ns < kSecondNs) return Status::Invalid("--time must be at least 1 s");
  if (o.tables == 0 || o.table_rows == 0) return Status::Invalid("--tables and --rows must be > 0");
  if (o.scale == 0) return Status::Invalid("--scale must be > 0");
  if (o.buffer_bytes < (8ull << 20)) return Status::Invalid("--buffer must be at least 8 MiB");
  if (o.sample_interval_ns == 0) return Status::Invalid("--interval must be above 0");
  return Status::Ok();
}

uint64_t EstimateDataBytes(const AppOptions& o) {
  // Measured on MariaDB 10.11 / PostgreSQL 15: a fresh data directory ~70 MiB / ~40 MiB; an
  // sbtest row ~250 bytes with its indexes; a pgbench scale unit ~16 MiB; plus the redo log
  // (128 MiB) or the WAL (max_wal_size 1 GiB), with a 20% margin for growth during the run.
  if (o.name == "sysbench-oltp")
    return (70ull << 20) + (128ull << 20) + o.tables * o.table_rows * 250 * 6 / 5;
  return (40ull << 20) + (1ull << 30) + uint64_t{o.scale} * (16ull << 20) * 6 / 5;
}

Status CheckApp(const AppOptions& o) {
  SSDLAB_RETURN_IF_ERROR(ValidateAppOptions(o));
  struct stat st;
  if (stat(o.dir.c_str(), &st) != 0) return Status::NotFound("--dir " + o.dir + " does not exist");
  if (!S_ISDIR(st.st_mode)) return Status::Invalid("--dir " + o.dir + " is not a directory");
  if (access(o.dir.c_str(), W_OK) != 0)
    return Status::Refused("cannot write in " + o.dir + " (" + std::strerror(errno) + ")");
  const uint64_t need = EstimateDataBytes(o), have = FreeBytes(o.dir);
  if (have < need) {
    return Status::Error(Code::kNoSpace,
                         fmt::format("{} has {} free; {} at this scale needs about {}", o.dir,
                                     FormatBytes(have), o.name, FormatBytes(need)));
  }
  if (o.port) SSDLAB_RETURN_IF_ERROR(CheckLoopbackPortFree(o.port));
  SSDLAB_ASSIGN_OR_RETURN(RunAs user, ServerUser(o.name == "pgbench" ? "postgres" : "mysql"));
  SSDLAB_RETURN_IF_ERROR(CheckReachable(o.dir, user));
  return ServerBinary(o).status();
}

Status CheckAppPrograms(const AppOptions& o) { return ServerBinary(o).status(); }

AppOutcome RunApp(const AppOptions& o, const DeviceIdentity& identity,
                  const std::atomic<bool>* stop, const AppProgress& progress) {
  AppOutcome out;
  auto fail = [&](Status s) {
    out.status = std::move(s);
    return std::move(out);
  };
  if (Status s = CheckApp(o); !s.ok()) return fail(s);
  auto port = o.port ? Result<uint16_t>(o.port) : FreeLoopbackPort();
  if (!port.ok()) return fail(port.status());
  auto user = ServerUser(o.name == "pgbench" ? "postgres" : "mysql");
  if (!user.ok()) return fail(user.status());

  Ctx c(o, stop, progress);
  c.out = &out;
  c.user = user.value();
  c.port = port.value();
  c.ws.keep_data = o.keep_data;
  const std::string root_prefix = "ssdlab-" + o.name + "-";
  RemoveStale("/tmp", "ssdlab-app-");
  RemoveStale(o.dir, root_prefix);
  auto run_dir = MakeOwnedDir("/tmp/ssdlab-app-XXXXXX", &c.user);
  if (!run_dir.ok()) return fail(run_dir.status());
  c.ws.run_dir = run_dir.value();
  auto data_root = MakeOwnedDir((fs::path(o.dir) / (root_prefix + "XXXXXX")).string(), nullptr);
  if (!data_root.ok()) return fail(data_root.status());
  c.ws.data_root = data_root.value();
  c.ws.data_dir = c.ws.data_root + "/data";
  if (mkdir(c.ws.data_dir.c_str(), 0700) != 0 ||
      (!c.user.name.empty() && chown(c.ws.data_dir.c_str(), c.user.uid, c.user.gid) != 0))
    return fail(Status::Io("cannot create " + c.ws.data_dir + ": " + std::strerror(errno)));
  c.server_log = c.ws.run_dir + "/server.log";
  c.client_log = c.ws.run_dir + "/client.log";
  json& s = out.settings;
  s["app"] = o.name;
  s["dir"] = o.dir;
  s["data_dir"] = c.ws.data_dir;
  s["run_dir"] = c.ws.run_dir;
  s["kept_data"] = o.keep_data;
  s["port"] = c.port;
  s["server_user"] = c.user.name.empty() ? json(nullptr) : json(c.user.name);
  s["threads"] = o.threads;
  s["time_s"] = o.time_ns / kSecondNs;
  s["warmup_s"] = o.warmup_ns / kSecondNs;
  s["buffer_bytes"] = o.buffer_bytes;
  s["estimated_data_bytes"] = EstimateDataBytes(o);

  // The device's counters: the block device holding the filesystem (a partition's own stat
  // when it is one).
  std::optional<DiskSampler> sampler;
  if (identity.disk) {
    struct stat st;
    std::string stat_path;
    if (stat(o.dir.c_str(), &st) == 0) {
      stat_path = fmt::format("/sys/dev/block/{}:{}/stat", major(st.st_dev), minor(st.st_dev));
      if (access(stat_path.c_str(), R_OK) != 0)
        stat_path = "/sys/block/" + identity.disk->name + "/stat";
    }
    sampler.emplace(stat_path, HealthSampler::ForTarget(identity), o.sample_interval_ns);
  }

  c.sampler = sampler ? &*sampler : nullptr;
  Status status = o.name == "pgbench" ? RunPgbench(c) : RunSysbench(c);
  if (sampler) sampler->Stop();
  c.StopServer();
  const bool measured_started = access(c.client_log.c_str(), F_OK) == 0;
  if (measured_started) {
    auto client =
        o.name == "pgbench" ? ReadPgbench(c.client_log, c.ws.run_dir) : ReadSysbench(c.client_log);
    if (client.ok()) {
      out.client = std::move(client.value());
    } else if (status.ok()) {
      status = client.status().WithContext("reading the client's output");
    }
    if (status.ok() && out.client && out.client->transactions == 0)
      status = Status::Io(o.name + " completed no transactions: " + LogTail(c.client_log, 3));
  }
  if (sampler) out.device = sampler->Record();
  if (o.keep_data) c.Say("kept the data directory " + c.ws.data_dir);
  out.status = status;
  return out;
}

results::AppResults AppResultsOf(const AppOutcome& outcome, const std::string& app) {
  // A run that failed before measuring has zeros and nulls.
  results::AppResults r;
  r.app = app;
  r.measured = outcome.client.has_value();
  const ClientResult none;
  const ClientResult& c = outcome.client ? *outcome.client : none;
  const Histogram& h = c.latency;
  auto pct = [&](double p) {
    return h.count() ? std::optional<double>(h.Percentile(p) / 1e6) : std::nullopt;
  };
  r.complete = c.complete;
  r.tps = c.tps;
  r.qps = c.qps;
  r.transactions = c.transactions;
  r.queries = c.queries;
  r.errors = c.errors;
  r.duration_s = c.duration_s;
  // An interrupted sysbench run prints no summary and no histogram: its latencies are unknown.
  const bool known = c.complete || h.count();
  auto ms = [&](double v) { return known ? std::optional<double>(v) : std::nullopt; };
  r.latency_ms = {ms(c.lat_mean_ms), ms(c.lat_min_ms), pct(50),          pct(95),
                  pct(99),           pct(99.9),        ms(c.lat_max_ms), h.count()};
  for (const ClientSecond& s : c.seconds)
    r.per_second.push_back({s.t_s, s.tps, s.qps, s.lat_ms, s.lat_stddev_ms, s.errors_per_s});
  r.per_second_latency = app == "pgbench" ? "mean" : "p99";
  r.device = outcome.device;
  r.settings = outcome.settings;
  if (!outcome.status.ok()) r.error = outcome.status.message();
  return r;
}

}  // namespace ssdlab
