#pragma once

// Access to the real traces in ../shared for the workload tests. The data is optional:
// a user's checkout has none, so every caller skips with a doctest MESSAGE when a file is
// missing. The .gz traces are decompressed through `gzip -dc` (zlib is not a dependency).

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#ifndef LEASEHOLD_SHARED_DIR
#define LEASEHOLD_SHARED_DIR ""
#endif

namespace leasehold::test {

inline std::filesystem::path shared_path(const std::string& relative) {
  return std::filesystem::path(LEASEHOLD_SHARED_DIR) / relative;
}

// The whole decompressed content of a gzip file, or nullopt when the file or gzip is
// missing.
inline std::optional<std::string> gunzip(const std::filesystem::path& file) {
  if (!std::filesystem::exists(file)) return std::nullopt;
  const std::string command = "gzip -dc '" + file.string() + "'";
#ifdef _WIN32
  FILE* pipe = _popen(command.c_str(), "rb");
#else
  FILE* pipe = popen(command.c_str(), "r");
#endif
  if (pipe == nullptr) return std::nullopt;
  std::string content;
  char buffer[1 << 16];
  std::size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) content.append(buffer, got);
#ifdef _WIN32
  const int status = _pclose(pipe);
#else
  const int status = pclose(pipe);
#endif
  if (status != 0 || content.empty()) return std::nullopt;
  return content;
}

}  // namespace leasehold::test
