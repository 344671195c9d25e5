// Issue 19, vector capacities: how well could a summary prune free_tree's earliest fit for
// resources<4>? Not a benchmark: it counts, on the profile of append/free_tree_vec4 (total
// {128, 128, 128, 128}; each component of a request uniform in [1, 128], duration uniform in
// [1, 3600] s, windows from 0 to forever; time in seconds, which gives the same profile as
// the bench's milliseconds), what each kind of summary would leave to visit. docs/performance.md
// ("Joint summaries for vectors") has the figures and the reasoning.
//
// Every count is for an idealised tree: a perfect binary tree over the free blocks in time
// order with the summary on every node, built afresh for each request (so its cost is not
// counted). A real free_tree keeps summaries on one node in 16 and scans below them, so it
// visits more; a summary that fails here fails there too.
//
//   vector_fit_probe profile <N> [Q = 500]       the static measures below, Q requests
//   vector_fit_probe certificates <N> [Q = 300]  "no fit before t" certificates (append only)
//
// profile prints, per request:
// - blocks before the answer that fit the amount c on their own: the floor for any summary
//   that only says "some block of this subtree fits c" (a box, or a few);
// - for a grid of g levels per component, the joint runs at θ = c rounded down to the grid
//   (g^4 threshold vectors, each with exact run summaries): the runs at least d long that
//   the search opens before the answer, the blocks inside them, and the nodes visited;
// - for an element-wise maximum, per node, of the minimum free vector of the shortest window
//   of at least d that starts at each block, split into K boxes by the order of the
//   components (K = 1, 4, 16, 64; exact d, and windows may leave the node, so this is a
//   bound no node-local summary reaches): the nodes visited;
// - the Pareto-maximal (minimum free vector, length) windows inside groups of 16, 64 and 256
//   consecutive blocks: the size of an exact joint summary.

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string_view>
#include <vector>

#include <leasehold/availability/free_tree.hpp>

namespace {

using tick = std::int64_t;
using amount = std::array<std::int64_t, 4>;
using vector4 = leasehold::resources<4, std::int64_t>;

struct block {
  tick length;
  amount free;
};

struct query {
  amount c;
  tick d;
};

bool fits(const amount& free, const amount& c) {
  for (std::size_t j = 0; j < 4; ++j) {
    if (free[j] < c[j]) return false;
  }
  return true;
}

struct workload {
  std::mt19937_64 random{7};
  std::uniform_int_distribution<std::int64_t> units{1, 128};
  std::uniform_int_distribution<tick> seconds{1, 3600};

  query next() {
    query q{};
    for (std::int64_t& x : q.c) x = units(random);
    q.d = seconds(random);
    return q;
  }
};

vector4 as_vector(const amount& c) { return vector4{{c[0], c[1], c[2], c[3]}}; }

// Books one append request the way the bench does; returns its start.
tick book(leasehold::free_tree<tick, vector4>& tree, const query& q) {
  const auto start = tree.earliest_fit(
      leasehold::request<tick, vector4>{as_vector(q.c), q.d, {0, leasehold::forever<tick>}});
  tree.reserve({*start, *start + q.d}, as_vector(q.c));
  return *start;
}

std::vector<block> blocks_of(const leasehold::free_tree<tick, vector4>& tree) {
  std::vector<block> out;
  for (const auto& b : tree.free_blocks()) {
    // The last block is open-ended; a long finite length stands in for forever.
    const tick length =
        b.span.end == leasehold::forever<tick> ? tick{1} << 40 : b.span.end - b.span.begin;
    out.push_back({length, {b.free[0], b.free[1], b.free[2], b.free[3]}});
  }
  return out;
}

// The index of the block where the earliest fit starts: with windows from 0 it starts at a
// block's begin.
std::size_t answer_of(const std::vector<block>& blocks, const query& q) {
  tick run = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    if (!fits(blocks[i].free, q.c)) {
      run = 0;
      continue;
    }
    if (run == 0) start = i;
    run += blocks[i].length;
    if (run >= q.d) return start;
  }
  return blocks.size();
}

// Run summaries at one threshold vector on a perfect binary tree (leaves from index width).
struct run_tree {
  std::size_t width = 1;
  std::vector<tick> length, lead, trail, best;
  std::vector<char> full;

  void build(const std::vector<block>& blocks, const amount& theta) {
    while (width < blocks.size()) width *= 2;
    length.assign(2 * width, 0);
    lead.assign(2 * width, 0);
    trail.assign(2 * width, 0);
    best.assign(2 * width, 0);
    full.assign(2 * width, 1);
    for (std::size_t k = 0; k < blocks.size(); ++k) {
      const std::size_t x = width + k;
      const bool ok = fits(blocks[k].free, theta);
      length[x] = blocks[k].length;
      full[x] = ok ? 1 : 0;
      lead[x] = trail[x] = best[x] = ok ? blocks[k].length : 0;
    }
    for (std::size_t x = width - 1; x >= 1; --x) {
      const std::size_t a = 2 * x, b = 2 * x + 1;
      length[x] = length[a] + length[b];
      full[x] = static_cast<char>(full[a] != 0 && full[b] != 0);
      lead[x] = full[a] != 0 ? length[a] + lead[b] : lead[a];
      trail[x] = full[b] != 0 ? trail[a] + length[b] : trail[b];
      best[x] = std::max({best[a], best[b], trail[a] + lead[b]});
    }
  }
};

// The first leaf at or after `from` where a run (begun at or after `from`) reaches d, as the
// run seeker finds it: a subtree whose runs, with the carry, all stay short is skipped.
struct run_seek {
  const run_tree& tree;
  std::size_t from;
  tick d;
  tick carry = 0;
  std::size_t found;
  std::int64_t visits = 0;

  bool go(std::size_t x, std::size_t lo, std::size_t hi) {
    if (hi <= from) return false;
    ++visits;
    if (lo >= from && tree.lead[x] + carry < d && tree.best[x] < d) {
      carry = tree.full[x] != 0 ? carry + tree.length[x] : tree.trail[x];
      return false;
    }
    if (hi - lo == 1) {
      if (tree.full[x] == 0) {
        carry = 0;
        return false;
      }
      carry += tree.length[x];
      if (carry < d) return false;
      found = lo;
      return true;
    }
    const std::size_t mid = (lo + hi) / 2;
    return go(2 * x, lo, mid) || go(2 * x + 1, mid, hi);
  }
};

void fitting_blocks(const std::vector<block>& blocks, const std::vector<query>& queries,
                    const std::vector<std::size_t>& answers) {
  double fitting = 0;
  for (std::size_t q = 0; q < queries.size(); ++q) {
    for (std::size_t i = 0; i < answers[q]; ++i) fitting += fits(blocks[i].free, queries[q].c);
  }
  std::printf("blocks before the answer that fit c alone: %.1f\n",
              fitting / static_cast<double>(queries.size()));
}

void grid_runs(const std::vector<block>& blocks, const std::vector<query>& queries,
               const std::vector<std::size_t>& answers) {
  const auto n = static_cast<double>(queries.size());
  for (const std::int64_t levels : {3, 4, 6, 8}) {
    const std::int64_t step = 128 / levels;  // levels 0, step, 2 step, ... below 128
    double candidates = 0, inside = 0, visits = 0;
    run_tree tree;
    for (std::size_t q = 0; q < queries.size(); ++q) {
      amount theta{};
      for (std::size_t j = 0; j < 4; ++j) {
        theta[j] = std::min(queries[q].c[j] / step, levels - 1) * step;
      }
      tree.build(blocks, theta);
      for (std::size_t from = 0;;) {
        run_seek seek{tree, from, queries[q].d, 0, blocks.size()};
        seek.go(1, 0, tree.width);
        visits += static_cast<double>(seek.visits);
        if (seek.found == blocks.size()) break;
        ++candidates;
        std::size_t first = seek.found, end = seek.found;
        while (first > from && fits(blocks[first - 1].free, theta)) --first;
        while (end < blocks.size() && fits(blocks[end].free, theta)) ++end;
        inside += static_cast<double>(end - first);
        if (answers[q] >= first && answers[q] < end) break;
        from = end;
      }
    }
    std::printf(
        "grid %lld (%lld threshold vectors): runs opened %.1f, blocks in them %.1f, "
        "node visits %.1f\n",
        static_cast<long long>(levels), static_cast<long long>(levels * levels * levels * levels),
        candidates / n, inside / n, visits / n);
  }
}

// Element-wise maxima of window minima, in K boxes keyed by the order of the components.
struct box_tree {
  std::size_t width, boxes;
  std::vector<amount> corner;  // node x, box b at x * boxes + b

  bool may_fit(std::size_t x, const amount& c) const {
    for (std::size_t b = 0; b < boxes; ++b) {
      if (fits(corner[x * boxes + b], c)) return true;
    }
    return false;
  }

  std::int64_t visits = 0;
  bool first_fit(std::size_t x, std::size_t lo, std::size_t hi, const amount& c) {
    ++visits;
    if (!may_fit(x, c)) return false;
    if (hi - lo == 1) return true;
    const std::size_t mid = (lo + hi) / 2;
    return first_fit(2 * x, lo, mid, c) || first_fit(2 * x + 1, mid, hi, c);
  }
};

std::size_t box_key(const amount& w, std::size_t boxes) {
  std::array<std::size_t, 4> order{0, 1, 2, 3};
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return w[a] > w[b] || (w[a] == w[b] && a < b); });
  if (boxes == 1) return 0;
  if (boxes == 4) return order[0];
  if (boxes == 16) return order[0] * 4 + order[1];
  return (order[0] * 4 + order[1]) * 4 + order[2];
}

void window_boxes(const std::vector<block>& blocks, const std::vector<query>& queries) {
  const std::size_t m = blocks.size();
  std::size_t width = 1;
  while (width < m) width *= 2;
  for (const std::size_t boxes :
       {std::size_t{1}, std::size_t{4}, std::size_t{16}, std::size_t{64}}) {
    double visits = 0;
    box_tree tree{width, boxes, std::vector<amount>(2 * width * boxes)};
    std::vector<amount> w(m);
    for (const query& q : queries) {
      // w[i]: the minimum over the shortest window of at least d that starts at block i
      // (two pointers and a monotone deque per component).
      std::array<std::vector<std::size_t>, 4> deque;
      std::array<std::size_t, 4> head{};
      std::size_t end = 0;
      tick sum = 0;
      for (std::size_t i = 0; i < m; ++i) {
        while (end < m && sum < q.d) {
          for (std::size_t j = 0; j < 4; ++j) {
            while (deque[j].size() > head[j] &&
                   blocks[deque[j].back()].free[j] >= blocks[end].free[j]) {
              deque[j].pop_back();
            }
            deque[j].push_back(end);
          }
          sum += blocks[end].length;
          ++end;
        }
        for (std::size_t j = 0; j < 4; ++j) {
          while (deque[j][head[j]] < i) ++head[j];
          w[i][j] = blocks[deque[j][head[j]]].free[j];
        }
        sum -= blocks[i].length;
      }
      std::fill(tree.corner.begin(), tree.corner.end(), amount{-1, -1, -1, -1});
      tree.visits = 0;
      for (std::size_t i = 0; i < m; ++i)
        tree.corner[(width + i) * boxes + box_key(w[i], boxes)] = w[i];
      for (std::size_t x = width - 1; x >= 1; --x) {
        for (std::size_t b = 0; b < boxes; ++b) {
          for (std::size_t j = 0; j < 4; ++j) {
            tree.corner[x * boxes + b][j] = std::max(tree.corner[2 * x * boxes + b][j],
                                                     tree.corner[(2 * x + 1) * boxes + b][j]);
          }
        }
      }
      tree.first_fit(1, 0, width, q.c);
      visits += static_cast<double>(tree.visits);
    }
    std::printf("window minima, %zu boxes per node (exact d): node visits %.1f\n", boxes,
                visits / static_cast<double>(queries.size()));
  }
}

void pareto_windows(const std::vector<block>& blocks) {
  for (const std::size_t size : {std::size_t{16}, std::size_t{64}, std::size_t{256}}) {
    double total = 0;
    std::size_t groups = 0, largest = 0;
    for (std::size_t g0 = 0; g0 + size < blocks.size() && groups < 40;
         g0 += blocks.size() / 40, ++groups) {
      std::vector<std::pair<amount, tick>> front;
      for (std::size_t a = g0; a < g0 + size; ++a) {
        amount low = blocks[a].free;
        tick length = 0;
        for (std::size_t b = a; b < g0 + size; ++b) {
          for (std::size_t j = 0; j < 4; ++j) low[j] = std::min(low[j], blocks[b].free[j]);
          length += blocks[b].length;
          const auto dominates = [](const amount& v, tick l, const amount& u, tick k) {
            return l >= k && fits(v, u);
          };
          if (std::any_of(front.begin(), front.end(), [&](const auto& e) {
                return dominates(e.first, e.second, low, length);
              })) {
            continue;
          }
          std::erase_if(front,
                        [&](const auto& e) { return dominates(low, length, e.first, e.second); });
          front.emplace_back(low, length);
        }
      }
      total += static_cast<double>(front.size());
      largest = std::max(largest, front.size());
    }
    std::printf("Pareto (minimum, length) windows in %zu consecutive blocks: mean %.1f, max %zu\n",
                size, total / static_cast<double>(groups), largest);
  }
}

void profile(int n, int q_count) {
  leasehold::free_tree<tick, vector4> tree(vector4{{128, 128, 128, 128}});
  workload load;
  for (int i = 0; i < n; ++i) book(tree, load.next());
  const std::vector<block> blocks = blocks_of(tree);
  std::vector<query> queries;
  std::vector<std::size_t> answers;
  std::size_t at_end = 0;
  for (int i = 0; i < q_count; ++i) {
    queries.push_back(load.next());
    answers.push_back(answer_of(blocks, queries.back()));
    at_end += answers.back() + 1 == blocks.size();
  }
  std::printf("N=%d blocks=%zu; answers in the open-ended last block: %zu of %d\n", n,
              blocks.size(), at_end, q_count);
  fitting_blocks(blocks, queries, answers);
  grid_runs(blocks, queries, answers);
  window_boxes(blocks, queries);
  pareto_windows(blocks);
}

// In an append-only profile free capacity never grows, so "no fit of (c, d) starts before t"
// stays true, and holds for every c' >= c, d' >= d. Kept: the certificates no other one
// makes useless; counted over the last Q requests: blocks scanned from 0 and from the best
// certificate to the answer.
void certificates(int n, int q_count) {
  struct certificate {
    amount c;
    tick d, t;
  };
  leasehold::free_tree<tick, vector4> tree(vector4{{128, 128, 128, 128}});
  workload load;
  std::vector<certificate> kept;
  double from_origin = 0, from_certificate = 0;
  for (int i = 0; i < n; ++i) {
    const query q = load.next();
    tick best = 0;
    for (const certificate& e : kept) {
      if (e.d <= q.d && fits(q.c, e.c)) best = std::max(best, e.t);
    }
    if (i >= n - q_count) {
      const std::vector<block> blocks = blocks_of(tree);
      const std::size_t answer = answer_of(blocks, q);
      std::size_t skipped = 0;
      for (tick at = 0; skipped < answer && at + blocks[skipped].length <= best; ++skipped) {
        at += blocks[skipped].length;
      }
      from_origin += static_cast<double>(answer);
      from_certificate += static_cast<double>(answer - skipped);
    }
    const tick start = book(tree, q);
    if (start < best) std::printf("unsound certificate\n");
    const bool useless = std::any_of(kept.begin(), kept.end(), [&](const certificate& e) {
      return e.d <= q.d && e.t >= start && fits(q.c, e.c);
    });
    if (!useless) {
      std::erase_if(
          kept, [&](const certificate& e) { return q.d <= e.d && start >= e.t && fits(e.c, q.c); });
      kept.push_back({q.c, q.d, start});
    }
  }
  std::printf(
      "N=%d certificates kept %zu; blocks to the answer from 0 %.0f, from the best "
      "certificate %.0f\n",
      n, kept.size(), from_origin / q_count, from_certificate / q_count);
}

int parse(const char* text, int fallback) {
  if (text == nullptr) return fallback;
  int value = 0;
  const std::string_view s(text);
  const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (error != std::errc{} || end != s.data() + s.size() || value <= 0) return -1;
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  constexpr std::string_view usage = "usage: vector_fit_probe <profile|certificates> <N> [Q]";
  if (argc < 3 || argc > 4) {
    std::fprintf(stderr, "vector_fit_probe: takes 2 or 3 arguments, got %d\n%s\n", argc - 1,
                 usage.data());
    return 2;
  }
  const std::string_view mode = argv[1];
  if (mode != "profile" && mode != "certificates") {
    std::fprintf(stderr, "vector_fit_probe: unknown mode '%s'\n%s\n", argv[1], usage.data());
    return 2;
  }
  const int n = parse(argv[2], 0);
  const int q = parse(argc == 4 ? argv[3] : nullptr, mode == "certificates" ? 300 : 500);
  if (n < 0 || q < 0 || q > n) {
    std::fprintf(stderr,
                 "vector_fit_probe: '%s' is not a count of reservations (N) with at most N "
                 "requests (Q), each a whole number above 0\n%s\n",
                 n < 0 ? argv[2] : argv[argc - 1], usage.data());
    return 2;
  }
  if (mode == "profile") {
    profile(n, q);
  } else {
    certificates(n, q);
  }
  return 0;
}
