// A fake /sys tree for device/ unit tests: directories, files and symlinks under a temporary
// root, removed at destruction.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace ssdlab::testing_tree {

class FakeTree {
 public:
  explicit FakeTree(const std::string& tag) {
    static int n = 0;
    root_ = std::filesystem::temp_directory_path() /
            ("ssdlab_" + tag + "_" + std::to_string(getpid()) + "_" + std::to_string(n++));
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
  }
  ~FakeTree() { std::filesystem::remove_all(root_); }
  const std::filesystem::path& root() const { return root_; }
  std::string sys() const { return (root_ / "sys").string(); }

  // Writes `text` (plus a newline unless `raw`) to root/rel, creating directories.
  void File(const std::string& rel, const std::string& text, bool raw = false) const {
    std::filesystem::path p = root_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text << (raw ? "" : "\n");
  }
  // Makes root/rel a symlink to `target` (relative to the link's directory, as sysfs does).
  void Link(const std::string& rel, const std::string& target) const {
    std::filesystem::path p = root_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::filesystem::create_directory_symlink(target, p);
  }
  // The queue/ attributes of a block device directory.
  void Queue(const std::string& dev_dir, int lbs, int pbs, bool rotational, int nr_requests,
             const std::string& scheduler, const std::string& cache, uint64_t discard_max) const {
    File(dev_dir + "/queue/logical_block_size", std::to_string(lbs));
    File(dev_dir + "/queue/physical_block_size", std::to_string(pbs));
    File(dev_dir + "/queue/rotational", rotational ? "1" : "0");
    File(dev_dir + "/queue/nr_requests", std::to_string(nr_requests));
    File(dev_dir + "/queue/scheduler", scheduler);
    File(dev_dir + "/queue/write_cache", cache);
    File(dev_dir + "/queue/discard_max_bytes", std::to_string(discard_max));
    File(dev_dir + "/queue/write_zeroes_max_bytes", "0");
    File(dev_dir + "/ro", "0");
    File(dev_dir + "/removable", "0");
  }

 private:
  std::filesystem::path root_;
};

}  // namespace ssdlab::testing_tree
