// io::save_profile / load_profile and save_slot_table / load_slot_table: a profile saved from
// any backend restores into any backend of the same types and answers every query the same;
// truncated, corrupted, wrong-version and wrong-type checkpoints are rejected by path.

#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <leasehold/cluster/slot_table.hpp>
#include <leasehold/io/checkpoint.hpp>
#include <leasehold/leasehold.hpp>

#include "io/corrupted_text.hpp"

#include "availability/backends.hpp"

namespace checkpoint_test {

using namespace leasehold;

namespace {

using T = std::int64_t;

// A busy profile: random bookings on a reference, replayed onto A.
template <class A>
A random_profile(A a, std::uint64_t seed) {
  using C = typename A::capacity_type;
  using TT = typename A::time_type;
  std::mt19937_64 rng(seed);
  auto uniform = [&rng](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  for (int i = 0; i < 200; ++i) {
    C amount{};
    if constexpr (scalar_capacity<C>)
      amount = static_cast<C>(uniform(1, 3));
    else
      amount = C{{uniform(0, 2), uniform(1, 512), uniform(0, 9), uniform(0, 3)}};
    const request<TT, C> r{amount,
                           static_cast<TT>(uniform(1, 40)),
                           {static_cast<TT>(a.origin() + uniform(0, 500)), forever<TT>}};
    if (const auto s = a.earliest_fit(r)) a.reserve({*s, static_cast<TT>(*s + r.duration)}, amount);
    if (i % 50 == 49) a.advance_to(static_cast<TT>(a.origin() + uniform(0, 20)));
  }
  return a;
}

template <class A, class B>
void check_same_answers(const A& a, const B& b, std::uint64_t seed) {
  using C = typename A::capacity_type;
  CHECK(io::detail::blocks_of(a) == io::detail::blocks_of(b));
  CHECK(a.origin() == b.origin());
  CHECK(a.total() == b.total());
  std::mt19937_64 rng(seed);
  auto uniform = [&rng](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
  };
  for (int i = 0; i < 300; ++i) {
    C amount{};
    if constexpr (scalar_capacity<C>)
      amount = static_cast<C>(uniform(1, 4));
    else
      amount = C{{uniform(0, 4), uniform(1, 1024), uniform(0, 10), uniform(0, 4)}};
    const request<T, C> r{amount, uniform(1, 80), {a.origin() + uniform(0, 600), forever<T>}};
    CHECK(a.earliest_fit(r) == b.earliest_fit(r));
    const T t = a.origin() + uniform(0, 700);
    CHECK(a.free_at(t) == b.free_at(t));
    const interval<T> span{t, t + uniform(1, 100)};
    CHECK(a.min_free(span) == b.min_free(span));
  }
}

std::string error_of(auto load) { return leasehold::testing::format_error_of(load); }
using leasehold::testing::replaced;

}  // namespace

TEST_CASE_TEMPLATE("checkpoint: a scalar profile restores into every exact backend", A,
                   LEASEHOLD_EXACT_SCALAR_BACKENDS) {
  using C = typename A::capacity_type;
  using TT = typename A::time_type;
  const A saved = random_profile(A(C{4}, TT{7}), 3);
  const std::string text = io::save_profile(saved);
  const auto b1 = io::load_profile<free_list<TT, C>>(text);
  const auto b2 = io::load_profile<free_tree<TT, C>>(text);
  const auto b3 = io::load_profile<capacity_tree<TT, C>>(text);
  const auto b4 = io::load_profile<reference<TT, C>>(text);
  if constexpr (std::same_as<TT, T>) {
    check_same_answers(saved, b1, 1);
    check_same_answers(saved, b2, 2);
    check_same_answers(saved, b3, 3);
    check_same_answers(saved, b4, 4);
  }
  CHECK(io::save_profile(b1) == text);  // the format is canonical
  CHECK(io::save_profile(b3) == text);
}

TEST_CASE_TEMPLATE("checkpoint: a vector profile restores into every exact backend", A,
                   LEASEHOLD_EXACT_VECTOR_BACKENDS) {
  using C = typename A::capacity_type;
  const A saved = random_profile(A(C{{4, 4096, 20, 8}}, T{0}), 5);
  const std::string text = io::save_profile(saved);
  check_same_answers(saved, io::load_profile<free_list<T, C>>(text), 6);
  check_same_answers(saved, io::load_profile<free_tree<T, C>>(text), 7);
  check_same_answers(saved, io::load_profile<reference<T, C>>(text), 8);
}

TEST_CASE("checkpoint: slotted_ring round trip and a profile the ring cannot hold") {
  using ring = slotted_ring<T, T>;
  const auto make = [](T total, T origin) { return ring(total, 10, 100, origin); };
  const ring saved = random_profile(ring(4, 10, 100, 0), 9);
  const std::string text = io::save_profile(saved);
  const ring restored = io::load_profile<ring>(text, make);
  CHECK(io::detail::blocks_of(restored) == io::detail::blocks_of(saved));
  CHECK(io::save_profile(restored) == text);
  // Unaligned blocks would be rounded to slots: refused, not silently changed.
  free_list<T, T> unaligned(4);
  unaligned.reserve({3, 17}, 1);
  CHECK(error_of([&] { (void)io::load_profile<ring>(io::save_profile(unaligned), make); }) ==
        "at $.blocks: the backend cannot hold this profile exactly (slot rounding)");
  // Bookings beyond the ring's horizon cannot be restored.
  free_list<T, T> far(4);
  far.reserve({5000, 5010}, 1);
  CHECK(error_of([&] {
          (void)io::load_profile<ring>(io::save_profile(far), make);
        }).starts_with("at $.blocks: the profile cannot be restored into this backend: reserve"));
}

TEST_CASE("checkpoint: the document is versioned and described") {
  free_list<T, T> a(4, 100);
  a.reserve({110, 120}, 3);
  CHECK(io::save_profile(a) ==
        "{\n"
        "  \"format\": \"leasehold-checkpoint\",\n"
        "  \"version\": 2,\n"
        "  \"checksum\": \"crc32c:3d6b6242\",\n"
        "  \"kind\": \"availability\",\n"
        "  \"time_type\": \"int64\",\n"
        "  \"capacity_type\": \"int64\",\n"
        "  \"total\": 4,\n"
        "  \"origin\": 100,\n"
        "  \"blocks\": [\n"
        "    [100, 4],\n"
        "    [110, 1],\n"
        "    [120, 4]\n"
        "  ],\n"
        "  \"end\": 9223372036854775807\n"
        "}");
}

TEST_CASE("checkpoint: bad profile checkpoints are rejected with what and where") {
  using fl = free_list<T, T>;
  fl a(4, 100);
  a.reserve({110, 120}, 3);
  const std::string good = io::save_profile(a);
  auto load = [](const std::string& text) { return [text] { (void)io::load_profile<fl>(text); }; };
  CHECK(error_of(load(replaced(good, "\"version\": 2", "\"version\": 3"))) ==
        "at $.version: unsupported checkpoint version 3 (this build reads versions 1 to 2)");
  CHECK(error_of(load(replaced(good, "leasehold-checkpoint", "other"))) ==
        "at $.format: not a leasehold checkpoint (format \"other\")");
  CHECK(error_of(load(replaced(good, "\"availability\"", "\"slot_table\""))) ==
        "at $.kind: a checkpoint of a slot_table, expected a availability");
  CHECK(error_of([&] { (void)io::load_profile<free_list<int, int>>(good); }) ==
        "at $.time_type: time type int64, expected int32");
  CHECK(error_of([&] {
          (void)io::load_profile<free_list<T, leasehold::testing::vector4>>(good);
        }) == "at $.capacity_type: capacity type int64, expected resources<4,int64>");
  CHECK(error_of(load(replaced(good, "[110, 1]", "[110, 5]"))) ==
        "at $.blocks[1][1]: free capacity outside [0, total]");
  CHECK(error_of(load(replaced(good, "[110, 1]", "[110, 4]"))) ==
        "at $.blocks[1]: two neighbouring blocks have the same free capacity (not maximal)");
  CHECK(error_of(load(replaced(good, "[120, 4]", "[105, 4]"))) ==
        "at $.blocks[2][0]: blocks are not in time order");
  CHECK(error_of(load(replaced(good, "[100, 4]", "[99, 4]"))) ==
        "at $.blocks[0][0]: the first block begins at 99, not at the origin 100");
  CHECK(error_of(load(replaced(good, "\"total\": 4", "\"total\": 4, \"extra\": 1"))) ==
        "at $: unexpected member \"extra\"");
  CHECK(error_of(load(replaced(good, "\"origin\": 100,", ""))) ==
        "at $: missing member \"origin\"");
  // Every truncation is rejected: by its checksum, or as malformed JSON when it ends before
  // the checksum does; never half-loaded or crashing.
  for (std::size_t n = 0; n < good.size(); ++n) {
    CAPTURE(n);
    CHECK(leasehold::testing::refused_as_corrupt(error_of(load(good.substr(0, n)))));
  }
}

// Every bit of a small profile's checkpoint flipped, and the checkpoint cut at every byte: each
// load is refused with a leasehold::error or restores the saved profile exactly (compared by
// saving again). The checksum makes every one of them a refusal.
TEST_CASE("checkpoint: every bit flip and truncation of a profile checkpoint is refused") {
  const auto began = std::chrono::steady_clock::now();
  free_list<T, T> a(4, 100);
  a.reserve({110, 120}, 3);
  a.reserve({115, 140}, 1);
  const std::string good = io::save_profile(a);
  const auto outcome = leasehold::testing::corrupt_every_way(good, [](const std::string& text) {
    return io::save_profile(io::load_profile<free_list<T, T>>(text));
  });
  CHECK(outcome.loaded_differently == 0);
  CHECK(outcome.loaded_identically == 0);
  CHECK(outcome.refused == 9 * good.size());
  MESSAGE(good.size(), " bytes: ", 8 * good.size(), " flips and ", good.size(), " truncations, ",
          outcome.refused_by_checksum, " refused by the checksum, ",
          outcome.refused - outcome.refused_by_checksum, " otherwise (malformed, or no checksum); ",
          std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count(), " s");
}

TEST_CASE_TEMPLATE("checkpoint: a slot table round trip rebuilds the aggregate", A,
                   LEASEHOLD_EXACT_VECTOR_BACKENDS) {
  using C = typename A::capacity_type;
  using table = cluster::slot_table<A>;
  table t(4, C{{2, 2048, 10, 5}}, 50);
  t.reserve({{60, 90}, C{{1, 512, 0, 1}}, {0, 2}});
  t.reserve({{70, 200}, C{{2, 1024, 5, 0}}, {1}});
  t.advance_to(65);
  const std::string text = io::save_slot_table(t);
  const table back = io::load_slot_table<A>(text);
  CHECK(io::save_slot_table(back) == text);
  CHECK(io::detail::blocks_of(back.aggregate()) == io::detail::blocks_of(t.aggregate()));
  const auto r = typename table::request_type{3, C{{1, 1024, 0, 0}}, 50};
  CHECK(back.earliest_fit(r) == t.earliest_fit(r));
  // A node profile restored into another backend.
  const auto as_list = io::load_slot_table<free_list<T, C>>(text);
  CHECK(as_list.earliest_fit(r) == t.earliest_fit(r));
  CHECK(error_of([&] {
          (void)io::load_slot_table<A>(replaced(text, "\"nodes\": [", "\"nodes\": [{\"end\": 3},"));
        }).starts_with("at $.nodes[0]: missing member \"blocks\""));
  for (std::size_t n = 0; n < text.size(); n += 7) {
    CAPTURE(n);
    CHECK(leasehold::testing::refused_as_corrupt(
        error_of([&] { (void)io::load_slot_table<A>(text.substr(0, n)); })));
  }
}

TEST_CASE("checkpoint: a dynamic_resources profile restores, its counts checked") {
  using C = dynamic_resources<>;
  const free_tree<T, C> saved = random_profile(free_tree<T, C>(C{4, 4096, 20, 8}, T{0}), 9);
  const std::string text = io::save_profile(saved);
  CHECK(text.find("\"capacity_type\": \"dynamic_resources<int64,8>\"") != std::string::npos);
  check_same_answers(saved, io::load_profile<free_list<T, C>>(text), 10);
  check_same_answers(saved, io::load_profile<reference<T, C>>(text), 11);
  CHECK(io::save_profile(io::load_profile<free_list<T, C>>(text)) == text);

  free_list<T, C> small(C{4, 8}, 0);
  small.reserve({10, 20}, C{1, 2});
  const std::string good = io::save_profile(small);
  auto load = [](const std::string& bad) {
    return [bad] { (void)io::load_profile<free_list<T, C>>(bad); };
  };
  CHECK(error_of(load(replaced(good, "[3, 6]", "[3, 6, 0]"))) ==
        "at $.blocks[1][1]: free capacity of 3 components, the total has 2");
  CHECK(error_of(load(replaced(good, "\"total\": [4, 8]", "\"total\": []"))) ==
        "at $.total: 0 components, expected 1 to 8");
  CHECK(error_of([&] {
          (void)io::load_profile<free_list<T, leasehold::testing::vector4>>(good);
        }).ends_with("expected resources<4,int64>"));
}

}  // namespace checkpoint_test
