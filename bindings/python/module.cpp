// The `leasehold` Python module (pybind11): the availability backends over int64 time, for a
// scalar int64 capacity and for resources<4, int64> (4-tuples in and out), with leasehold's
// error hierarchy as Python exceptions carrying the same messages. Each class is the backend
// wrapped in bookings<A> (availability/bookings.hpp): the plain reserve / release are anonymous
// bookings, book() returns an id that release_booking / shrink_booking / find_booking take, and
// a plan end bounds bookings and searches.
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

#include "leasehold/availability/bookings.hpp"
#include "leasehold/availability/capacity_tree.hpp"
#include "leasehold/availability/free_list.hpp"
#include "leasehold/availability/free_tree.hpp"
#include "leasehold/availability/reference.hpp"
#include "leasehold/availability/slotted_ring.hpp"
#include "leasehold/availability/walk.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/version.hpp"

namespace py = pybind11;

void bind_leases(py::module_& m);         // leases.cpp
void bind_slot_table(py::module_& m);     // slot_table.cpp
void bind_multi_profile(py::module_& m);  // multi_profile.cpp

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

// A live booking as a tuple (id, begin, end, amount).
template <class B>
py::tuple booking_tuple(const B& b) {
  return py::make_tuple(b.id.value, b.span.begin, b.span.end, to_python(b.amount));
}

template <class A>
void bind_common(py::class_<A>& cls) {
  using C = typename A::capacity_type;
  using in = python_capacity<C>;
  using id_type = std::uint64_t;
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
      .def(
          "book",
          [](A& a, time_type begin, time_type end, const in& amount) {
            return a.book({begin, end}, from_python(amount)).value;
          },
          py::arg("begin"), py::arg("end"), py::arg("amount"),
          "Books `amount` over [begin, end) and returns the booking's id (ids count up from 1).\n"
          "An amount of zero holds nothing and still gets an id. Raises as reserve does (and\n"
          "InvalidRequest for a span past the plan end); nothing changes then.")
      .def(
          "release_booking", [](A& a, id_type id) { a.release(leasehold::booking_id{id}); },
          py::arg("id"),
          "Gives back everything booking `id` holds and forgets it. Raises InvalidRelease,\n"
          "changing nothing, when id is not a live booking.")
      .def(
          "shrink_booking",
          [](A& a, id_type id, const in& by) {
            return a.shrink(leasehold::booking_id{id}, from_python(by));
          },
          py::arg("id"), py::arg("by"),
          "Gives back `by` of the booking's amount over its whole span; True when nothing is\n"
          "left and the booking is gone. Raises InvalidRelease for an id that is not live or a\n"
          "`by` below zero or above the amount.")
      .def(
          "find_booking",
          [](const A& a, id_type id) -> std::optional<py::tuple> {
            const auto* b = a.find(leasehold::booking_id{id});
            if (b == nullptr) return std::nullopt;
            return booking_tuple(*b);
          },
          py::arg("id"), "The live booking `id` as (id, begin, end, amount), or None.")
      .def(
          "bookings",
          [](const A& a) {
            py::list out;
            for (const auto& b : a.live()) out.append(booking_tuple(b));
            return out;
          },
          "The live bookings as (id, begin, end, amount) in id order.")
      .def(
          "booking_count", [](const A& a) { return a.size(); }, "The number of live bookings.")
      .def_property_readonly(
          "next_booking_id", [](const A& a) { return a.next_id().value; },
          "The id the next book() returns.")
      .def_property(
          "plan_end", [](const A& a) { return a.plan_end(); },
          [](A& a, std::optional<time_type> end) { a.set_plan_end(end); },
          "A horizon no booking and no search may cross (None: no bound). earliest_fit only\n"
          "answers starts whose span ends by it, and a window too short for the duration\n"
          "answers None. Setting it raises InvalidRequest, changing nothing, when a live\n"
          "booking ends after it or it is not after the origin.")
      .def(
          "next_change", [](const A& a, time_type t) { return leasehold::next_change(a, t); },
          py::arg("t"),
          "The first time after t at which the free capacity differs from free_at(t) (the end\n"
          "of the block in force at t), or None when it never does.")
      .def(
          "blocks_in",
          [](const A& a, time_type begin, time_type end) {
            py::list blocks;
            for (const auto& b : leasehold::blocks_in(a, {begin, end}))
              blocks.append(py::make_tuple(b.span.begin, b.span.end, to_python(b.free)));
            return blocks;
          },
          py::arg("begin"), py::arg("end"),
          "The maximal blocks (begin, end, free) that meet [begin, end), clipped to it, walked\n"
          "in place (O(log n + k) on free_list, free_tree and reference).")
      .def(
          "set_total", [](A& a, const in& total) { a.set_total(from_python(total)); },
          py::arg("total"),
          "Changes the total: what is booked at every time stays, bookings included. Raises\n"
          "InsufficientCapacity, naming the earliest time, when more than `total` is booked\n"
          "somewhere; nothing changes then.")
      .def("__copy__", [](const A& a) { return A(a); })
      .def(
          "__deepcopy__", [](const A& a, py::dict) { return A(a); }, py::arg("memo"))
      .def(
          "__eq__",
          [](const A& a, const py::object& other) {
            return py::isinstance<A>(other) && a == other.cast<const A&>();
          },
          py::arg("other"),
          "Same total, origin, blocks, live bookings, next booking id and plan end.");
}

template <class A>
void bind_profile(py::module_& m, const char* name, const char* doc) {
  using C = typename A::capacity_type;
  using L = leasehold::bookings<A>;
  py::class_<L> cls(m, name, doc);
  cls.def(py::init([](const python_capacity<C>& total, time_type origin) {
            return L(A(from_python(total), origin));
          }),
          py::arg("total"), py::arg("origin") = 0);
  bind_common(cls);
  // A copy is laid out afresh (what the backend's compact() does), and assignment from it is
  // copy-and-swap: on MemoryError nothing changed.
  if constexpr (requires(A & a) { a.compact(); })
    cls.def(
        "compact", [](L& a) { a = L(a); },
        "Lays the tree out afresh, as a copy is (its nodes in one block of memory, in the\n"
        "order a search meets them), and gives back the pools' unused room. O(n); call it\n"
        "when a pause suits you, nothing else does. On MemoryError it is unchanged.");
}

template <class A>
void bind_ring(py::module_& m, const char* name, const char* doc) {
  using C = typename A::capacity_type;
  using L = leasehold::bookings<A>;
  py::class_<L> cls(m, name, doc);
  cls.def(py::init([](const python_capacity<C>& total, time_type dt, std::size_t slots,
                      time_type origin) { return L(A(from_python(total), dt, slots, origin)); }),
          py::arg("total"), py::arg("dt"), py::arg("slots"), py::arg("origin") = 0)
      .def_property_readonly("slot_width", [](const L& a) { return a.profile().slot_width(); })
      .def_property_readonly("slot_count", [](const L& a) { return a.profile().slot_count(); })
      .def_property_readonly("horizon", [](const L& a) {
        return py::make_tuple(a.profile().horizon().begin, a.profile().horizon().end);
      });
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

  bind_multi_profile(m);
  bind_slot_table(m);
  bind_leases(m);
}
