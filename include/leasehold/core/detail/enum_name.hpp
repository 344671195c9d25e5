#pragma once

// The one body behind the enums' operator<<: an enum whose enumerators are 0, 1, 2, ... in
// declaration order is printed by indexing a table of names, so adding an enumerator means
// adding its name, not another switch case. A value outside the table (a cast from a bad
// integer) prints `unknown`.

#include <array>
#include <cstddef>
#include <ostream>
#include <type_traits>

namespace leasehold::detail {

template <class E, std::size_t N>
requires std::is_enum_v<E> std::ostream& write_enum_name(std::ostream& out, E value,
                                                         const std::array<const char*, N>& names,
                                                         const char* unknown = "?") {
  const auto index = static_cast<std::underlying_type_t<E>>(value);
  if (index < 0 || static_cast<std::size_t>(index) >= N) return out << unknown;
  return out << names[static_cast<std::size_t>(index)];
}

}  // namespace leasehold::detail
