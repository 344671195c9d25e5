#pragma once

// Decodes a fuzzer's bytes into small numbers. Past the end every read returns 0, so any
// input, even an empty one, is a valid (if short) operation sequence.

#include <cstddef>
#include <cstdint>
#include <limits>

namespace leasehold::fuzzing {

class fuzz_input {
 public:
  fuzz_input(const std::uint8_t* data, std::size_t size) noexcept : data_(data), size_(size) {}

  [[nodiscard]] bool empty() const noexcept { return pos_ >= size_; }

  [[nodiscard]] std::uint8_t byte() noexcept { return pos_ < size_ ? data_[pos_++] : 0; }

  // A value in [lo, hi] (hi - lo < 65536) from one or two bytes.
  [[nodiscard]] std::int64_t in(std::int64_t lo, std::int64_t hi) noexcept {
    const auto range = static_cast<std::uint64_t>(hi - lo) + 1;
    std::uint64_t raw = byte();
    if (range > 256) raw = raw << 8 | byte();
    return lo + static_cast<std::int64_t>(raw % range);
  }

  // Mostly `usual`, sometimes a value at the edge of the type (overflow and bounds checks).
  template <class I>
  [[nodiscard]] I edgy(I usual) noexcept {
    switch (byte() % 32) {
      case 0:
        return std::numeric_limits<I>::max();
      case 1:
        return std::numeric_limits<I>::min();
      case 2:
        return static_cast<I>(std::numeric_limits<I>::max() - 1);
      case 3:
        return usual == std::numeric_limits<I>::min() ? usual : static_cast<I>(-usual);
      case 4:
        return I{0};
      default:
        return usual;
    }
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

}  // namespace leasehold::fuzzing
