// The lease layer in Python: lease_terms, scheduler_config presets, lease_scheduler over the
// paper's slot table (free_list nodes of node_resources), the SWF reader and conversion,
// simulate_leases and the Table 1 metrics. simulate_leases runs with the GIL released: it is
// pure C++ for seconds to minutes and touches no Python object.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <array>
#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "leasehold/cluster/slot_table.hpp"
#include "leasehold/core/error.hpp"
#include "leasehold/policy/lease/lease_scheduler.hpp"
#include "leasehold/sim/lease_simulation.hpp"
#include "leasehold/sim/metrics.hpp"
#include "leasehold/sim/workload/haizea_injection.hpp"
#include "leasehold/sim/workload/haizea_lwf.hpp"
#include "leasehold/sim/workload/swf.hpp"
#include "leasehold/sim/workload/swf_leases.hpp"

namespace py = pybind11;
namespace lease = leasehold::policy::lease;

namespace {

using T = std::int64_t;
using node_resources = lease::node_resources;
// The queue order and the node choice are chosen at run time: Haizea's (an empty function) or
// a Python callable.
using table = leasehold::cluster::slot_table<leasehold::free_list<T, lease::node_resources>>;
using scheduler = lease::lease_scheduler<leasehold::free_list<T, lease::node_resources>,
                                         lease::images_predeployed, lease::queue_order_function<T>,
                                         lease::node_choice_function<table>>;
static_assert(std::is_same_v<table, scheduler::table_type>);
using terms = lease::lease_terms<T>;
using config = lease::scheduler_config<T>;

node_resources to_resources(const std::array<std::int64_t, 4>& v) { return node_resources{v}; }
py::tuple to_tuple(const node_resources& r) {
  return py::make_tuple(r.values[0], r.values[1], r.values[2], r.values[3]);
}

// Forwards the scheduler's events (Haizea §3.3) to a Python object's on_* methods. A Python
// exception raised by a callback must not unwind through the scheduler mid-event, so it is
// caught here and kept; later events are dropped, and the bound call that caused them
// raises it once the scheduler has finished its step and its state is consistent.
class observer_bridge final : public lease::lease_observer<T> {
 public:
  explicit observer_bridge(py::object target) : target_(std::move(target)) {}
  ~observer_bridge() override {
    py::gil_scoped_acquire gil;
    target_ = py::object();
    pending_ = std::nullopt;
  }

  void on_ready(std::uint64_t id, T at, std::span<const std::size_t> nodes) override {
    call("on_ready", id, at, std::vector<std::size_t>(nodes.begin(), nodes.end()));
  }
  void on_suspended(std::uint64_t id, T at) override { call("on_suspended", id, at); }
  void on_resumed(std::uint64_t id, T at, std::span<const std::size_t> nodes) override {
    call("on_resumed", id, at, std::vector<std::size_t>(nodes.begin(), nodes.end()));
  }
  void on_ended(std::uint64_t id, T at) override { call("on_ended", id, at); }
  void on_rejected(std::uint64_t id, T at, std::string_view reason) override {
    call("on_rejected", id, at, std::string(reason));
  }
  void on_requeued(std::uint64_t id, T at) override { call("on_requeued", id, at); }
  // Arguments stay C++ values (a pair for a span) until call() holds the GIL: a long call
  // such as simulate_leases runs without it, and no Python object may be made here.
  void on_migrated(std::uint64_t id, T at, std::span<const std::size_t> from,
                   std::span<const std::size_t> to, leasehold::interval<T> transfer) override {
    call("on_migrated", id, at, std::vector<std::size_t>(from.begin(), from.end()),
         std::vector<std::size_t>(to.begin(), to.end()),
         std::pair<T, T>(transfer.begin, transfer.end));
  }
  void on_resuming(std::uint64_t id, std::span<const std::size_t> nodes,
                   leasehold::interval<T> span) override {
    call("on_resuming", id, std::vector<std::size_t>(nodes.begin(), nodes.end()),
         std::pair<T, T>(span.begin, span.end));
  }

  // Raises the kept exception, if any (the GIL is held).
  void raise_pending() {
    if (!pending_) return;
    py::error_already_set e = std::move(*pending_);
    pending_ = std::nullopt;
    throw e;
  }

 private:
  template <class... Args>
  void call(const char* name, Args&&... args) noexcept {
    py::gil_scoped_acquire gil;
    if (pending_) return;
    try {
      if (py::hasattr(target_, name)) target_.attr(name)(std::forward<Args>(args)...);
    } catch (py::error_already_set& e) {
      pending_.emplace(std::move(e));
    } catch (...) {
      // A conversion failure inside pybind11 (e.g. out of memory) has no Python error to
      // keep; turn it into one.
      try {
        throw py::value_error(std::string("leasehold: observer.") + name + " failed");
      } catch (py::error_already_set& e) {
        pending_.emplace(std::move(e));
      } catch (...) {
      }
    }
  }

  py::object target_;
  std::optional<py::error_already_set> pending_;
};

// A Python callable kept by a C++ policy. The scheduler calls its policies with the GIL
// released (simulate_leases), so each call takes the GIL itself, and the object is released
// under the GIL too, whichever thread drops the last copy.
std::shared_ptr<py::object> held_under_gil(py::object callable) {
  return {new py::object(std::move(callable)), [](py::object* o) {
            py::gil_scoped_acquire gil;
            delete o;
          }};
}

// A Python queue order: key(terms, remaining, now) -> float, smaller served first. An
// exception it raises propagates as py::error_already_set: the scheduler's call is rolled
// back (the strong guarantee) and the exception reaches Python.
lease::queue_order_function<T> python_order(py::object key) {
  if (key.is_none()) return {};
  return {[held = held_under_gil(std::move(key))](const lease::lease_record<T>& l, T now) {
    py::gil_scoped_acquire gil;
    return (*held)(l.terms, l.remaining_max, now).cast<double>();
  }};
}

// A Python node choice: key(node, terms, begin, end, free) -> float, where free is the node's
// least free capacity over [begin, end) before the lease is placed there; smaller keys are
// preferred, equal keys by node id. An exception it raises rolls the scheduler's call back,
// as for the queue order.
lease::node_choice_function<table> python_choice(py::object key) {
  if (key.is_none()) return {};
  return {[held = held_under_gil(std::move(key))](const lease::node_candidate<table>& c) {
    const node_resources free = c.table.node(c.node).min_free(c.span);
    py::gil_scoped_acquire gil;
    return (*held)(c.node, c.lease.terms, c.span.begin, c.span.end, to_tuple(free)).cast<double>();
  }};
}

// The scheduler plus the bridge to its Python observer, which must outlive it.
struct python_scheduler {
  scheduler engine;
  std::unique_ptr<observer_bridge> observer;

  void raise_pending() {
    if (observer) observer->raise_pending();
  }
};

}  // namespace

void bind_leases(py::module_& m) {
  py::enum_<lease::lease_kind>(m, "lease_kind")
      .value("advance_reservation", lease::lease_kind::advance_reservation)
      .value("best_effort", lease::lease_kind::best_effort)
      .value("immediate", lease::lease_kind::immediate);
  py::enum_<lease::lease_state>(m, "lease_state")
      .value("queued", lease::lease_state::queued)
      .value("scheduled", lease::lease_state::scheduled)
      .value("running", lease::lease_state::running)
      .value("done", lease::lease_state::done)
      .value("rejected", lease::lease_state::rejected)
      .value("withdrawn", lease::lease_state::withdrawn);
  py::enum_<lease::segment_outcome>(m, "segment_outcome")
      .value("completed", lease::segment_outcome::completed)
      .value("suspended", lease::segment_outcome::suspended)
      .value("cancelled", lease::segment_outcome::cancelled)
      .value("released", lease::segment_outcome::released);
  py::enum_<lease::admission>(m, "admission")
      .value("accepted", lease::admission::accepted)
      .value("queued", lease::admission::queued)
      .value("rejected", lease::admission::rejected);

  py::class_<terms>(m, "lease_terms",
                    "What a user asks for (Sotomayor, Keahey & Foster, §3.1). per_node is\n"
                    "(cpu, memory MB, disk MB, network) for each of `nodes` VMs.")
      .def(py::init<>())
      .def(py::init([](std::uint64_t id, T submit, lease::lease_kind kind, T duration,
                       T real_duration, std::int64_t nodes,
                       const std::array<std::int64_t, 4>& per_node, std::optional<T> start,
                       bool preemptible, std::optional<T> withdraw) {
             terms t;
             t.id = id;
             t.submit = submit;
             t.kind = kind;
             t.duration = duration;
             t.real_duration = real_duration == 0 ? duration : real_duration;
             t.nodes = nodes;
             t.per_node = to_resources(per_node);
             t.start = start;
             t.preemptible = preemptible;
             t.withdraw = withdraw;
             return t;
           }),
           py::arg("id"), py::arg("submit"), py::arg("kind") = lease::lease_kind::best_effort,
           py::arg("duration") = 0, py::arg("real_duration") = 0, py::arg("nodes") = 1,
           py::arg("per_node") = std::array<std::int64_t, 4>{1, 1024, 0, 0},
           py::arg("start") = std::nullopt, py::arg("preemptible") = true,
           py::arg("withdraw") = std::nullopt)
      .def_readwrite("id", &terms::id)
      .def_readwrite("submit", &terms::submit)
      .def_readwrite("kind", &terms::kind)
      .def_readwrite("start", &terms::start)
      .def_readwrite("nodes", &terms::nodes)
      .def_property(
          "per_node", [](const terms& t) { return to_tuple(t.per_node); },
          [](terms& t, const std::array<std::int64_t, 4>& v) { t.per_node = to_resources(v); })
      .def_readwrite("duration", &terms::duration)
      .def_readwrite("real_duration", &terms::real_duration)
      .def_readwrite("preemptible", &terms::preemptible)
      .def_readwrite("withdraw", &terms::withdraw)
      .def_readwrite("hold_in_queue", &terms::hold_in_queue)
      .def_property(
          "image",
          [](const terms& t) -> std::optional<py::tuple> {
            if (!t.image) return std::nullopt;
            return py::make_tuple(t.image->id, t.image->size_mb);
          },
          [](terms& t, const std::optional<std::pair<std::string, std::int64_t>>& image) {
            if (image)
              t.image = lease::disk_image{image->first, image->second};
            else
              t.image.reset();
          },
          "(image id, size in MB), or None when images are predeployed.")
      .def("__repr__", [](const terms& t) {
        return "lease_terms(id=" + std::to_string(t.id) + ", submit=" + std::to_string(t.submit) +
               ", nodes=" + std::to_string(t.nodes) + ", duration=" + std::to_string(t.duration) +
               ")";
      });

  py::class_<config>(m, "scheduler_config",
                     "Knobs of the lease scheduler; the presets are Table 1's configurations.")
      .def(py::init<>())
      .def_static("novm_nosr", &config::novm_nosr, "No VMs, no suspend/resume (NOVM-NOSR).")
      .def_static("novm_sr", &config::novm_sr, "No VMs, suspend/resume allowed (NOVM-SR).")
      .def_static("vm_predeploy", &config::vm_predeploy,
                  "VMs with predeployed images (the default).")
      .def_readwrite("suspend_rate_mb_s", &config::suspend_rate_mb_s)
      .def_readwrite("resume_rate_mb_s", &config::resume_rate_mb_s)
      .def_readwrite("network_mb_s", &config::network_mb_s)
      .def_readwrite("in_vms", &config::in_vms)
      .def_readwrite("boot_shutdown", &config::boot_shutdown)
      .def_readwrite("runtime_slowdown_percent", &config::runtime_slowdown_percent)
      .def_readwrite("strong_guarantee", &config::strong_guarantee)
      .def_readwrite("retire_finished", &config::retire_finished,
                     "Finished leases leave the scheduler and wait for take_finished(), so that\n"
                     "a scheduler running for months keeps only its live leases.");

  using record = scheduler::record_type;
  using segment_record = lease::segment_record<T>;
  py::class_<segment_record>(m, "segment_record",
                             "One stretch a lease ran: its nodes, its span (begin to real end),\n"
                             "its computing part and how it ended.")
      .def_readonly("nodes", &segment_record::nodes)
      .def_property_readonly(
          "span", [](const segment_record& r) { return py::make_tuple(r.span.begin, r.span.end); })
      .def_property_readonly(
          "run", [](const segment_record& r) { return py::make_tuple(r.run.begin, r.run.end); })
      .def_readonly("outcome", &segment_record::outcome);
  py::class_<record>(m, "lease_record",
                     "A lease as the scheduler kept it (read only): what take_finished() hands "
                     "out.")
      .def_readonly("terms", &record::terms)
      .def_property_readonly("id", [](const record& r) { return r.terms.id; })
      .def_readonly("state", &record::state)
      .def_readonly("first_start", &record::first_start)
      .def_readonly("end", &record::end)
      .def_readonly("history", &record::history)
      .def_readonly("suspensions", &record::suspensions)
      .def_readonly("migrations", &record::migrations)
      .def_readonly("rejection", &record::rejection)
      .def("__repr__", [](const record& r) {
        return "<lease_record " + std::to_string(r.terms.id) + " " +
               py::str(py::cast(r.state)).cast<std::string>() + ">";
      });

  py::class_<python_scheduler>(
      m, "lease_scheduler", "Haizea's lease scheduler over `nodes` identical nodes of `per_node`.")
      .def(py::init([](std::size_t nodes, const std::array<std::int64_t, 4>& per_node,
                       const config& c, py::object queue_order, py::object node_choice) {
             return std::make_unique<python_scheduler>(
                 python_scheduler{scheduler(table(nodes, to_resources(per_node)), c, {},
                                            python_order(std::move(queue_order)),
                                            python_choice(std::move(node_choice))),
                                  nullptr});
           }),
           py::arg("nodes"), py::arg("per_node"), py::arg("config") = config{},
           py::arg("queue_order") = py::none(), py::arg("node_choice") = py::none(),
           "`queue_order`, if given, is key(terms, remaining_seconds, now) -> float: the\n"
           "best-effort queue is served smallest key first, equal keys first come first served\n"
           "(None: FIFO, Haizea's order). Backfilling is unchanged.\n"
           "`node_choice`, if given, is key(node, terms, begin, end, free) -> float, asked for\n"
           "each node that can host the lease over [begin, end), free being the node's least\n"
           "free capacity there (a 4-tuple): among the nodes Haizea's rules rank equal, smaller\n"
           "keys are taken first, equal keys by node id (None: lowest ids, Haizea's choice).")
      .def_property_readonly("now", [](const python_scheduler& s) { return s.engine.now(); })
      .def(
          "set_observer",
          [](python_scheduler& s, py::object observer) {
            if (observer.is_none()) {
              s.engine.set_observer(nullptr);
              s.observer.reset();
              return;
            }
            auto bridge = std::make_unique<observer_bridge>(std::move(observer));
            s.engine.set_observer(bridge.get());
            s.observer = std::move(bridge);
          },
          py::arg("observer"),
          "An object with any of on_ready(id, at, nodes), on_suspended(id, at),\n"
          "on_resumed(id, at, nodes), on_ended(id, at), on_rejected(id, at, reason),\n"
          "on_requeued(id, at), on_migrated(id, at, from_nodes, to_nodes, (begin, end)),\n"
          "on_resuming(id, nodes, (begin, end)); None removes it. An exception a callback raises "
          "is re-raised\n"
          "by the call that caused the event, after the scheduler has finished that step.")
      .def(
          "submit",
          [](python_scheduler& s, const terms& t, T now) {
            auto r = s.engine.submit(t, now);
            s.raise_pending();
            return py::make_tuple(r.outcome, r.reason);
          },
          py::arg("terms"), py::arg("now"),
          "Submits a lease at `now`; returns (admission, reason).")
      .def(
          "advance_to",
          [](python_scheduler& s, T now) {
            s.engine.advance_to(now);
            s.raise_pending();
          },
          py::arg("now"), "Runs every event up to `now`.")
      .def("next_event_time", [](const python_scheduler& s) { return s.engine.next_event_time(); })
      .def(
          "withdraw",
          [](python_scheduler& s, std::uint64_t id, T now) {
            const bool withdrawn = s.engine.withdraw(id, now);
            s.raise_pending();
            return withdrawn;
          },
          py::arg("id"), py::arg("now"))
      .def(
          "queue", [](const python_scheduler& s) { return s.engine.queue(); },
          "Ids of the best-effort queue, in order.")
      .def(
          "take_finished", [](python_scheduler& s) { return s.engine.take_finished(); },
          "With config.retire_finished: the leases that finished (done, rejected or withdrawn)\n"
          "since the last call, in the order they finished, each handed out once (a list of\n"
          "lease_record). Empty otherwise.")
      .def(
          "finished_count", [](const python_scheduler& s) { return s.engine.finished_count(); },
          "How many finished leases wait for take_finished().")
      .def("queue_size", [](const python_scheduler& s) { return s.engine.queue_size(); })
      .def(
          "state",
          [](const python_scheduler& s, std::uint64_t id) { return s.engine.lease(id).state; },
          py::arg("id"))
      .def(
          "first_start",
          [](const python_scheduler& s, std::uint64_t id) {
            return s.engine.lease(id).first_start;
          },
          py::arg("id"))
      .def(
          "end", [](const python_scheduler& s, std::uint64_t id) { return s.engine.lease(id).end; },
          py::arg("id"))
      .def("validate", [](const python_scheduler& s) { s.engine.validate(); });

  py::class_<leasehold::sim::lease_metrics>(m, "lease_metrics", "The measures of Table 1 (§4.4).")
      .def_readonly("all_best_effort", &leasehold::sim::lease_metrics::all_best_effort)
      .def_readonly("mean_wait", &leasehold::sim::lease_metrics::mean_wait)
      .def_readonly("mean_bounded_slowdown", &leasehold::sim::lease_metrics::mean_bounded_slowdown)
      .def_readonly("best_effort_completed", &leasehold::sim::lease_metrics::best_effort_completed)
      .def_readonly("best_effort_withdrawn", &leasehold::sim::lease_metrics::best_effort_withdrawn)
      .def_readonly("ar_accepted", &leasehold::sim::lease_metrics::ar_accepted)
      .def_readonly("ar_rejected", &leasehold::sim::lease_metrics::ar_rejected)
      .def_readonly("suspensions", &leasehold::sim::lease_metrics::suspensions)
      .def_readonly("migrations", &leasehold::sim::lease_metrics::migrations)
      .def_readonly("utilisation", &leasehold::sim::lease_metrics::utilisation)
      .def("relative_to", &leasehold::sim::lease_metrics::relative_to, py::arg("baseline"));

  m.def(
      "simulate_leases",
      [](python_scheduler& s, const std::vector<terms>& leases) {
        std::size_t steps = 0;
        {
          py::gil_scoped_release unlocked;
          steps = leasehold::sim::simulate_leases(s.engine, leases).steps;
        }
        s.raise_pending();
        return steps;
      },
      py::arg("scheduler"), py::arg("leases"),
      "Runs the leases through the scheduler until nothing is left to happen (GIL released);\n"
      "returns the number of scheduler steps.");
  m.def(
      "measure",
      [](const python_scheduler& s, T trace_start, double warmup_fraction) {
        leasehold::sim::metrics_options o;
        o.warmup_fraction = warmup_fraction;
        return leasehold::sim::measure(s.engine.leases(), s.engine.table().node_count(),
                                       trace_start, o);
      },
      py::arg("scheduler"), py::arg("trace_start") = 0, py::arg("warmup_fraction") = 0.05,
      "Table 1's metrics of a finished simulation.");
  m.def(
      "read_swf_leases",
      [](const std::string& path, std::int64_t procs_per_node) {
        std::ifstream in(path);
        if (!in) throw leasehold::invalid_request("read_swf_leases: cannot open " + path);
        const leasehold::swf::log log = leasehold::swf::read(in);
        leasehold::workload::swf_conversion options;
        options.procs_per_node = procs_per_node;
        return leasehold::workload::to_best_effort<T>(log.records, options);
      },
      py::arg("path"), py::arg("procs_per_node") = 1,
      "Reads a Standard Workload Format log and converts every job to a best-effort lease.");
  m.def(
      "read_ar_injections",
      [](const std::string& path, std::uint64_t first_id) {
        std::ifstream in(path);
        if (!in) throw leasehold::invalid_request("read_ar_injections: cannot open " + path);
        const auto file = leasehold::haizea::read_injections(in);
        return leasehold::haizea::to_lease_terms<T>(file.leases, first_id);
      },
      py::arg("path"), py::arg("first_id") = 0,
      "Reads a Haizea AR-injection file (Sotomayor et al. §4.2) as advance-reservation leases\n"
      "with ids first_id, first_id + 1, ...");
  m.def(
      "read_lwf_leases",
      [](const std::string& path) {
        std::ifstream in(path);
        if (!in) throw leasehold::invalid_request("read_lwf_leases: cannot open " + path);
        return leasehold::haizea::to_lease_terms<T>(leasehold::haizea::read_lwf(in));
      },
      py::arg("path"),
      "Reads a Haizea lease workload file (LWF, XML) as lease_terms in file order.");
}
