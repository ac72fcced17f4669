// For tests only: a private PostgreSQL server in a temporary directory (Unix socket there, no
// TCP port), started with the packaged binaries (/usr/lib/postgresql/N/bin) as the `postgres`
// account when the tests run as root. Stopped and deleted when destroyed.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "base/status.h"

namespace ssdlab {

class PgTestServer {
 public:
  // Sets SSDLAB_PLUGIN_DIR, unless set, to the build's plugins (base/plugin.h), so that
  // Store::Open reaches the server from the test process.
  // kUnsupported naming what is missing (the postgresql package's binaries, or the postgres
  // account when root); kIoError when the server does not come up (its log's tail attached).
  static Result<std::unique_ptr<PgTestServer>> Start();
  ~PgTestServer();

  // Creates an empty database `name` and returns its URL (postgresql://ssdlab@/NAME?host=DIR).
  Result<std::string> NewDatabase(const std::string& name);
  std::string Url(const std::string& db) const;
  const std::string& dir() const { return dir_; }

 private:
  PgTestServer(std::string dir, std::string bin) : dir_(std::move(dir)), bin_(std::move(bin)) {}
  std::string dir_;
  std::string bin_;
  pid_t pid_ = -1;
};

}  // namespace ssdlab

// In a GoogleTest body: a private server named `server` (std::unique_ptr<PgTestServer>), or the
// test skipped naming what is missing, or failed when the server does not come up.
#define START_PG(server)                                                     \
  auto started_##server = ::ssdlab::PgTestServer::Start();                   \
  if (started_##server.status().code() == ::ssdlab::Code::kUnsupported)      \
    GTEST_SKIP() << started_##server.status().message();                     \
  ASSERT_TRUE(started_##server.ok()) << started_##server.status().message(); \
  std::unique_ptr<::ssdlab::PgTestServer> server = std::move(started_##server.value())
