// cluster::slot_table in Python (Haizea's slot table, Sotomayor, Keahey & Foster §3.2): W
// identical nodes, each a free_list profile, scalar or resources<4>; gang earliest fit with
// node ids, all-or-nothing reserve and release.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "leasehold/availability/free_list.hpp"
#include "leasehold/cluster/slot_table.hpp"

namespace py = pybind11;

namespace {

using T = std::int64_t;
using vector4 = leasehold::resources<4, std::int64_t>;

std::int64_t from_python(std::int64_t c) { return c; }
vector4 from_python(const std::array<std::int64_t, 4>& c) { return vector4{c}; }
py::object to_python(std::int64_t c) { return py::int_(c); }
py::object to_python(const vector4& c) {
  return py::make_tuple(c.values[0], c.values[1], c.values[2], c.values[3]);
}

template <class C>
void bind_table(py::module_& m, const char* name) {
  using table = leasehold::cluster::slot_table<leasehold::free_list<T, C>>;
  using in = std::conditional_t<std::is_same_v<C, std::int64_t>, std::int64_t,
                                std::array<std::int64_t, 4>>;
  using placement = typename table::placement_type;
  py::class_<table>(m, name,
                    "Haizea's slot table: `nodes` identical free_list profiles of `per_node`.")
      .def(py::init([](std::size_t nodes, const in& per_node, T origin) {
             return table(nodes, from_python(per_node), origin);
           }),
           py::arg("nodes"), py::arg("per_node"), py::arg("origin") = 0)
      .def_property_readonly("node_count", &table::node_count)
      .def_property_readonly("origin", &table::origin)
      .def(
          "earliest_fit",
          [](const table& t, std::size_t nodes, const in& per_node, T duration, T window_begin,
             T window_end) -> std::optional<std::pair<T, std::vector<std::size_t>>> {
            const auto fit = t.earliest_fit(
                {nodes, from_python(per_node), duration, {window_begin, window_end}});
            if (!fit) return std::nullopt;
            return std::pair{fit->span.begin, fit->nodes};
          },
          py::arg("nodes"), py::arg("per_node"), py::arg("duration"),
          py::arg("window_begin") = std::numeric_limits<T>::min(),
          py::arg("window_end") = std::numeric_limits<T>::max(),
          "The earliest start of `nodes` distinct nodes each with per_node free for the\n"
          "duration, as (start, node ids), or None.")
      .def(
          "reserve",
          [](table& t, T begin, T end, const in& per_node, const std::vector<std::size_t>& ids) {
            t.reserve(placement{{begin, end}, from_python(per_node), ids});
          },
          py::arg("begin"), py::arg("end"), py::arg("per_node"), py::arg("nodes"),
          "Books per_node on every listed node over [begin, end); all or nothing.")
      .def(
          "release",
          [](table& t, T begin, T end, const in& per_node, const std::vector<std::size_t>& ids) {
            t.release(placement{{begin, end}, from_python(per_node), ids});
          },
          py::arg("begin"), py::arg("end"), py::arg("per_node"), py::arg("nodes"))
      .def("advance_to", &table::advance_to, py::arg("t"))
      .def(
          "free_at",
          [](const table& t, std::size_t node, T at) {
            return to_python(t.node(node).free_at(at));
          },
          py::arg("node"), py::arg("t"))
      .def(
          "free_blocks",
          [](const table& t, std::size_t node) {
            py::list blocks;
            for (const auto& b : t.node(node).free_blocks())
              blocks.append(py::make_tuple(b.span.begin, b.span.end, to_python(b.free)));
            return blocks;
          },
          py::arg("node"))
      .def("validate", &table::validate);
}

}  // namespace

void bind_slot_table(py::module_& m) {
  bind_table<std::int64_t>(m, "slot_table");
  bind_table<vector4>(m, "slot_table4");
}
