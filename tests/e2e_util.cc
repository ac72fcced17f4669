#include "e2e_util.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

namespace ssdlab::test {

namespace {
std::vector<char*> Argv(const std::vector<std::string>& args) {
  std::vector<char*> v;
  v.push_back(const_cast<char*>(SSDLAB_BINARY));
  for (const auto& a : args) v.push_back(const_cast<char*>(a.c_str()));
  v.push_back(nullptr);
  return v;
}
}  // namespace

pid_t StartSsdlab(const std::vector<std::string>& args, const std::string& out_path,
                  const std::string& err_path) {
  auto argv = Argv(args);
  pid_t pid = fork();
  if (pid == 0) {
    int o = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int n = open("/dev/null", O_RDONLY);
    dup2(n, 0);
    dup2(o, 1);
    dup2(e, 2);
    execv(SSDLAB_BINARY, argv.data());
    _exit(127);
  }
  return pid;
}

int Wait(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

Proc RunSsdlab(const std::vector<std::string>& args) {
  TempDir t;
  Proc p;
  p.exit_code = Wait(StartSsdlab(args, t / "out", t / "err"));
  p.out = ReadFile(t / "out");
  p.err = ReadFile(t / "err");
  return p;
}

int Shell(const std::string& cmd, std::string* out) {
  TempDir t;
  std::string full = "(" + cmd + ") >" + (t / "o") + " 2>&1";
  int rc = std::system(full.c_str());
  if (out) *out = ReadFile(t / "o");
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::vector<std::string> Args(std::vector<std::string> a, const std::vector<std::string>& more) {
  a.insert(a.end(), more.begin(), more.end());
  return a;
}

const nlohmann::json* FindTest(const nlohmann::json& doc, const std::string& name) {
  for (const nlohmann::json& t : doc["tests"])
    if (t["name"] == name) return &t;
  return nullptr;
}

Proc RunMpi(int n, const std::vector<std::string>& args) {
  std::string cmd =
      "mpirun --allow-run-as-root --oversubscribe -n " + std::to_string(n) + " " + SSDLAB_BINARY;
  for (const std::string& a : args) cmd += " '" + a + "'";
  Proc p;
  p.exit_code = Shell(cmd + " 2>&1", &p.out);
  p.err = p.out;
  return p;
}

std::string FileSha256(const std::string& path) {
  std::string out;
  if (Shell("sha256sum '" + path + "' | cut -d' ' -f1", &out) != 0) return "";
  return out;
}

bool Unmount(const std::string& dir) {
  for (int i = 0; i < 50; ++i) {
    if (Shell("umount " + dir) == 0) return true;
    usleep(100 * 1000);
  }
  return false;
}

std::vector<std::string> SqlRows(const std::string& db_path, const std::string& sql) {
  std::vector<std::string> out;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    return out;
  }
  sqlite3_busy_timeout(db, 5000);
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK) {
    while (sqlite3_step(st) == SQLITE_ROW) {
      std::string row;
      for (int c = 0; c < sqlite3_column_count(st); ++c) {
        const void* b = sqlite3_column_blob(st, c);
        if (c) row += '|';
        row.append(b ? static_cast<const char*>(b) : "",
                   static_cast<size_t>(sqlite3_column_bytes(st, c)));
      }
      out.push_back(row);
    }
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

nlohmann::json ReadJson(const std::filesystem::path& p) {
  return nlohmann::json::parse(ReadFile(p));
}

int CountLines(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

TempDir::TempDir() {
  std::string tmpl = std::string(SSDLAB_TEST_TMP) + "/e2e.XXXXXX";
  std::filesystem::create_directories(SSDLAB_TEST_TMP);
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  path_ = mkdtemp(buf.data());
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

LoopDevices::~LoopDevices() {
  for (auto m = mounts_.rbegin(); m != mounts_.rend(); ++m) Unmount(*m);
  for (auto d = devs_.rbegin(); d != devs_.rend(); ++d) Shell("losetup -d " + *d);
}

bool LoopDevices::Attach(const std::string& img, uint64_t bytes, std::string* dev_out,
                         bool partscan, const std::string& dev) {
  if (geteuid() != 0) {
    error_ = "loop devices need root";
    return false;
  }
  std::string out;
  if (!std::filesystem::exists(img) &&
      Shell("truncate -s " + std::to_string(bytes) + " " + img, &out) != 0) {
    error_ = "cannot create " + img + ": " + out;
    return false;
  }
  const std::string cmd = std::string("losetup ") + (partscan ? "-P " : "") +
                          (dev.empty() ? std::string("-f --show ") : dev + " ") + img;
  int rc = Shell(cmd, &out);
  for (int i = 0; rc != 0 && !dev.empty() && i < 50; ++i) {
    usleep(100 * 1000);
    rc = Shell(cmd, &out);
  }
  if (rc != 0) {
    error_ = "cannot set up a loop device here: " + out;
    return false;
  }
  *dev_out = dev.empty() ? out.substr(0, out.find('\n')) : dev;
  devs_.push_back(*dev_out);
  return true;
}

void LoopDevices::Detach(const std::string& dev) {
  Shell("losetup -d " + dev);
  devs_.erase(std::remove(devs_.begin(), devs_.end(), dev), devs_.end());
}

bool LoopDevices::Mount(const std::string& dev, const std::string& mnt, bool mkfs) {
  std::string out;
  if (Shell((mkfs ? "mkfs.ext4 -q -F " + dev + " && " : std::string()) + "mkdir -p " + mnt +
                " && mount " + dev + " " + mnt,
            &out) != 0) {
    error_ = "cannot mount " + dev + " here: " + out;
    return false;
  }
  mounts_.push_back(mnt);
  return true;
}

nlohmann::json DoneJson(const std::string& dom, const std::string& id) {
  std::smatch m;
  std::regex re("<div id=\"" + id + "\"[^>]*data-done=\"1\"[^>]*>([^<]*)</div>");
  if (!std::regex_search(dom, m, re)) return nullptr;
  std::string text = m[1];
  for (auto [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"&quot;", "\""}, {"&lt;", "<"}, {"&gt;", ">"}, {"&amp;", "&"}}) {
    for (size_t p = text.find(from); p != std::string::npos; p = text.find(from, p + to.size()))
      text.replace(p, from.size(), to);
  }
  return nlohmann::json::parse(text, nullptr, false);
}

}  // namespace ssdlab::test
