#pragma once

/// \file
/// leasehold's version. It lives here, in the source tree, so that `-I include` is all a
/// compiler needs; CMake reads these three numbers at configure time and stops with an error
/// when they differ from project(VERSION) in CMakeLists.txt, so the two cannot drift apart.

#define LEASEHOLD_VERSION_MAJOR 0         ///< Changes with incompatible API changes.
#define LEASEHOLD_VERSION_MINOR 1         ///< Changes with additions.
#define LEASEHOLD_VERSION_PATCH 0         ///< Changes with fixes.
#define LEASEHOLD_VERSION_STRING "0.1.0"  ///< "MAJOR.MINOR.PATCH".

namespace leasehold {
inline constexpr int version_major = LEASEHOLD_VERSION_MAJOR;  ///< LEASEHOLD_VERSION_MAJOR
inline constexpr int version_minor = LEASEHOLD_VERSION_MINOR;  ///< LEASEHOLD_VERSION_MINOR
inline constexpr int version_patch = LEASEHOLD_VERSION_PATCH;  ///< LEASEHOLD_VERSION_PATCH
inline constexpr const char* version_string = LEASEHOLD_VERSION_STRING;  ///< "MAJOR.MINOR.PATCH"
}  // namespace leasehold
