#pragma once

/// \file
/// resource_names: the run-time schema of a dynamic_resources vector, the names of its
/// components in order ("cores", "memory_mb", "gpus", "licences"), as a scheduler reads them
/// from its configuration. It builds values by name and finds a component's index; the values
/// themselves carry no names (a backend copies them around, one per block), so the schema is
/// kept once, beside the profile, by whoever reads the configuration.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "leasehold/core/detail/describe.hpp"
#include "leasehold/core/dynamic_resources.hpp"
#include "leasehold/core/error.hpp"

namespace leasehold {

/// The names of a dynamic_resources vector's components, in order, each non-empty and
/// unique. Lookups by name are linear in the number of components (a handful).
class resource_names {
 public:
  /// Throws invalid_request for no names, an empty name or a name given twice, naming it.
  resource_names(std::initializer_list<std::string_view> names)
      : resource_names(std::vector<std::string>(names.begin(), names.end())) {}

  /// The same from names read at run time; the same checks and exceptions.
  explicit resource_names(std::vector<std::string> names) : names_(std::move(names)) {
    if (names_.empty()) throw invalid_request("resource_names: needs at least one name");
    for (std::size_t i = 0; i < names_.size(); ++i) {
      if (names_[i].empty())
        throw invalid_request(detail::describe("resource_names: name ", i, " is empty"));
      for (std::size_t j = 0; j < i; ++j)
        if (names_[j] == names_[i])
          throw invalid_request(detail::describe("resource_names: \"", names_[i],
                                                 "\" is given twice (components ", j, " and ", i,
                                                 ")"));
    }
  }

  /// The number of components.
  [[nodiscard]] std::size_t size() const noexcept { return names_.size(); }

  /// The index of a component, or nullopt for a name the schema does not hold.
  [[nodiscard]] std::optional<std::size_t> index_of(std::string_view name) const noexcept {
    const auto it = std::ranges::find(names_, name);
    if (it == names_.end()) return std::nullopt;
    return static_cast<std::size_t>(it - names_.begin());
  }

  /// The name of component i; throws invalid_request for i >= size().
  [[nodiscard]] const std::string& name(std::size_t i) const {
    if (i >= names_.size())
      throw invalid_request(
          detail::describe("resource_names: no component ", i, " in a schema of ", size()));
    return names_[i];
  }

  /// Every name, in component order.
  [[nodiscard]] const std::vector<std::string>& names() const noexcept { return names_; }

  /// size() components of zero.
  template <class V = std::int64_t, std::size_t MaxN = 8>
  [[nodiscard]] dynamic_resources<V, MaxN> zero() const {
    return dynamic_resources<V, MaxN>(size());
  }

  /// A value with the named components set and the others zero:
  /// names.make({{"cores", 4}, {"gpus", 1}}). Throws invalid_request naming an unknown name or
  /// one given twice, or when the schema has more components than MaxN.
  template <class V = std::int64_t, std::size_t MaxN = 8>
  [[nodiscard]] dynamic_resources<V, MaxN> make(
      std::initializer_list<std::pair<std::string_view, V>> components) const {
    dynamic_resources<V, MaxN> result = zero<V, MaxN>();
    std::vector<bool> given(size(), false);
    for (const auto& [component, value] : components) {
      const std::optional<std::size_t> i = index_of(component);
      if (!i)
        throw invalid_request(detail::describe("resource_names: unknown resource \"", component,
                                               "\" (known: ", *this, ")"));
      if (given[*i])
        throw invalid_request(
            detail::describe("resource_names: resource \"", component, "\" is given twice"));
      given[*i] = true;
      result[*i] = value;
    }
    return result;
  }

  /// The same as make, for code that reads better as "the amount of ...".
  template <class V = std::int64_t, std::size_t MaxN = 8>
  [[nodiscard]] dynamic_resources<V, MaxN> amount(
      std::initializer_list<std::pair<std::string_view, V>> components) const {
    return make<V, MaxN>(components);
  }

  /// A value written with its names, for messages and logs: {cores: 4, memory_mb: 1024}. Throws
  /// invalid_request when the value's count is not the schema's.
  template <class V, std::size_t MaxN>
  [[nodiscard]] std::string format(const dynamic_resources<V, MaxN>& value) const {
    if (value.size() != size())
      throw invalid_request(detail::describe("resource_names: value ", value, " has ", value.size(),
                                             " components, the schema ", *this, " has ", size()));
    std::string text = "{";
    for (std::size_t i = 0; i < size(); ++i)
      text += (i == 0 ? "" : ", ") + names_[i] + ": " + std::to_string(+value[i]);
    return text + "}";
  }

  /// Equal when the same names come in the same order.
  friend bool operator==(const resource_names&, const resource_names&) = default;

  /// Writes the names as `{cores, memory_mb, gpus}`.
  friend std::ostream& operator<<(std::ostream& out, const resource_names& names) {
    out << '{';
    for (std::size_t i = 0; i < names.size(); ++i) out << (i == 0 ? "" : ", ") << names.names_[i];
    return out << '}';
  }

 private:
  std::vector<std::string> names_;
};

}  // namespace leasehold
