// version.hpp: the constants agree with the macros and the string is MAJOR.MINOR.PATCH.

#include <doctest/doctest.h>

#include <string>

#include <leasehold/version.hpp>

namespace version_test {

TEST_CASE("version: the string is made of the three numbers") {
  CHECK(leasehold::version_major == LEASEHOLD_VERSION_MAJOR);
  CHECK(leasehold::version_minor == LEASEHOLD_VERSION_MINOR);
  CHECK(leasehold::version_patch == LEASEHOLD_VERSION_PATCH);
  CHECK(std::string(leasehold::version_string) ==
        std::to_string(leasehold::version_major) + "." + std::to_string(leasehold::version_minor) +
            "." + std::to_string(leasehold::version_patch));
}

}  // namespace version_test
