#pragma once

// The shared check for bad input: the call throws the expected leasehold::error subclass, its
// message names the offending value, and the profile is exactly as it was (the strong
// guarantee of DESIGN.md).

#include <doctest/doctest.h>

#include <string>
#include <type_traits>

#include <leasehold/core/error.hpp>

#include "availability/differential.hpp"

namespace leasehold::testing {

template <class Error, class B, class Call>
void check_rejected(const B& profile, Call call, const std::string& must_mention) {
  static_assert(std::is_base_of_v<leasehold::error, Error>,
                "every rejection is a leasehold::error");
  const auto before = blocks_of(profile);
  const auto origin = profile.origin();
  std::string message;
  try {
    call();
    FAIL_CHECK("the call was accepted; expected a rejection mentioning '" << must_mention << "'");
  } catch (const Error& e) {
    message = e.what();
  }
  CHECK_MESSAGE(message.find(must_mention) != std::string::npos,
                "message '" << message << "' does not mention '" << must_mention << "'");
  CHECK(blocks_of(profile) == before);
  CHECK(profile.origin() == origin);
  if constexpr (requires { profile.validate(); }) profile.validate();
}

}  // namespace leasehold::testing
