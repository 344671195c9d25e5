// The fault tests' main and the replaced global allocation functions (see
// allocation_failure.hpp). Every form of operator new goes through allocate(), which fails on
// the armed count; every operator delete frees with the matching C function.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include "fault/allocation_failure.hpp"

#include <atomic>
#include <cstdlib>

namespace {

std::atomic<std::size_t> countdown{0};  // 0: disarmed
std::atomic<bool> exhausted{false};     // persistent mode, after the countdown fired
std::atomic<bool> persist{false};
std::atomic<std::size_t> total{0};

bool should_fail() noexcept {
  total.fetch_add(1, std::memory_order_relaxed);
  if (exhausted.load(std::memory_order_relaxed)) return true;
  std::size_t left = countdown.load(std::memory_order_relaxed);
  while (left != 0) {
    if (countdown.compare_exchange_weak(left, left - 1, std::memory_order_relaxed)) {
      if (left == 1 && persist.load(std::memory_order_relaxed)) exhausted.store(true);
      return left == 1;
    }
  }
  return false;
}

void* allocate(std::size_t size) {
  if (should_fail()) throw std::bad_alloc();
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}

void* allocate_aligned(std::size_t size, std::align_val_t alignment) {
  if (should_fail()) throw std::bad_alloc();
  const auto a = static_cast<std::size_t>(alignment);
  const std::size_t rounded = (size + a - 1) / a * a;
  if (void* p = std::aligned_alloc(a, rounded == 0 ? a : rounded)) return p;
  throw std::bad_alloc();
}

}  // namespace

namespace leasehold::testing::fault {
void fail_allocation_after(std::size_t k, bool persistent) noexcept {
  exhausted.store(false);
  persist.store(persistent);
  countdown.store(k);
}
void disarm() noexcept {
  countdown.store(0);
  exhausted.store(false);
}
std::size_t allocations() noexcept { return total.load(); }
}  // namespace leasehold::testing::fault

void* operator new(std::size_t size) { return allocate(size); }
void* operator new[](std::size_t size) { return allocate(size); }
void* operator new(std::size_t size, std::align_val_t a) { return allocate_aligned(size, a); }
void* operator new[](std::size_t size, std::align_val_t a) { return allocate_aligned(size, a); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return allocate(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return allocate(size);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
