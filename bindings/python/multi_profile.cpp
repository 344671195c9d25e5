// leasehold.MultiProfile: a profile of several resources whose names are chosen at run time
// (cores, memory, GPUs, licences, as a scheduler reads them from its configuration), over
// dynamic_resources<int64, 8> and bookings<A> of the backend named. Amounts go in as a dict by
// name (names left out are 0) or as a sequence in name order, and come out as dicts in name
// order, so that a caller never has to remember the order of the resources.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "leasehold/availability/bookings.hpp"
#include "leasehold/availability/free_list.hpp"
#include "leasehold/availability/free_tree.hpp"
#include "leasehold/availability/reference.hpp"
#include "leasehold/availability/slotted_ring.hpp"
#include "leasehold/availability/walk.hpp"
#include "leasehold/core/detail/describe.hpp"
#include "leasehold/core/dynamic_resources.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/core/resource_names.hpp"

namespace py = pybind11;

namespace {

using time_type = std::int64_t;
using amount_type = leasehold::dynamic_resources<std::int64_t, 8>;

using multi_variant =
    std::variant<leasehold::bookings<leasehold::free_list<time_type, amount_type>>,
                 leasehold::bookings<leasehold::free_tree<time_type, amount_type>>,
                 leasehold::bookings<leasehold::reference<time_type, amount_type>>,
                 leasehold::bookings<leasehold::slotted_ring<time_type, amount_type>>>;

constexpr time_type no_lower_bound = std::numeric_limits<time_type>::min();
constexpr time_type no_upper_bound = std::numeric_limits<time_type>::max();

class multi_profile {
 public:
  multi_profile(const std::string& backend, const py::dict& totals, time_type origin,
                std::optional<time_type> dt, std::optional<std::size_t> slots)
      : backend_(backend), names_(names_of(totals)), profile_(make(origin, dt, slots, totals)) {}

  [[nodiscard]] const std::string& backend() const noexcept { return backend_; }
  [[nodiscard]] const leasehold::resource_names& names() const noexcept { return names_; }

  // A dict by name (names left out are 0) or a sequence of one value per resource, in order.
  [[nodiscard]] amount_type amount(const py::handle& value) const {
    if (py::isinstance<py::dict>(value)) {
      amount_type result = names_.zero();
      for (const auto& [key, v] : value.cast<py::dict>()) {
        const auto name = key.cast<std::string>();
        const std::optional<std::size_t> i = names_.index_of(name);
        if (!i)
          throw leasehold::invalid_request(leasehold::detail::describe(
              "MultiProfile: unknown resource \"", name, "\" (known: ", names_, ")"));
        if (!py::isinstance<py::int_>(v))
          throw py::type_error(leasehold::detail::describe("MultiProfile: the amount of \"", name,
                                                           "\" must be an int"));
        result[*i] = v.cast<std::int64_t>();
      }
      return result;
    }
    if (!py::isinstance<py::sequence>(value) || py::isinstance<py::str>(value))
      throw py::type_error(
          "MultiProfile: an amount is a dict by name or a sequence of ints in name order, not " +
          std::string(py::str(py::type::of(value).attr("__name__"))));
    std::vector<std::int64_t> values;
    try {
      values = value.cast<std::vector<std::int64_t>>();
    } catch (const py::cast_error&) {
      throw py::type_error("MultiProfile: an amount's values must be ints");
    }
    if (values.size() != names_.size())
      throw leasehold::invalid_request(
          leasehold::detail::describe("MultiProfile: ", values.size(), " values for a profile of ",
                                      names_.size(), " resources ", names_));
    return amount_type::from(values);
  }

  [[nodiscard]] py::dict to_python(const amount_type& value) const {
    py::dict out;
    for (std::size_t i = 0; i < names_.size(); ++i)
      out[py::str(names_.name(i))] = value.component(i);
    return out;
  }

  template <class F>
  decltype(auto) visit(F&& f) {
    return std::visit(std::forward<F>(f), profile_);
  }
  template <class F>
  decltype(auto) visit(F&& f) const {
    return std::visit(std::forward<F>(f), profile_);
  }

  friend bool operator==(const multi_profile& a, const multi_profile& b) {
    return a.backend_ == b.backend_ && a.names_ == b.names_ && a.profile_ == b.profile_;
  }

 private:
  static leasehold::resource_names names_of(const py::dict& totals) {
    std::vector<std::string> names;
    for (const auto& item : totals) names.push_back(item.first.cast<std::string>());
    if (names.size() > amount_type::max_size)
      throw leasehold::invalid_request(leasehold::detail::describe(
          "MultiProfile: ", names.size(), " resources; a profile holds between 1 and ",
          amount_type::max_size));
    return leasehold::resource_names(std::move(names));
  }

  multi_variant make(time_type origin, std::optional<time_type> dt,
                     std::optional<std::size_t> slots, const py::dict& totals) const {
    const amount_type total = amount(totals);
    const bool ring = backend_ == "slotted_ring";
    if (ring != (dt.has_value() && slots.has_value()) || dt.has_value() != slots.has_value())
      throw leasehold::invalid_request(
          ring ? "MultiProfile: slotted_ring needs dt and slots"
               : leasehold::detail::describe("MultiProfile: ", backend_,
                                             " takes no dt or slots (slotted_ring does)"));
    using namespace leasehold;
    if (backend_ == "free_list")
      return bookings<free_list<time_type, amount_type>>(
          free_list<time_type, amount_type>(total, origin));
    if (backend_ == "free_tree")
      return bookings<free_tree<time_type, amount_type>>(
          free_tree<time_type, amount_type>(total, origin));
    if (backend_ == "reference")
      return bookings<reference<time_type, amount_type>>(
          reference<time_type, amount_type>(total, origin));
    if (ring)
      return bookings<slotted_ring<time_type, amount_type>>(
          slotted_ring<time_type, amount_type>(total, *dt, *slots, origin));
    throw invalid_request(
        detail::describe("MultiProfile: unknown backend \"", backend_,
                         "\": expected free_list, free_tree, reference or slotted_ring "
                         "(capacity_tree holds one scalar resource)"));
  }

  std::string backend_;
  leasehold::resource_names names_;
  multi_variant profile_;
};

py::tuple booking_tuple(const multi_profile& p, const auto& b) {
  return py::make_tuple(b.id.value, b.span.begin, b.span.end, p.to_python(b.amount));
}

}  // namespace

void bind_multi_profile(py::module_& m) {
  using id_type = std::uint64_t;
  py::class_<multi_profile>(
      m, "MultiProfile",
      "A profile of several resources named at run time, e.g.\n"
      "MultiProfile(\"free_tree\", {\"cores\": 64, \"memory_mb\": 262144}). Amounts are dicts by\n"
      "name (names left out are 0) or sequences in name order; answers are dicts in name\n"
      "order. A reservation fits where every resource has room. The backend is free_list,\n"
      "free_tree, reference or slotted_ring (which needs dt and slots).")
      .def(py::init<const std::string&, const py::dict&, time_type, std::optional<time_type>,
                    std::optional<std::size_t>>(),
           py::arg("backend"), py::arg("totals"), py::arg("origin") = 0, py::arg("dt") = py::none(),
           py::arg("slots") = py::none())
      .def_property_readonly("backend", &multi_profile::backend, "The backend's name.")
      .def_property_readonly(
          "names",
          [](const multi_profile& p) {
            py::list names;
            for (const auto& name : p.names().names()) names.append(name);
            return py::tuple(names);
          },
          "The resource names, in order.")
      .def_property_readonly(
          "total",
          [](const multi_profile& p) {
            return p.visit([&](const auto& a) { return p.to_python(a.total()); });
          },
          "The total of each resource.")
      .def_property_readonly(
          "origin",
          [](const multi_profile& p) { return p.visit([](const auto& a) { return a.origin(); }); },
          "The present: nothing before it is kept.")
      .def(
          "earliest_fit",
          [](const multi_profile& p, const py::object& amount, time_type duration,
             time_type window_begin, time_type window_end) {
            const amount_type c = p.amount(amount);
            return p.visit([&](const auto& a) {
              return a.earliest_fit({c, duration, {window_begin, window_end}});
            });
          },
          py::arg("amount"), py::arg("duration"), py::arg("window_begin") = no_lower_bound,
          py::arg("window_end") = no_upper_bound,
          "The smallest start s in [window_begin, window_end - duration] with `amount` free in\n"
          "every resource over [s, s + duration), within the plan end; or None.")
      .def(
          "reserve",
          [](multi_profile& p, time_type begin, time_type end, const py::object& amount) {
            const amount_type c = p.amount(amount);
            p.visit([&](auto& a) { a.reserve({begin, end}, c); });
          },
          py::arg("begin"), py::arg("end"), py::arg("amount"),
          "An anonymous booking of `amount` over [begin, end); raises as the scalar profiles do.")
      .def(
          "release",
          [](multi_profile& p, time_type begin, time_type end, const py::object& amount) {
            const amount_type c = p.amount(amount);
            p.visit([&](auto& a) { a.release({begin, end}, c); });
          },
          py::arg("begin"), py::arg("end"), py::arg("amount"),
          "Gives back an anonymous booking; InvalidRelease for more than is booked.")
      .def(
          "advance_to",
          [](multi_profile& p, time_type t) { p.visit([&](auto& a) { a.advance_to(t); }); },
          py::arg("t"), "Moves the origin forward to t and forgets the past.")
      .def(
          "free_at",
          [](const multi_profile& p, time_type t) {
            return p.visit([&](const auto& a) { return p.to_python(a.free_at(t)); });
          },
          py::arg("t"), "Capacity free at time t, by resource.")
      .def(
          "min_free",
          [](const multi_profile& p, time_type begin, time_type end) {
            return p.visit([&](const auto& a) { return p.to_python(a.min_free({begin, end})); });
          },
          py::arg("begin"), py::arg("end"), "Least capacity free in [begin, end), by resource.")
      .def(
          "free_blocks",
          [](const multi_profile& p) {
            py::list blocks;
            p.visit([&](const auto& a) {
              for (const auto& b : a.free_blocks())
                blocks.append(py::make_tuple(b.span.begin, b.span.end, p.to_python(b.free)));
            });
            return blocks;
          },
          "The profile as maximal blocks (begin, end, free) in time order.")
      .def(
          "blocks_in",
          [](const multi_profile& p, time_type begin, time_type end) {
            py::list blocks;
            p.visit([&](const auto& a) {
              for (const auto& b : leasehold::blocks_in(a, {begin, end}))
                blocks.append(py::make_tuple(b.span.begin, b.span.end, p.to_python(b.free)));
            });
            return blocks;
          },
          py::arg("begin"), py::arg("end"),
          "The maximal blocks (begin, end, free) that meet [begin, end), clipped to it.")
      .def(
          "next_change",
          [](const multi_profile& p, time_type t) {
            return p.visit([&](const auto& a) { return leasehold::next_change(a, t); });
          },
          py::arg("t"), "The first time after t at which some resource's free capacity changes.")
      .def(
          "set_total",
          [](multi_profile& p, const py::object& total) {
            const amount_type c = p.amount(total);
            p.visit([&](auto& a) { a.set_total(c); });
          },
          py::arg("total"),
          "Changes the totals (all at once), keeping what is booked; InsufficientCapacity,\n"
          "naming the earliest time, when more is booked somewhere.")
      .def(
          "book",
          [](multi_profile& p, time_type begin, time_type end, const py::object& amount) {
            const amount_type c = p.amount(amount);
            return p.visit([&](auto& a) { return a.book({begin, end}, c).value; });
          },
          py::arg("begin"), py::arg("end"), py::arg("amount"),
          "Books `amount` over [begin, end) and returns the booking's id.")
      .def(
          "release_booking",
          [](multi_profile& p, id_type id) {
            p.visit([&](auto& a) { a.release(leasehold::booking_id{id}); });
          },
          py::arg("id"), "Gives back booking `id`; InvalidRelease when it is not live.")
      .def(
          "shrink_booking",
          [](multi_profile& p, id_type id, const py::object& by) {
            const amount_type c = p.amount(by);
            return p.visit([&](auto& a) { return a.shrink(leasehold::booking_id{id}, c); });
          },
          py::arg("id"), py::arg("by"),
          "Gives back `by` of the booking's amount; True when nothing is left.")
      .def(
          "find_booking",
          [](const multi_profile& p, id_type id) -> std::optional<py::tuple> {
            return p.visit([&](const auto& a) -> std::optional<py::tuple> {
              const auto* b = a.find(leasehold::booking_id{id});
              if (b == nullptr) return std::nullopt;
              return booking_tuple(p, *b);
            });
          },
          py::arg("id"), "The live booking `id` as (id, begin, end, amount), or None.")
      .def(
          "bookings",
          [](const multi_profile& p) {
            py::list out;
            p.visit([&](const auto& a) {
              for (const auto& b : a.live()) out.append(booking_tuple(p, b));
            });
            return out;
          },
          "The live bookings as (id, begin, end, amount) in id order.")
      .def(
          "booking_count",
          [](const multi_profile& p) { return p.visit([](const auto& a) { return a.size(); }); },
          "The number of live bookings.")
      .def_property_readonly(
          "next_booking_id",
          [](const multi_profile& p) {
            return p.visit([](const auto& a) { return a.next_id().value; });
          },
          "The id the next book() returns.")
      .def_property(
          "plan_end",
          [](const multi_profile& p) {
            return p.visit([](const auto& a) { return a.plan_end(); });
          },
          [](multi_profile& p, std::optional<time_type> end) {
            p.visit([&](auto& a) { a.set_plan_end(end); });
          },
          "A horizon no booking and no search may cross (None: no bound).")
      .def(
          "block_count",
          [](const multi_profile& p) {
            return p.visit([](const auto& a) { return a.block_count(); });
          },
          "Size of the structure (blocks held).")
      .def(
          "memory_usage",
          [](const multi_profile& p) {
            return p.visit([](const auto& a) { return a.memory_usage(); });
          },
          "Bytes the structure holds.")
      .def(
          "validate", [](const multi_profile& p) { p.visit([](const auto& a) { a.validate(); }); },
          "Checks the internal invariants; raises leasehold.Error on a bug.")
      .def("__copy__", [](const multi_profile& p) { return multi_profile(p); })
      .def(
          "__deepcopy__", [](const multi_profile& p, py::dict) { return multi_profile(p); },
          py::arg("memo"))
      .def(
          "__eq__",
          [](const multi_profile& a, const py::object& other) {
            return py::isinstance<multi_profile>(other) && a == other.cast<const multi_profile&>();
          },
          py::arg("other"),
          "Same backend, names, blocks, live bookings, next booking id and plan end.");
}
