#pragma once

/// \file
/// Haizea's XML Lease Workload Format (LWF), read with Boost.PropertyTree:
///
/// \verbatim
///   <lease-workload name="...">
///     <description>...</description>
///     <site><resource-types names="CPU Memory"/>
///           <nodes><node-set numnodes="4"><res type="CPU" amount="100"/>...</node-set></nodes>
///     </site>
///     <lease-requests>
///       <lease-request arrival="00:15:00.00">
///         <realduration time="00:20:00"/>                       (optional)
///         <lease id="2" preemptible="false">
///           <nodes><node-set numnodes="4"><res type="CPU" amount="100"/>...</node-set></nodes>
///           <start/>  best-effort  |  <start><exact time="00:30:00"/></start>  advance
///                     reservation  |  <start><now/></start>  immediate
///           <duration time="00:30:00.00"/>
///           <deadline time="..."/>                              (optional)
///           <software><disk-image id="foo.img" size="1024"/></software>  or
///           <software><none/></software>
///         </lease>
///       </lease-request>
///     </lease-requests>
///   </lease-workload>
/// \endverbatim
///
/// Times are HH:MM:SS[.ss] relative to the start of the workload (HH may exceed 23); the
/// fraction is rounded to the nearest second, as Haizea rounds its time deltas.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <istream>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>

#include "leasehold/core/detail/checks.hpp"
#include "leasehold/core/lease_terms.hpp"
#include "leasehold/sim/workload/detail/text.hpp"
#include "leasehold/sim/workload/parse_error.hpp"

namespace leasehold::workload::haizea {

/// A parse error in an LWF document: line() is the XML line for syntax errors and 0 for
/// content errors, whose message names the element instead.
struct lwf_error : workload::parse_error {
  using workload::parse_error::parse_error;
};

/// The most nodes one `<nodes>` element (the site's, or one request's) may describe, summed
/// over its node sets: a sanity limit, since the site becomes one slot table row per node and
/// a count read from a file must not be able to exhaust memory before anything is printed
/// (a "numnodes" of ten million took 14 GB). Ten times the largest machine in the Parallel
/// Workloads Archive's logs, far beyond any Haizea workload.
inline constexpr std::int64_t lwf_max_nodes = 100'000;

/// A `<node-set>`: `count` alike nodes and what each holds.
struct lwf_node_set {
  std::int64_t count = 1;                                       ///< numnodes
  std::vector<std::pair<std::string, std::int64_t>> resources;  ///< type, amount per node

  /// Equal when count and resources (in order) are equal.
  friend bool operator==(const lwf_node_set&, const lwf_node_set&) = default;
};

/// One `<lease-request>` as written, before conversion to lease_terms.
struct lwf_lease {
  std::optional<std::uint64_t> id;            ///< The lease's id attribute, when it has one.
  bool preemptible = true;                    ///< The preemptible attribute.
  std::int64_t arrival = 0;                   ///< s
  lease_kind kind = lease_kind::best_effort;  ///< From the `<start>` element's form.
  std::optional<std::int64_t> start;          ///< exact start, advance reservations only
  std::int64_t duration = 0;                  ///< The requested duration, s.
  std::optional<std::int64_t> real_duration;  ///< `<realduration>`, simulation only
  std::optional<std::int64_t> deadline;       ///< `<deadline>`, s, when given.
  std::vector<lwf_node_set> nodes;            ///< The nodes the lease asks for.
  std::optional<disk_image> image;            ///< nullopt: `<none/>`, unmanaged software

  /// Equal when every field is equal.
  friend bool operator==(const lwf_lease&, const lwf_lease&) = default;
};

/// A whole LWF document as read_lwf returns it.
struct lwf_workload {
  std::string name;                         ///< The name attribute of `<lease-workload>`.
  std::string description;                  ///< The `<description>` text.
  std::vector<std::string> resource_types;  ///< of the `<site>`
  std::vector<lwf_node_set> site;           ///< empty when the file has no `<site>`
  std::vector<lwf_lease> requests;          ///< The lease requests, in document order.
};

namespace detail {

using tree = boost::property_tree::ptree;

/// "HH:MM:SS[.ss]" -> seconds, or nullopt.
inline std::optional<std::int64_t> parse_time(std::string_view text) {
  text = leasehold::detail::trim(text);
  std::int64_t parts[3] = {0, 0, 0};
  for (int i = 0; i < 3; ++i) {
    const auto colon = i < 2 ? text.find(':') : std::string_view::npos;
    if (i < 2 && colon == std::string_view::npos) return std::nullopt;
    std::string_view piece = text.substr(0, colon);
    if (i == 2) {
      const auto value = leasehold::detail::parse_double(piece);
      if (!value || *value < 0 || *value >= 60 || piece.empty() || piece.front() == '-')
        return std::nullopt;
      parts[2] = static_cast<std::int64_t>(*value + 0.5);
    } else {
      const auto value =
          leasehold::detail::parse_int(piece, leasehold::detail::fraction_policy::reject);
      // No sign at all: "-00:00:10" is not ten seconds after the start (parse_int reads
      // "-00" as 0, so the sign must be refused here).
      if (!value || *value < 0 || piece.empty() || piece.front() == '+' || piece.front() == '-' ||
          (i == 1 && *value >= 60) || piece.find_first_of(".eE") != std::string_view::npos)
        return std::nullopt;
      parts[i] = *value;
      text.remove_prefix(colon + 1);
    }
  }
  if (parts[0] > 1'000'000'000) return std::nullopt;
  return parts[0] * 3600 + parts[1] * 60 + parts[2];
}

class lwf_reader {
 public:
  lwf_workload run(std::istream& in) {
    tree document;
    try {
      boost::property_tree::read_xml(in, document,
                                     boost::property_tree::xml_parser::trim_whitespace);
    } catch (const boost::property_tree::xml_parser_error& e) {
      throw lwf_error(e.line(), "malformed XML: " + e.message());
    }
    const auto root = document.get_child_optional("lease-workload");
    if (!root) fail("the document has no <lease-workload> root element");
    lwf_workload workload;
    workload.name = root->get("<xmlattr>.name", "");
    workload.description = std::string(leasehold::detail::trim(root->get("description", "")));
    if (const auto site = root->get_child_optional("site")) {
      where_ = "<site>";
      const auto types = site->get_optional<std::string>("resource-types.<xmlattr>.names");
      if (!types) fail("<site> lacks <resource-types names=...>");
      std::string_view rest = *types;
      while (!(rest = leasehold::detail::trim(rest)).empty()) {
        const auto blank = rest.find_first_of(" \t\r\n");
        workload.resource_types.emplace_back(rest.substr(0, blank));
        rest = blank == std::string_view::npos ? std::string_view{} : rest.substr(blank);
      }
      workload.site = node_sets(*site);
      for (const auto& set : workload.site)
        for (const auto& [type, amount] : set.resources) {
          bool known = false;
          for (const auto& declared : workload.resource_types) known = known || declared == type;
          if (!known)
            fail(leasehold::detail::describe("resource type '", type,
                                             "' is not among <resource-types names>"));
        }
    }
    if (const auto requests = root->get_child_optional("lease-requests")) {
      std::size_t index = 0;
      for (const auto& [tag, element] : *requests) {
        if (tag != "lease-request") continue;
        ++index;
        workload.requests.push_back(request(element, index));
      }
    }
    return workload;
  }

 private:
  [[noreturn]] void fail(const std::string& message) const {
    throw lwf_error(0, where_.empty() ? message : where_ + ": " + message);
  }

  std::string attribute(const tree& element, const std::string& element_name,
                        const std::string& name) const {
    const auto value = element.get_optional<std::string>("<xmlattr>." + name);
    if (!value) fail("<" + element_name + "> lacks the attribute '" + name + "'");
    return *value;
  }

  std::int64_t time_attribute(const tree& element, const std::string& element_name,
                              const std::string& name) const {
    const auto text = attribute(element, element_name, name);
    const auto seconds = parse_time(text);
    if (!seconds)
      fail(leasehold::detail::describe("<", element_name, " ", name, "=\"",
                                       leasehold::detail::escape(text),
                                       "\">: not a time HH:MM:SS[.ss]"));
    return *seconds;
  }

  std::int64_t integer_attribute(
      const tree& element, const std::string& element_name, const std::string& name,
      std::int64_t minimum, std::int64_t maximum = std::numeric_limits<std::int64_t>::max()) const {
    const auto text = attribute(element, element_name, name);
    const auto value = leasehold::detail::parse_int(leasehold::detail::trim(text),
                                                    leasehold::detail::fraction_policy::reject);
    if (!value || *value < minimum)
      fail(leasehold::detail::describe("<", element_name, " ", name, "=\"",
                                       leasehold::detail::escape(text),
                                       "\">: not an integer >= ", minimum));
    if (*value > maximum)
      fail(leasehold::detail::describe("<", element_name, " ", name, "=\"",
                                       leasehold::detail::escape(text), "\">: more than ", maximum,
                                       " (the reader's sanity limit)"));
    return *value;
  }

  std::vector<lwf_node_set> node_sets(const tree& parent) const {
    const auto nodes = parent.get_child_optional("nodes");
    if (!nodes) fail("lacks <nodes>");
    std::vector<lwf_node_set> sets;
    std::int64_t total = 0;
    for (const auto& [tag, set] : *nodes) {
      if (tag != "node-set") continue;
      lwf_node_set parsed;
      parsed.count = integer_attribute(set, "node-set", "numnodes", 1, lwf_max_nodes);
      total += parsed.count;
      if (total > lwf_max_nodes)
        fail(leasehold::detail::describe("<nodes> holds ", total, " nodes or more: more than ",
                                         lwf_max_nodes, " (the reader's sanity limit)"));
      for (const auto& [res_tag, res] : set) {
        if (res_tag != "res") continue;
        parsed.resources.emplace_back(attribute(res, "res", "type"),
                                      integer_attribute(res, "res", "amount", 0));
      }
      sets.push_back(std::move(parsed));
    }
    if (sets.empty()) fail("<nodes> holds no <node-set>");
    return sets;
  }

  lwf_lease request(const tree& element, std::size_t index) {
    where_ = leasehold::detail::describe("<lease-request> #", index);
    lwf_lease lease;
    lease.arrival = time_attribute(element, "lease-request", "arrival");
    where_ += " (arrival " + attribute(element, "lease-request", "arrival") + ")";
    if (const auto real = element.get_child_optional("realduration"))
      lease.real_duration = time_attribute(*real, "realduration", "time");
    const auto body = element.get_child_optional("lease");
    if (!body) fail("lacks <lease>");
    if (const auto id = body->get_optional<std::string>("<xmlattr>.id"))
      lease.id = static_cast<std::uint64_t>(integer_attribute(*body, "lease", "id", 0));
    const auto preemptible = attribute(*body, "lease", "preemptible");
    if (preemptible == "true" || preemptible == "True")
      lease.preemptible = true;
    else if (preemptible == "false" || preemptible == "False")
      lease.preemptible = false;
    else
      fail(leasehold::detail::describe("<lease preemptible=\"",
                                       leasehold::detail::escape(preemptible),
                                       "\">: expected true or false"));
    lease.nodes = node_sets(*body);
    const auto start = body->get_child_optional("start");
    if (!start) fail("<lease> lacks <start> (empty for best-effort)");
    if (const auto exact = start->get_child_optional("exact")) {
      lease.kind = lease_kind::advance_reservation;
      lease.start = time_attribute(*exact, "exact", "time");
    } else if (start->get_child_optional("now")) {
      lease.kind = lease_kind::immediate;
    } else if (!start->empty()) {
      fail("<start> holds <" + start->begin()->first + ">: expected <exact>, <now> or nothing");
    }
    const auto duration = body->get_child_optional("duration");
    if (!duration) fail("<lease> lacks <duration>");
    lease.duration = time_attribute(*duration, "duration", "time");
    if (lease.duration <= 0) fail("<duration> must be positive");
    if (const auto deadline = body->get_child_optional("deadline"))
      lease.deadline = time_attribute(*deadline, "deadline", "time");
    if (const auto real = body->get_child_optional("realduration"))
      lease.real_duration = time_attribute(*real, "realduration", "time");
    const auto software = body->get_child_optional("software");
    if (!software) fail("<lease> lacks <software>");
    if (const auto image = software->get_child_optional("disk-image")) {
      lease.image = disk_image{attribute(*image, "disk-image", "id"),
                               integer_attribute(*image, "disk-image", "size", 0)};
    } else if (!software->get_child_optional("none")) {
      fail("<software> holds neither <disk-image> nor <none/>");
    }
    return lease;
  }

  std::string where_;
};

}  // namespace detail

/// Reads an LWF document. Throws lwf_error: with the XML line for malformed XML, and naming
/// the element (e.g. "`<lease-request>` #3 (arrival 01:00:00): `<duration>` lacks the
/// attribute 'time'") for missing or malformed content.
inline lwf_workload read_lwf(std::istream& in) {
  detail::lwf_reader reader;
  return reader.run(in);
}

/// How LWF amounts become lease_terms' units.
struct lwf_conversion {
  /// Haizea counts CPU in percent of a CPU ("100" is one CPU); lease_terms counts whole
  /// CPUs by default, so amounts are divided by this and must divide evenly. Set it to 1 to
  /// keep Haizea's share units (then size the cluster in the same units).
  std::int64_t cpu_divisor = 100;
};

namespace detail {
inline void check_cpu_divisor(const lwf_conversion& options) {
  if (options.cpu_divisor <= 0)
    throw invalid_request(
        leasehold::detail::describe("cpu_divisor ", options.cpu_divisor, " must be positive"));
}
}  // namespace detail

/// One node set as a per-node vector in lease_terms' units. Resource types: CPU, Memory (MB),
/// Disk (MB), Net-in / Net-out (MB/s; the larger one goes to network_mbps); any other type, or
/// a CPU amount that cpu_divisor does not divide, is an lwf_error whose message starts with
/// `context` (the element it came from).
[[nodiscard]] inline node_resources node_resources_of(const lwf_node_set& set,
                                                      const lwf_conversion& options,
                                                      std::string_view context) {
  node_resources vector{0, 0, 0, 0};
  for (const auto& [type, amount] : set.resources) {
    if (type == "CPU") {
      if (amount % options.cpu_divisor != 0)
        throw lwf_error(
            0, leasehold::detail::describe(
                   context, "CPU amount ", amount, " is not a multiple of ", options.cpu_divisor,
                   " (set cpu_divisor = 1 to keep Haizea's percent units)"));
      vector[node_component::cpu] = amount / options.cpu_divisor;
    } else if (type == "Memory") {
      vector[node_component::memory_mb] = amount;
    } else if (type == "Disk") {
      vector[node_component::disk_mb] = amount;
    } else if (type == "Net-in" || type == "Net-out") {
      vector[node_component::network_mbps] = std::max(vector[node_component::network_mbps], amount);
    } else {
      throw lwf_error(0,
                      leasehold::detail::describe(context, "unknown resource type '", type, "'"));
    }
  }
  return vector;
}

/// The cluster a document's `<site>` describes, for a slot table of alike nodes.
struct lwf_site {
  std::size_t nodes = 0;                ///< How many nodes, over every node set.
  node_resources per_node{0, 0, 0, 0};  ///< What each node holds.
  bool has_disk = false;  ///< a node set names Disk (else nothing can hold suspended memory)
};

/// Every node set of `<site>` must describe the same node, as a slot table's nodes are alike;
/// their counts are summed. A document without a `<site>`, or whose `<site>` has no nodes or
/// differing node sets, is an lwf_error.
[[nodiscard]] inline lwf_site site_of(const lwf_workload& workload,
                                      const lwf_conversion& options = {}) {
  detail::check_cpu_divisor(options);
  if (workload.site.empty())
    throw lwf_error(0, "the document has no <site>: the cluster's nodes are not described");
  lwf_site site;
  for (const auto& set : workload.site) {
    const node_resources node = node_resources_of(set, options, "<site> ");
    if (site.nodes > 0 && !(node == site.per_node))
      throw lwf_error(0,
                      "<site> node sets describe different nodes; a slot table's nodes are "
                      "alike");
    for (const auto& resource : set.resources)
      if (resource.first == "Disk") site.has_disk = true;
    site.per_node = node;
    site.nodes += static_cast<std::size_t>(set.count);
  }
  if (site.nodes == 0) throw lwf_error(0, "<site> has no nodes");
  return site;
}

/// The requests as lease_terms, in file order. A lease's node sets must be identical apart
/// from their counts (lease_terms holds one per-node vector); the node counts are summed.
/// Resources convert as node_resources_of says. Ids are the file's, or the position in the
/// file when absent. The real duration defaults to the duration and is capped by it.
template <time_value T = std::int64_t>
[[nodiscard]] std::vector<lease_terms<T>> to_lease_terms(const lwf_workload& workload,
                                                         const lwf_conversion& options = {}) {
  detail::check_cpu_divisor(options);
  std::vector<lease_terms<T>> leases;
  leases.reserve(workload.requests.size());
  std::size_t index = 0;
  for (const auto& request : workload.requests) {
    ++index;
    const auto where = leasehold::detail::describe("<lease-request> #", index, ": ");
    lease_terms<T> lease;
    lease.id = request.id.value_or(index - 1);
    lease.submit = static_cast<T>(request.arrival);
    lease.kind = request.kind;
    if (request.start) lease.start = static_cast<T>(*request.start);
    lease.nodes = 0;
    for (const auto& set : request.nodes) {
      const auto vector = node_resources_of(set, options, where);
      if (lease.nodes > 0 && !(vector == lease.per_node))
        throw lwf_error(0, where +
                               "node sets with different resources are not supported "
                               "(lease_terms holds one per-node vector)");
      lease.per_node = vector;
      lease.nodes += set.count;
    }
    lease.duration = static_cast<T>(request.duration);
    lease.real_duration = static_cast<T>(
        std::min(request.real_duration.value_or(request.duration), request.duration));
    lease.preemptible = request.preemptible;
    lease.image = request.image;
    leases.push_back(std::move(lease));
  }
  return leases;
}

}  // namespace leasehold::workload::haizea

namespace leasehold {
/// The name users know: Haizea's own formats live under sim/workload, so in the folder's namespace.
namespace haizea = workload::haizea;
}  // namespace leasehold
