#pragma once

// Scratch files for the io reader tests: a fresh directory per test under the system's temp
// directory, removed afterwards, and gzip data made in-process with Boost.Iostreams.

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

namespace leasehold::test {

class scratch_directory {
 public:
  scratch_directory() {
    static std::atomic<int> counter{0};
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    path_ = std::filesystem::temp_directory_path() /
            ("leasehold_io_test_" + std::to_string(stamp) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(path_);
  }
  ~scratch_directory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  scratch_directory(const scratch_directory&) = delete;
  scratch_directory& operator=(const scratch_directory&) = delete;

  // Writes `bytes` to a file of that name in the directory and returns its path.
  [[nodiscard]] std::filesystem::path write(const std::string& name,
                                            const std::string& bytes) const {
    const auto file = path_ / name;
    std::ofstream(file, std::ios::binary) << bytes;
    return file;
  }
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
};

// `text` gzip-compressed (one RFC 1952 member). Defined in gzip_compress.cpp, the one
// translation unit that instantiates Boost.Iostreams' gzip compressor (see there why).
std::string gzip(const std::string& text);

}  // namespace leasehold::test
