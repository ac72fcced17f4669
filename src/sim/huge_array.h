// A fixed-size array of trivially copyable T in 2 MiB-aligned memory that the kernel is asked
// to back with transparent huge pages (madvise(MADV_HUGEPAGE); a no-op where unsupported).
// The FTL's mapping tables are read at random places several times per simulated write; with
// 4 KiB pages nearly every such access also misses the TLB (and a page walk is dearer under
// virtualisation), with 2 MiB pages a few TLB entries cover them. Arrays smaller than one huge
// page are plain cache-line-aligned allocations (a huge page would have the kernel clear 2 MiB
// for them at the first touch). Contents are not initialised.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>

namespace ssdlab::sim {

template <class T>
class HugeArray {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);

 public:
  static constexpr size_t kHuge = size_t{1} << 21;
  static constexpr size_t kLine = 64;

  HugeArray() = default;
  explicit HugeArray(size_t n) : n_(n) {
    if (n == 0) return;
    const size_t align = n * sizeof(T) < kHuge ? kLine : kHuge;
    const size_t bytes = (n * sizeof(T) + align - 1) / align * align;
    void* p = std::aligned_alloc(align, bytes);
    if (p == nullptr) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    if (align == kHuge) madvise(p, bytes, MADV_HUGEPAGE);
#endif
    p_ = static_cast<T*>(p);
  }
  ~HugeArray() { std::free(p_); }
  HugeArray(const HugeArray&) = delete;
  HugeArray& operator=(const HugeArray&) = delete;
  HugeArray(HugeArray&& o) noexcept
      : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  HugeArray& operator=(HugeArray&& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    return *this;
  }

  T& operator[](size_t i) { return p_[i]; }
  const T& operator[](size_t i) const { return p_[i]; }
  T* data() { return p_; }
  const T* data() const { return p_; }
  size_t size() const { return n_; }
  T* begin() { return p_; }
  T* end() { return p_ + n_; }
  const T* begin() const { return p_; }
  const T* end() const { return p_ + n_; }

 private:
  T* p_ = nullptr;
  size_t n_ = 0;
};

}  // namespace ssdlab::sim
