// Haizea's XML Lease Workload Format: every element of the format, conversion to lease
// terms, and errors that name the element (or the XML line).

#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include <leasehold/sim/workload/haizea_lwf.hpp>

namespace haizea_lwf_test {

using namespace leasehold;

namespace {

const std::string document = R"(<?xml version="1.0"?>
<lease-workload name="preemption">
  <description>
    An AR lease preempts a best-effort lease.
  </description>
  <site>
    <resource-types names="CPU Memory"/>
    <nodes>
      <node-set numnodes="4">
        <res type="CPU" amount="100"/>
        <res type="Memory" amount="1024"/>
      </node-set>
    </nodes>
  </site>
  <lease-requests>
    <lease-request arrival="00:00:00.00">
      <lease id="1" preemptible="true">
        <nodes><node-set numnodes="1"><res amount="100" type="CPU"/><res amount="1024" type="Memory"/></node-set></nodes>
        <start/>
        <duration time="01:00:00.00"/>
        <software><disk-image id="foobar1.img" size="1024"/></software>
      </lease>
    </lease-request>
    <lease-request arrival="00:15:00.50">
      <realduration time="00:20:00"/>
      <lease id="2" preemptible="false">
        <nodes>
          <node-set numnodes="3"><res amount="200" type="CPU"/><res amount="512" type="Memory"/></node-set>
          <node-set numnodes="1"><res amount="200" type="CPU"/><res amount="512" type="Memory"/></node-set>
        </nodes>
        <start><exact time="26:30:00.00"/></start>
        <duration time="00:30:00.00"/>
        <software><none/></software>
      </lease>
    </lease-request>
    <lease-request arrival="00:20:00">
      <lease preemptible="false">
        <nodes><node-set numnodes="2"><res amount="100" type="CPU"/></node-set></nodes>
        <start><now/></start>
        <duration time="00:10:00"/>
        <software><none/></software>
      </lease>
    </lease-request>
  </lease-requests>
</lease-workload>
)";

std::string lwf_error_of(const std::string& text) {
  std::istringstream in(text);
  try {
    (void)haizea::to_lease_terms(haizea::read_lwf(in));
  } catch (const haizea::lwf_error& e) {
    return e.what();
  }
  return "";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("haizea lwf: reads the site and every kind of request") {
  std::istringstream in(document);
  const auto workload = haizea::read_lwf(in);
  CHECK(workload.name == "preemption");
  CHECK(workload.description == "An AR lease preempts a best-effort lease.");
  CHECK(workload.resource_types == std::vector<std::string>{"CPU", "Memory"});
  REQUIRE(workload.site.size() == 1);
  CHECK(workload.site[0].count == 4);
  REQUIRE(workload.requests.size() == 3);
  CHECK(workload.requests[1].arrival == 15 * 60 + 1);  // 00:15:00.50 rounds up
  CHECK(workload.requests[1].real_duration == 20 * 60);

  const auto leases = haizea::to_lease_terms(workload);
  REQUIRE(leases.size() == 3);
  using leasehold::lease_kind;
  CHECK(leases[0].id == 1);
  CHECK(leases[0].kind == lease_kind::best_effort);
  CHECK(leases[0].preemptible);
  CHECK(leases[0].nodes == 1);
  CHECK(leases[0].per_node == node_resources{1, 1024, 0, 0});
  CHECK(leases[0].duration == 3600);
  CHECK(leases[0].real_duration == 3600);
  CHECK(leases[0].image == disk_image{"foobar1.img", 1024});

  CHECK(leases[1].kind == lease_kind::advance_reservation);
  CHECK_FALSE(leases[1].preemptible);
  CHECK(leases[1].start == 26 * 3600 + 30 * 60);
  CHECK(leases[1].nodes == 4);  // two identical node sets merge
  CHECK(leases[1].per_node == node_resources{2, 512, 0, 0});
  CHECK(leases[1].real_duration == 20 * 60);
  CHECK_FALSE(leases[1].image.has_value());

  CHECK(leases[2].kind == lease_kind::immediate);
  CHECK(leases[2].id == 2);  // no id attribute: its position
  CHECK(leases[2].submit == 1200);

  const auto shares = haizea::to_lease_terms(workload, {.cpu_divisor = 1});
  CHECK(shares[1].per_node[leasehold::node_component::cpu] == 200);
}

TEST_CASE("haizea lwf: errors name the element or the line") {
  CHECK(lwf_error_of(replaced(document, "<duration time=\"00:30:00.00\"/>", "<duration/>")) ==
        "<lease-request> #2 (arrival 00:15:00.50): <duration> lacks the attribute 'time'");
  CHECK(lwf_error_of(replaced(document, "01:00:00.00", "1h")) ==
        "<lease-request> #1 (arrival 00:00:00.00): <duration time=\"1h\">: not a time "
        "HH:MM:SS[.ss]");
  CHECK(lwf_error_of(replaced(document, "preemptible=\"true\"", "preemptible=\"maybe\""))
            .find("expected true or false") != std::string::npos);
  CHECK(lwf_error_of(replaced(document, "numnodes=\"3\"", "numnodes=\"0\""))
            .find("<node-set numnodes=\"0\">: not an integer >= 1") != std::string::npos);
  CHECK(lwf_error_of(replaced(document, "<start><now/></start>", "<start><later/></start>"))
            .find("<start> holds <later>") != std::string::npos);
  CHECK(lwf_error_of(
            replaced(document,
                     "<software><none/></software>\n      </lease>\n    </lease-request>\n    "
                     "<lease-request arrival=\"00:20:00\">",
                     "</lease>\n    </lease-request>\n    <lease-request arrival=\"00:20:00\">"))
            .find("<lease> lacks <software>") != std::string::npos);
  CHECK(
      lwf_error_of(replaced(document,
                            "<res amount=\"512\" type=\"Memory\"/></node-set>\n          <node-set "
                            "numnodes=\"1\"><res amount=\"200\" type=\"CPU\"/><res amount=\"512\"",
                            "<res amount=\"512\" type=\"Memory\"/></node-set>\n          <node-set "
                            "numnodes=\"1\"><res amount=\"200\" type=\"CPU\"/><res amount=\"256\""))
          .find("node sets with different resources") != std::string::npos);
  CHECK(lwf_error_of(
            replaced(document, "type=\"CPU\" amount=\"100\"/>\n", "type=\"GPU\" amount=\"1\"/>\n"))
            .find("resource type 'GPU' is not among") != std::string::npos);
  CHECK(lwf_error_of(replaced(document,
                              "amount=\"200\" type=\"CPU\"/><res amount=\"512\" "
                              "type=\"Memory\"/></node-set>\n          <node-set",
                              "amount=\"150\" type=\"CPU\"/><res amount=\"512\" "
                              "type=\"Memory\"/></node-set>\n          <node-set"))
            .find("CPU amount 150 is not a multiple of 100") != std::string::npos);
  CHECK(lwf_error_of("<lease-requests/>") == "the document has no <lease-workload> root element");
  // A signed time is refused, not read as its absolute value.
  CHECK(lwf_error_of(replaced(document, "arrival=\"00:20:00\"", "arrival=\"-00:00:10\"")) ==
        "<lease-request> #3: <lease-request arrival=\"-00:00:10\">: not a time HH:MM:SS[.ss]");
  CHECK(lwf_error_of(replaced(document, "arrival=\"00:20:00\"", "arrival=\"00:-1:10\""))
            .find("not a time") != std::string::npos);
  // Bytes a terminal would act on are escaped when the attribute is echoed.
  CHECK(lwf_error_of(replaced(document, "01:00:00.00", "\x1b[2J")) ==
        "<lease-request> #1 (arrival 00:00:00.00): <duration time=\"\\x1b[2J\">: not a time "
        "HH:MM:SS[.ss]");
}

TEST_CASE("haizea lwf: node counts above the sanity limit are refused before any allocation") {
  CHECK(haizea::lwf_max_nodes == 100'000);
  CHECK(lwf_error_of(replaced(document, "numnodes=\"4\"", "numnodes=\"10000000\"")) ==
        "<site>: <node-set numnodes=\"10000000\">: more than 100000 (the reader's sanity "
        "limit)");
  CHECK(lwf_error_of(replaced(document, "numnodes=\"3\"", "numnodes=\"99999999999999999999\""))
            .find("not an integer >= 1") != std::string::npos);
  // The limit is on the sum of a <nodes> element's sets: 99,999 + 3 is over, 99,997 + 3 not.
  CHECK(lwf_error_of(replaced(document, "numnodes=\"1\"><res amount=\"200\"",
                              "numnodes=\"99999\"><res amount=\"200\"")) ==
        "<lease-request> #2 (arrival 00:15:00.50): <nodes> holds 100002 nodes or more: more "
        "than 100000 (the reader's sanity limit)");
  CHECK(lwf_error_of(replaced(document, "numnodes=\"1\"><res amount=\"200\"",
                              "numnodes=\"99997\"><res amount=\"200\"")) == "");

  const auto broken = lwf_error_of(replaced(document, "</site>", "</site"));
  CHECK(broken.rfind("line 14: malformed XML", 0) == 0);
  std::istringstream in(replaced(document, "</site>", "</site"));
  try {
    (void)haizea::read_lwf(in);
    FAIL("no error");
  } catch (const haizea::lwf_error& e) {
    CHECK(e.line() == 14);
  }
}

TEST_CASE("haizea lwf: the site as a cluster of alike nodes") {
  std::istringstream in(document);
  const auto workload = haizea::read_lwf(in);
  const auto site = haizea::site_of(workload);
  CHECK(site.nodes == 4);
  CHECK(site.per_node == node_resources{1, 1024, 0, 0});
  CHECK_FALSE(site.has_disk);
  CHECK(haizea::site_of(workload, {.cpu_divisor = 1}).per_node == node_resources{100, 1024, 0, 0});
  CHECK_THROWS_WITH_AS((void)haizea::site_of(workload, {.cpu_divisor = 0}),
                       "cpu_divisor 0 must be positive", invalid_request);

  auto site_error = [](const std::string& text) -> std::string {
    std::istringstream doc(text);
    const auto w = haizea::read_lwf(doc);
    try {
      (void)haizea::site_of(w);
    } catch (const haizea::lwf_error& e) {
      return e.what();
    }
    return "";
  };
  // Two node sets make one cluster when they describe the same node; a Disk is noted.
  const std::string two_sets =
      replaced(document, "<node-set numnodes=\"4\">",
               "<node-set numnodes=\"2\"><res type=\"CPU\" amount=\"100\"/><res type=\"Memory\" "
               "amount=\"1024\"/></node-set>\n      <node-set numnodes=\"4\">");
  std::istringstream two(two_sets);
  CHECK(haizea::site_of(haizea::read_lwf(two)).nodes == 6);
  CHECK(
      site_error(replaced(two_sets, "amount=\"1024\"/></node-set>", "amount=\"512\"/></node-set>"))
          .find("<site> node sets describe different nodes") != std::string::npos);
  std::istringstream with_disk(
      replaced(replaced(document, "names=\"CPU Memory\"", "names=\"CPU Memory Disk\""),
               "<res type=\"Memory\" amount=\"1024\"/>\n      </node-set>",
               "<res type=\"Memory\" amount=\"1024\"/><res type=\"Disk\" amount=\"20000\"/>\n      "
               "</node-set>"));
  const auto disk_site = haizea::site_of(haizea::read_lwf(with_disk));
  CHECK(disk_site.has_disk);
  CHECK(disk_site.per_node == node_resources{1, 1024, 20000, 0});
  CHECK(site_error(replaced(document, "<res type=\"CPU\" amount=\"100\"/>\n        <res",
                            "<res type=\"CPU\" amount=\"150\"/>\n        <res")) ==
        "<site> CPU amount 150 is not a multiple of 100 (set cpu_divisor = 1 to keep Haizea's "
        "percent units)");
  const auto start = document.find("  <site>");
  const auto end = document.find("</site>\n") + 8;
  CHECK(site_error(std::string(document).erase(start, end - start)) ==
        "the document has no <site>: the cluster's nodes are not described");
}

}  // namespace haizea_lwf_test
