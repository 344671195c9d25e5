#pragma once

// What the checkpoint tests share to corrupt a document and read the error it gets.

#include <doctest/doctest.h>

#include <cstddef>
#include <string>
#include <string_view>

#include <leasehold/core/error.hpp>
#include <leasehold/io/checkpoint_checksum.hpp>
#include <leasehold/io/json.hpp>

namespace leasehold::testing {

// The io::format_error message `load()` throws, or "no error".
std::string format_error_of(auto load) {
  try {
    load();
  } catch (const io::format_error& e) {
    return e.what();
  }
  return "no error";
}

// Whether `message` is how a corrupted or truncated checkpoint is refused: by its checksum
// (before anything is parsed), or, when the damage leaves no checksum to check, as malformed
// JSON with its line and column.
inline bool refused_as_corrupt(const std::string& message) {
  return message.starts_with("at $.checksum: ") || message.starts_with("line ");
}

// `text` with the first `from` replaced by `to` (which must be there), as it was written: the
// checksum no longer matches.
inline std::string replaced_unsealed(std::string text, const std::string& from,
                                     const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

// The same edit made deliberately: sealed again when the text carries a checksum, so that
// what the loader then refuses is the content, not the checksum.
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  std::string edited = replaced_unsealed(std::move(text), from, to);
  if (io::detail::find_checksum(edited) == std::string::npos) return edited;
  return io::seal_checkpoint(std::move(edited));
}

// What became of every corruption corrupt_every_way tried.
struct corruption_outcome {
  std::size_t refused = 0;              // a leasehold::error
  std::size_t refused_by_checksum = 0;  // of which by the checksum, before anything was parsed
  std::size_t loaded_identically = 0;   // loaded, and saves back to the original
  std::size_t loaded_differently = 0;   // loaded as another state: what must never happen
};

// Flips every bit of `text` in turn, then cuts it at every byte (lengths 0 to size - 1), and
// loads each with `load_and_save` (which returns the loaded object saved again).
inline corruption_outcome corrupt_every_way(const std::string& text, auto load_and_save) {
  corruption_outcome outcome;
  const auto attempt = [&](const std::string& corrupted) {
    try {
      if (load_and_save(corrupted) == text)
        ++outcome.loaded_identically;
      else
        ++outcome.loaded_differently;
    } catch (const error& e) {
      ++outcome.refused;
      if (std::string_view(e.what()).starts_with("at $.checksum: ")) ++outcome.refused_by_checksum;
    }
  };
  std::string flipped = text;
  for (std::size_t byte = 0; byte < text.size(); ++byte)
    for (int bit = 0; bit < 8; ++bit) {
      flipped[byte] = static_cast<char>(text[byte] ^ (1 << bit));
      attempt(flipped);
      flipped[byte] = text[byte];
    }
  for (std::size_t n = 0; n < text.size(); ++n) attempt(text.substr(0, n));
  return outcome;
}

}  // namespace leasehold::testing
