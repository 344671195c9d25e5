// resource_names: the run-time schema of a dynamic_resources vector; values built by name,
// unknown, repeated and empty names refused with the name in the message.

#include <doctest/doctest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include <leasehold/core/resource_names.hpp>

namespace resource_names_test {

using namespace leasehold;

TEST_CASE("resource_names: indices and names") {
  const resource_names names{"cores", "memory_mb", "gpus", "licences"};
  CHECK(names.size() == 4);
  CHECK(names.index_of("cores") == 0);
  CHECK(names.index_of("licences") == 3);
  CHECK(names.index_of("disk_mb") == std::nullopt);
  CHECK(names.index_of("") == std::nullopt);
  CHECK(names.name(2) == "gpus");
  CHECK_THROWS_WITH_AS((void)names.name(4), "resource_names: no component 4 in a schema of 4",
                       invalid_request);
  std::ostringstream out;
  out << names;
  CHECK(out.str() == "{cores, memory_mb, gpus, licences}");
  CHECK(resource_names(std::vector<std::string>{"cores", "gpus"}) ==
        resource_names{"cores", "gpus"});
}

TEST_CASE("resource_names: values built by name, the others zero") {
  const resource_names names{"cores", "memory_mb", "gpus", "licences"};
  CHECK(names.make({{"cores", 4}, {"gpus", 1}}) == dynamic_resources<>{4, 0, 1, 0});
  CHECK(names.amount({{"licences", 2}, {"memory_mb", 2048}}) == dynamic_resources<>{0, 2048, 0, 2});
  CHECK(names.make({}) == dynamic_resources<>(4));
  CHECK(names.zero() == dynamic_resources<>(4));
  CHECK(names.make<int, 4>({{"cores", 1}}) == dynamic_resources<int, 4>{1, 0, 0, 0});
  CHECK(names.format(dynamic_resources<>{4, 1024, 0, 1}) ==
        "{cores: 4, memory_mb: 1024, gpus: 0, licences: 1}");
}

TEST_CASE("resource_names: bad names are refused, naming them") {
  CHECK_THROWS_WITH_AS((resource_names{"cores", "gpus", "cores"}),
                       "resource_names: \"cores\" is given twice (components 0 and 2)",
                       invalid_request);
  CHECK_THROWS_WITH_AS((resource_names{"cores", ""}), "resource_names: name 1 is empty",
                       invalid_request);
  CHECK_THROWS_AS(resource_names(std::vector<std::string>{}), invalid_request);
  const resource_names names{"cores", "gpus"};
  CHECK_THROWS_WITH_AS((void)names.make({{"cores", 1}, {"fpgas", 2}}),
                       "resource_names: unknown resource \"fpgas\" (known: {cores, gpus})",
                       invalid_request);
  CHECK_THROWS_WITH_AS((void)names.make({{"gpus", 1}, {"gpus", 2}}),
                       "resource_names: resource \"gpus\" is given twice", invalid_request);
  CHECK_THROWS_WITH_AS((void)names.format(dynamic_resources<>{1, 2, 3}),
                       doctest::Contains("has 3 components, the schema {cores, gpus} has 2"),
                       invalid_request);
  // A schema wider than the value type holds.
  const resource_names wide{"a", "b", "c"};
  CHECK_THROWS_WITH_AS((void)(wide.make<std::int64_t, 2>({{"a", 1}})),
                       doctest::Contains("3 components requested"), invalid_request);
}

}  // namespace resource_names_test
