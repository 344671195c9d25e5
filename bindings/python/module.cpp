// The `leasehold` Python module (pybind11): the availability backends over int64 time, for a
// scalar int64 capacity and for resources<4, int64> (4-tuples in and out), with leasehold's
// error hierarchy as Python exceptions carrying the same messages.
//
// Calls are short (a microsecond or less for a profile of thousands of blocks), so they keep
// the GIL: releasing and re-taking it would cost more than the call itself.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "leasehold/availability/capacity_tree.hpp"
#include "leasehold/availability/free_list.hpp"
#include "leasehold/availability/free_tree.hpp"
#include "leasehold/availability/reference.hpp"
#include "leasehold/availability/slotted_ring.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/version.hpp"

namespace py = pybind11;

void bind_leases(py::module_& m);      // leases.cpp
void bind_slot_table(py::module_& m);  // slot_table.cpp

namespace {

using time_type = std::int64_t;
using scalar = std::int64_t;
using vector4 = leasehold::resources<4, std::int64_t>;

constexpr time_type no_lower_bound = std::numeric_limits<time_type>::min();
constexpr time_type no_upper_bound = std::numeric_limits<time_type>::max();

// Capacity in and out of Python: an int, or a 4-tuple of ints for resources<4>.
scalar from_python(scalar c) { return c; }
vector4 from_python(const std::array<std::int64_t, 4>& c) { return vector4{c}; }
py::object to_python(scalar c) { return py::int_(c); }
py::object to_python(const vector4& c) {
  return py::make_tuple(c.values[0], c.values[1], c.values[2], c.values[3]);
}
template <class C>
using python_capacity =
    std::conditional_t<std::is_same_v<C, scalar>, scalar, std::array<std::int64_t, 4>>;

template <class A>
void bind_common(py::class_<A>& cls) {
  using C = typename A::capacity_type;
  using in = python_capacity<C>;
  cls.def_property_readonly(
         "total", [](const A& a) { return to_python(a.total()); }, "c_r, the capacity.")
      .def_property_readonly("origin", &A::origin, "The present: nothing before it is kept.")
      .def(
          "earliest_fit",
          [](const A& a, const in& amount, time_type duration, time_type window_begin,
             time_type window_end) -> std::optional<time_type> {
            return a.earliest_fit({from_python(amount), duration, {window_begin, window_end}});
          },
          py::arg("amount"), py::arg("duration"), py::arg("window_begin") = no_lower_bound,
          py::arg("window_end") = no_upper_bound,
          "The smallest start s in [window_begin, window_end - duration] with `amount` free\n"
          "over [s, s + duration), or None.")
      .def(
          "reserve",
          [](A& a, time_type begin, time_type end, const in& amount) {
            a.reserve({begin, end}, from_python(amount));
          },
          py::arg("begin"), py::arg("end"), py::arg("amount"),
          "Books `amount` over [begin, end). Raises InsufficientCapacity when it is not free\n"
          "throughout, InvalidRequest for a malformed span; either way nothing changes.")
      .def(
          "release",
          [](A& a, time_type begin, time_type end, const in& amount) {
            a.release({begin, end}, from_python(amount));
          },
          py::arg("begin"), py::arg("end"), py::arg("amount"),
          "Gives back `amount` over [begin, end), the exact inverse of reserve. Raises\n"
          "InvalidRelease when more than is booked would be released.")
      .def("advance_to", &A::advance_to, py::arg("t"),
           "Moves the origin forward to t and forgets the past.")
      .def(
          "free_at", [](const A& a, time_type t) { return to_python(a.free_at(t)); }, py::arg("t"),
          "Capacity free at time t.")
      .def(
          "min_free",
          [](const A& a, time_type begin, time_type end) {
            return to_python(a.min_free({begin, end}));
          },
          py::arg("begin"), py::arg("end"), "Least capacity free anywhere in [begin, end).")
      .def(
          "free_blocks",
          [](const A& a) {
            py::list blocks;
            for (const auto& b : a.free_blocks())
              blocks.append(py::make_tuple(b.span.begin, b.span.end, to_python(b.free)));
            return blocks;
          },
          "The profile as maximal blocks (begin, end, free) in time order.")
      .def(
          "block_count", [](const A& a) { return a.block_count(); },
          "Size of the structure (blocks held).")
      .def("memory_usage", &A::memory_usage,
           "Bytes the structure holds: nodes, pools and arrays, unused room included.")
      .def("validate", &A::validate,
           "Checks the internal invariants; raises leasehold.Error on a bug.")
      .def("__copy__", [](const A& a) { return A(a); })
      .def(
          "__deepcopy__", [](const A& a, py::dict) { return A(a); }, py::arg("memo"));
}

template <class A>
void bind_profile(py::module_& m, const char* name, const char* doc) {
  using C = typename A::capacity_type;
  py::class_<A> cls(m, name, doc);
  cls.def(py::init([](const python_capacity<C>& total, time_type origin) {
            return A(from_python(total), origin);
          }),
          py::arg("total"), py::arg("origin") = 0);
  bind_common(cls);
  if constexpr (requires(A & a) { a.compact(); })
    cls.def("compact", &A::compact,
            "Lays the tree out afresh, as a copy is (its nodes in one block of memory, in the\n"
            "order a search meets them), and gives back the pools' unused room. O(n); call it\n"
            "when a pause suits you, nothing else does. On MemoryError it is unchanged.");
}

template <class A>
void bind_ring(py::module_& m, const char* name, const char* doc) {
  using C = typename A::capacity_type;
  py::class_<A> cls(m, name, doc);
  cls.def(py::init([](const python_capacity<C>& total, time_type dt, std::size_t slots,
                      time_type origin) { return A(from_python(total), dt, slots, origin); }),
          py::arg("total"), py::arg("dt"), py::arg("slots"), py::arg("origin") = 0)
      .def_property_readonly("slot_width", &A::slot_width)
      .def_property_readonly("slot_count", &A::slot_count)
      .def_property_readonly(
          "horizon", [](const A& a) { return py::make_tuple(a.horizon().begin, a.horizon().end); });
  bind_common(cls);
}

}  // namespace

PYBIND11_MODULE(_leasehold, m) {
  m.doc() =
      "leasehold: planning-based resource management (availability profiles of the\n"
      "advance-reservation literature) from the header-only C++20 library.";
  m.attr("__version__") = LEASEHOLD_VERSION_STRING;
  m.attr("TIME_MIN") = no_lower_bound;
  m.attr("TIME_MAX") = no_upper_bound;

  // Base first: pybind11 tries the translators last-registered first, so each subclass is
  // matched before leasehold::error.
  const py::object error = py::register_exception<leasehold::error>(m, "Error");
  error.attr("__doc__") = "Base of every error leasehold raises for bad input.";
  py::register_exception<leasehold::invalid_request>(m, "InvalidRequest", error);
  py::register_exception<leasehold::insufficient_capacity>(m, "InsufficientCapacity", error);
  py::register_exception<leasehold::invalid_release>(m, "InvalidRelease", error);
  py::register_exception<leasehold::out_of_horizon>(m, "OutOfHorizon", error);
  py::register_exception<leasehold::invariant_violation>(m, "InvariantViolation", error);

  bind_profile<leasehold::free_list<time_type, scalar>>(
      m, "free_list", "Sorted list of maximal free blocks (scalar int64 capacity).");
  bind_profile<leasehold::free_tree<time_type, scalar>>(
      m, "free_tree", "Balanced tree of free blocks with run summaries (scalar int64 capacity).");
  bind_profile<leasehold::capacity_tree<time_type, scalar>>(
      m, "capacity_tree", "Tree keyed by free capacity (scalar int64 capacity only).");
  bind_profile<leasehold::reference<time_type, scalar>>(
      m, "reference", "The naive profile every backend is checked against.");
  bind_ring<leasehold::slotted_ring<time_type, scalar>>(
      m, "slotted_ring", "Fixed horizon of `slots` slots of width `dt` (scalar capacity).");

  bind_profile<leasehold::free_list<time_type, vector4>>(
      m, "free_list4", "free_list over resources<4, int64>: capacities are 4-tuples.");
  bind_profile<leasehold::free_tree<time_type, vector4>>(
      m, "free_tree4", "free_tree over resources<4, int64>: capacities are 4-tuples.");
  bind_profile<leasehold::reference<time_type, vector4>>(
      m, "reference4", "reference over resources<4, int64>: capacities are 4-tuples.");
  bind_ring<leasehold::slotted_ring<time_type, vector4>>(
      m, "slotted_ring4", "slotted_ring over resources<4, int64>: capacities are 4-tuples.");

  bind_slot_table(m);
  bind_leases(m);
}
