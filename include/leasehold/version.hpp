#pragma once

// leasehold's version. It lives here, in the source tree, so that `-I include` is all a
// compiler needs; CMake reads these three numbers at configure time and stops with an error
// when they differ from project(VERSION) in CMakeLists.txt, so the two cannot drift apart.

#define LEASEHOLD_VERSION_MAJOR 0
#define LEASEHOLD_VERSION_MINOR 1
#define LEASEHOLD_VERSION_PATCH 0
#define LEASEHOLD_VERSION_STRING "0.1.0"

namespace leasehold {
inline constexpr int version_major = LEASEHOLD_VERSION_MAJOR;
inline constexpr int version_minor = LEASEHOLD_VERSION_MINOR;
inline constexpr int version_patch = LEASEHOLD_VERSION_PATCH;
inline constexpr const char* version_string = LEASEHOLD_VERSION_STRING;
}  // namespace leasehold
