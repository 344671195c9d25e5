#pragma once

// A Gantt chart of a lease schedule as an SVG document: the nodes of a cluster (rows) against
// time, each segment of a lease a bar on its nodes, so that a researcher debugging a policy
// looks at the schedule rather than reading it.
//
// - Bars are coloured by the lease's kind (best-effort, advance reservation, immediate;
//   Okabe & Ito's colour-blind-safe colours, as svg_plot.hpp's), and advance reservations are
//   also outlined in black, so that the kinds stay apart in greyscale.
// - A segment's overheads (a migration, a resume, a suspension, a VM's boot and shutdown: the
//   segment outside its run) are drawn in a light shade of its colour, the run in full.
// - A segment that ends in a suspension has a black bar at its end, one cancelled (preempted
//   without suspension, its work lost) a red cross; a migration is a dashed arrow from the
//   nodes the lease left to those it resumes on, over the transfer; an image transfer is a
//   grey strip along the bottom of its destination nodes' rows.
// - The time axis reads h:mm from the chart's time 0 (hours past 24 keep counting: "36:00"),
//   at a round step (1, 2, 5, 10, 15 or 30 minutes, 1, 2, 3, 6 or 12 hours, or whole days).
// - Every bar, arrow and strip carries an SVG <title>: a browser shows the lease, its kind,
//   its nodes and times when the pointer rests on it.
//
// Times are seconds (gantt_recorder.hpp converts a scheduler's ticks). The document is written
// by svg_plot.hpp's writer (its opening, heading, notes, escaping and number format): one SVG
// writer for every figure of io/.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "leasehold/core/error.hpp"
#include "leasehold/core/lease_terms.hpp"
#include "leasehold/io/svg_plot.hpp"

namespace leasehold::io {

/// How a segment ended: its lease's work done (or the lease released), suspended (its
/// remainder queued, to resume later), or cancelled (preempted, its work lost, requeued).
enum class gantt_ending { completed, suspended, cancelled };

/// One segment of a lease: a bar on each of its nodes over [begin, end), its run inside.
struct gantt_segment {
  std::uint64_t lease = 0;                    ///< the lease's id
  lease_kind kind = lease_kind::best_effort;  ///< colours the bar
  std::vector<std::size_t> nodes;             ///< a bar on each
  double begin = 0;      ///< s: when the segment begins (its overheads included)
  double end = 0;        ///< s: when it really ends
  double run_begin = 0;  ///< s: the computing part, inside [begin, end]
  double run_end = 0;    ///< s: the end of the computing part
  gantt_ending ending = gantt_ending::completed;  ///< marks the bar's end
};

/// A lease's memory state and image moving from the nodes where it was suspended to those it
/// resumes on, over [begin, end).
struct gantt_migration {
  std::uint64_t lease = 0;        ///< the lease's id
  std::vector<std::size_t> from;  ///< the nodes it was suspended on
  std::vector<std::size_t> to;    ///< the nodes it resumes on
  double begin = 0;               ///< s: the transfer's start
  double end = 0;                 ///< s: the transfer's end
};

/// A disk image sent from the repository to `nodes` over [begin, end).
struct gantt_transfer {
  std::string image;               ///< the image's id
  std::int64_t size_mb = 0;        ///< its size
  std::vector<std::size_t> nodes;  ///< its destinations, a strip on each row
  double begin = 0;                ///< s: the transfer's start
  double end = 0;                  ///< s: the transfer's end
};

/// A schedule to draw: `nodes` rows, the segments, migrations and transfers on them, a title,
/// a subtitle and notes printed below the legend.
struct gantt_chart {
  std::string title;                        ///< the heading
  std::string subtitle;                     ///< the line below it
  std::size_t nodes = 0;                    ///< the rows
  std::vector<gantt_segment> segments;      ///< the bars
  std::vector<gantt_migration> migrations;  ///< the arrows
  std::vector<gantt_transfer> transfers;    ///< the strips
  std::vector<std::string> notes;           ///< lines printed below the legend
  double plot_width = 900;                  ///< px of the time axis
};

/// `seconds` as h:mm, rounded to the nearest minute: 0 -> "0:00", 5400 -> "1:30",
/// 93600 -> "26:00", -900 -> "-0:15".
[[nodiscard]] inline std::string hours_minutes(double seconds) {
  const long long minutes = std::llround(std::abs(seconds) / 60.0);
  const std::string mm = std::to_string(minutes % 60);
  return std::string(seconds < 0 && minutes > 0 ? "-" : "") + std::to_string(minutes / 60) + ":" +
         (mm.size() < 2 ? "0" : "") + mm;
}

/// Ticks for a time axis (seconds) holding [lo, hi]: the smallest round step of clock time
/// that cuts hi - lo into at most `target` steps (1, 2, 5, 10, 15 or 30 minutes, 1, 2, 3, 6 or
/// 12 hours, 1 or 2 days, then 1, 2 or 5 times a power of ten days); the range is widened to
/// whole steps. Throws leasehold::error for a reversed or non-finite range.
[[nodiscard]] inline axis_ticks time_ticks(double lo, double hi, int target = 10) {
  if (!(lo <= hi) || !std::isfinite(lo) || !std::isfinite(hi) || target < 1)
    throw error("time_ticks: bad range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  constexpr double minute = 60;
  constexpr double hour = 3600;
  constexpr double day = 86400;
  double step = 0;
  for (const double s : {1 * minute, 2 * minute, 5 * minute, 10 * minute, 15 * minute, 30 * minute,
                         1 * hour, 2 * hour, 3 * hour, 6 * hour, 12 * hour, 1 * day, 2 * day})
    if ((hi - lo) / s <= target) {
      step = s;
      break;
    }
  if (step == 0) step = day * detail::nice_number((hi - lo) / day / target, false);
  axis_ticks ticks{std::floor(lo / step) * step, std::ceil(hi / step) * step, {}, 0};
  if (ticks.hi <= ticks.lo) ticks.hi = ticks.lo + step;
  const auto count = std::lround((ticks.hi - ticks.lo) / step);
  for (long i = 0; i <= count; ++i)
    ticks.values.push_back(ticks.lo + static_cast<double>(i) * step);
  return ticks;
}

namespace detail {

// How each lease kind is drawn: its colour (Okabe & Ito: best-effort blue, advance
// reservation orange, immediate green) and the name its tooltip gives.
struct kind_style {
  const char* colour;
  const char* label;
};

inline kind_style style_of(lease_kind kind) {
  switch (kind) {
    case lease_kind::advance_reservation:
      return {"#E69F00", "advance reservation"};
    case lease_kind::immediate:
      return {"#009E73", "immediate"};
    case lease_kind::best_effort:
      break;
  }
  return {"#0072B2", "best-effort"};
}

// Sorted, distinct nodes as runs of consecutive ones: {0 1 2 5} -> [0, 2], [5, 5]. Each run
// is one rectangle.
inline std::vector<std::pair<std::size_t, std::size_t>> node_runs(std::vector<std::size_t> nodes) {
  std::ranges::sort(nodes);
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  std::vector<std::pair<std::size_t, std::size_t>> runs;
  for (const std::size_t n : nodes)
    if (!runs.empty() && runs.back().second + 1 == n)
      runs.back().second = n;
    else
      runs.emplace_back(n, n);
  return runs;
}

// "0-3, 7" for the titles.
inline std::string node_text(const std::vector<std::size_t>& nodes) {
  // Appended piece by piece: GCC 12 at -O3 misreads `"-" + std::to_string(n)` (a
  // -Wstringop-overflow false positive that -Werror turns into a failed release build).
  std::string text;
  for (const auto& [first, last] : node_runs(nodes)) {
    if (!text.empty()) text.append(", ");
    text.append(std::to_string(first));
    if (last != first) {
      text.push_back('-');
      text.append(std::to_string(last));
    }
  }
  return text;
}

inline void check_nodes(const gantt_chart& chart, const std::vector<std::size_t>& nodes,
                        const std::string& what) {
  if (nodes.empty()) throw error("gantt chart: " + what + " has no node");
  for (const std::size_t n : nodes)
    if (n >= chart.nodes)
      throw error("gantt chart: " + what + " is on node " + std::to_string(n) + " of a chart of " +
                  std::to_string(chart.nodes) + " nodes");
}

inline void check_span(double begin, double end, const std::string& what) {
  if (!std::isfinite(begin) || !std::isfinite(end) || end < begin)
    throw error("gantt chart: " + what + " spans [" + std::to_string(begin) + ", " +
                std::to_string(end) + "), which cannot be drawn");
}

inline void check_chart(const gantt_chart& chart) {
  if (chart.nodes == 0) throw error("gantt chart \"" + chart.title + "\": no node to draw");
  if (!(chart.plot_width >= 200))
    throw error("gantt chart \"" + chart.title + "\": a time axis of " +
                std::to_string(chart.plot_width) + " px is too small (at least 200)");
  for (std::size_t i = 0; i < chart.segments.size(); ++i) {
    const gantt_segment& s = chart.segments[i];
    const std::string what =
        "segment " + std::to_string(i) + " (lease " + std::to_string(s.lease) + ")";
    check_nodes(chart, s.nodes, what);
    check_span(s.begin, s.end, what);
    if (!(s.begin <= s.run_begin && s.run_begin <= s.run_end && s.run_end <= s.end))
      throw error("gantt chart: " + what + " runs [" + std::to_string(s.run_begin) + ", " +
                  std::to_string(s.run_end) + "), not inside its span [" + std::to_string(s.begin) +
                  ", " + std::to_string(s.end) + ")");
  }
  for (const gantt_migration& m : chart.migrations) {
    const std::string what = "the migration of lease " + std::to_string(m.lease);
    check_nodes(chart, m.from, what);
    check_nodes(chart, m.to, what);
    check_span(m.begin, m.end, what);
  }
  for (const gantt_transfer& t : chart.transfers) {
    const std::string what = "the transfer of image \"" + t.image + "\"";
    check_nodes(chart, t.nodes, what);
    check_span(t.begin, t.end, what);
  }
}

// Where things go: rows of `row` px from `top`, time mapped onto [left, left + width].
struct gantt_layout {
  double left, top, width, row;
  double t0, t1;
  [[nodiscard]] double x(double t) const { return left + (t - t0) / (t1 - t0) * width; }
  [[nodiscard]] double y(std::size_t node) const { return top + row * static_cast<double>(node); }
  // The vertical middle of a set of nodes (a migration's ends).
  [[nodiscard]] double middle(const std::vector<std::size_t>& nodes) const {
    double sum = 0;
    for (const std::size_t n : nodes) sum += y(n) + row / 2;
    return sum / static_cast<double>(nodes.size());
  }
};

inline void draw_segment(std::ostringstream& out, const gantt_segment& s, const gantt_layout& g) {
  const char* colour = style_of(s.kind).colour;
  const bool outlined = s.kind == lease_kind::advance_reservation;
  const char* ending = s.ending == gantt_ending::suspended   ? ", suspended"
                       : s.ending == gantt_ending::cancelled ? ", cancelled"
                                                             : "";
  out << "<g class=\"segment\" data-lease=\"" << s.lease << "\" data-kind=\""
      << style_of(s.kind).label << "\">\n<title>lease " << s.lease << ", " << style_of(s.kind).label
      << ": " << hours_minutes(s.begin) << " to " << hours_minutes(s.end) << " on node"
      << (s.nodes.size() == 1 ? " " : "s ") << node_text(s.nodes) << " (runs "
      << hours_minutes(s.run_begin) << " to " << hours_minutes(s.run_end) << ")" << ending
      << "</title>\n";
  // Rows apart when they are tall enough to show a gap; a bar is never thinner than a pixel
  // so that a short segment of a long schedule stays visible.
  const double pad = g.row >= 8 ? 1.5 : 0;
  const double x0 = g.x(s.begin);
  const double w = std::max(g.x(s.end) - x0, 1.0);
  const double rx = g.x(s.run_begin);
  const double rw = s.run_end > s.run_begin ? std::max(g.x(s.run_end) - rx, 1.0) : 0;
  for (const auto& [first, last] : node_runs(s.nodes)) {
    const double y = g.y(first) + pad;
    const double h = g.row * static_cast<double>(last - first + 1) - 2 * pad;
    out << "<rect class=\"bar\" x=\"" << px(x0) << "\" y=\"" << px(y) << "\" width=\"" << px(w)
        << "\" height=\"" << px(h) << "\" fill=\"" << colour << "\" fill-opacity=\"0.35\"/>\n";
    // Thin rows have no gap: a hairline keeps neighbouring leases of one colour apart.
    const std::string edge = pad == 0 && rw >= 3 ? "\" stroke=\"#ffffff\" stroke-width=\"0.5" : "";
    if (rw > 0)
      out << "<rect class=\"run\" x=\"" << px(rx) << "\" y=\"" << px(y) << "\" width=\"" << px(rw)
          << "\" height=\"" << px(h) << "\" fill=\"" << colour << edge << "\"/>\n";
    if (outlined)
      out << "<rect class=\"ar-outline\" x=\"" << px(x0) << "\" y=\"" << px(y) << "\" width=\""
          << px(w) << "\" height=\"" << px(h)
          << "\" fill=\"none\" stroke=\"#000000\" stroke-width=\"1.5\"/>\n";
    const std::string id = std::to_string(s.lease);
    if (h >= 11 && rw >= text_width(id, 10) + 4)
      out << "<text class=\"label\" x=\"" << px(rx + rw / 2) << "\" y=\"" << px(y + h / 2 + 3.5)
          << "\" text-anchor=\"middle\" font-size=\"10\" fill=\""
          << (s.kind == lease_kind::advance_reservation ? "#000000" : "#ffffff") << "\">" << id
          << "</text>\n";
  }
  // The ending's mark, one per segment, over all its nodes.
  const double xe = x0 + w;
  if (s.ending == gantt_ending::suspended) {
    out << "<path class=\"suspension\" d=\"";
    for (const auto& [first, last] : node_runs(s.nodes))
      out << 'M' << px(xe) << ',' << px(g.y(first)) << 'V' << px(g.y(last) + g.row);
    out << "\" stroke=\"#000000\" stroke-width=\"3\"/>\n";
  } else if (s.ending == gantt_ending::cancelled) {
    out << "<path class=\"cancellation\" d=\"";
    for (const auto& [first, last] : node_runs(s.nodes)) {
      const double ym = (g.y(first) + g.y(last) + g.row) / 2;
      const double r = std::clamp(g.row * static_cast<double>(last - first + 1) / 2, 2.0, 5.0);
      out << 'M' << px(xe - r) << ',' << px(ym - r) << 'L' << px(xe + r) << ',' << px(ym + r) << 'M'
          << px(xe - r) << ',' << px(ym + r) << 'L' << px(xe + r) << ',' << px(ym - r);
    }
    out << "\" stroke=\"#D55E00\" stroke-width=\"2\" fill=\"none\"/>\n";
  }
  out << "</g>\n";
}

inline void draw_migration(std::ostringstream& out, const gantt_migration& m,
                           const gantt_layout& g) {
  const double x1 = g.x(m.begin);
  const double y1 = g.middle(m.from);
  const double x2 = g.x(m.end);
  const double y2 = g.middle(m.to);
  out << "<g class=\"migration\" data-lease=\"" << m.lease << "\">\n<title>lease " << m.lease
      << " migrates from node" << (m.from.size() == 1 ? " " : "s ") << node_text(m.from)
      << " to node" << (m.to.size() == 1 ? " " : "s ") << node_text(m.to) << ": "
      << hours_minutes(m.begin) << " to " << hours_minutes(m.end) << "</title>\n"
      << "<path d=\"M" << px(x1) << ',' << px(y1) << 'L' << px(x2) << ',' << px(y2)
      << "\" stroke=\"#CC79A7\" stroke-width=\"1.5\" stroke-dasharray=\"4,2\" fill=\"none\"/>\n";
  // The arrowhead at the destination, along the line.
  const double length = std::hypot(x2 - x1, y2 - y1);
  if (length >= 1) {
    const double ux = (x2 - x1) / length;
    const double uy = (y2 - y1) / length;
    out << "<path d=\"M" << px(x2) << ',' << px(y2) << 'L' << px(x2 - 7 * ux - 3.5 * uy) << ','
        << px(y2 - 7 * uy + 3.5 * ux) << 'L' << px(x2 - 7 * ux + 3.5 * uy) << ','
        << px(y2 - 7 * uy - 3.5 * ux) << "Z\" fill=\"#CC79A7\"/>\n";
  }
  out << "</g>\n";
}

inline void draw_transfer(std::ostringstream& out, const gantt_transfer& t, const gantt_layout& g) {
  out << "<g class=\"transfer\">\n<title>image " << xml_escape(t.image) << " (" << t.size_mb
      << " MB) to node" << (t.nodes.size() == 1 ? " " : "s ") << node_text(t.nodes) << ": "
      << hours_minutes(t.begin) << " to " << hours_minutes(t.end) << "</title>\n";
  const double x = g.x(t.begin);
  const double w = std::max(g.x(t.end) - x, 1.0);
  const double h = std::max(1.5, g.row * 0.3);
  for (const std::size_t n : t.nodes)
    out << "<rect x=\"" << px(x) << "\" y=\"" << px(g.y(n) + g.row - h) << "\" width=\"" << px(w)
        << "\" height=\"" << px(h) << "\" fill=\"#555555\"/>\n";
  out << "</g>\n";
}

// The legend: every mark the chart may hold, in rows below the axis, from `top`. Returns the
// height it took.
inline double draw_gantt_legend(std::ostringstream& out, double left, double top, double width) {
  struct entry {
    const char* text;
    std::string swatch;  // drawn at (0, 0)-(24, 12), translated into place
  };
  const auto box = [](const char* colour, const char* extra) {
    return std::string("<rect width=\"24\" height=\"12\" fill=\"") + colour + "\"" + extra + "/>";
  };
  const std::vector<entry> entries{
      {"best-effort", box("#0072B2", "")},
      {"advance reservation (outlined)",
       box("#E69F00", " stroke=\"#000000\" stroke-width=\"1.5\"")},
      {"immediate", box("#009E73", "")},
      {"suspended", "<path d=\"M12,0V12\" stroke=\"#000000\" stroke-width=\"3\"/>"},
      {"cancelled (preempted, requeued)",
       "<path d=\"M7,1L17,11M7,11L17,1\" stroke=\"#D55E00\" stroke-width=\"2\"/>"},
      {"migration",
       "<path d=\"M0,6H17\" stroke=\"#CC79A7\" stroke-width=\"1.5\" "
       "stroke-dasharray=\"4,2\"/><path d=\"M24,6L17,2.5V9.5Z\" fill=\"#CC79A7\"/>"},
      {"image transfer", "<rect y=\"8\" width=\"24\" height=\"4\" fill=\"#555555\"/>"},
      {"overheads: boot, image, migration, resume, suspension, shutdown (light)",
       box("#0072B2", " fill-opacity=\"0.35\"")}};
  double x = left;
  double y = top;
  for (const entry& e : entries) {
    const double w = 32 + text_width(e.text, 12) + 18;
    if (x > left && x + w > left + width) {
      x = left;
      y += 20;
    }
    out << "<g class=\"legend-item\" transform=\"translate(" << px(x) << ' ' << px(y) << ")\">"
        << e.swatch << "<text x=\"30\" y=\"10\">" << e.text << "</text></g>\n";
    x += w;
  }
  return y - top + 20;
}

}  // namespace detail

/// The chart as a standalone SVG document. Throws leasehold::error naming the segment (and its
/// lease), migration or transfer that cannot be drawn: a node outside the chart, no node, a
/// span that ends before it begins or is not finite, a run outside its segment.
[[nodiscard]] inline std::string to_svg(const gantt_chart& chart) {
  detail::check_chart(chart);
  // The time range: from 0 (or earlier) to the last thing that ends.
  double t0 = 0;
  double t1 = 0;
  const auto include = [&](double begin, double end) {
    t0 = std::min(t0, begin);
    t1 = std::max(t1, end);
  };
  for (const gantt_segment& s : chart.segments) include(s.begin, s.end);
  for (const gantt_migration& m : chart.migrations) include(m.begin, m.end);
  for (const gantt_transfer& t : chart.transfers) include(t.begin, t.end);
  const axis_ticks ticks = time_ticks(t0, t1, std::max(2, static_cast<int>(chart.plot_width / 90)));

  // Rows of 20 px for small clusters, thinner for large ones (about 480 px in all, at least 2).
  const double nodes = static_cast<double>(chart.nodes);
  const double row = std::clamp(480 / nodes, 2.0, 20.0);
  const double left = 70;
  const double top = detail::heading_height(chart.title, chart.subtitle) + 8;
  const detail::gantt_layout g{left, top, chart.plot_width, row, ticks.lo, ticks.hi};
  const double plot_h = row * nodes;

  // The legend below the axis title; its height known before the document's size.
  std::ostringstream legend;
  const double legend_top = top + plot_h + 52;
  const double legend_h = detail::draw_gantt_legend(legend, left, legend_top, chart.plot_width);
  const double notes_top = legend_top + legend_h;
  const double width = std::max(left + chart.plot_width + 24,
                                detail::text_block_width(chart.title, chart.subtitle, chart.notes));
  const double height = notes_top + detail::notes_height(chart.notes);

  std::ostringstream out;
  detail::open_document(out, width, height);
  detail::write_heading(out, chart.title, chart.subtitle);
  using detail::px;
  // Time grid and h:mm labels.
  out << "<g class=\"time-axis\">\n";
  for (const double t : ticks.values) {
    const double x = g.x(t);
    out << "<line x1=\"" << px(x) << "\" y1=\"" << px(top) << "\" x2=\"" << px(x) << "\" y2=\""
        << px(top + plot_h) << "\" stroke=\"#dddddd\"/>\n"
        << "<text class=\"tick\" x=\"" << px(x) << "\" y=\"" << px(top + plot_h + 16)
        << "\" text-anchor=\"middle\">" << hours_minutes(t) << "</text>\n";
  }
  out << "<text class=\"x-title\" x=\"" << px(left + chart.plot_width / 2) << "\" y=\""
      << px(top + plot_h + 36) << "\" text-anchor=\"middle\">time (h:mm)</text>\n</g>\n";
  // Node rows: a line between rows tall enough to separate, a label every k-th row (k of 1, 2,
  // 5, 10, ... so that labels are at least 13 px apart).
  const auto every =
      static_cast<std::size_t>(std::lround(row >= 13 ? 1 : detail::nice_number(13 / row, false)));
  out << "<g class=\"node-axis\">\n";
  for (std::size_t n = 0; n < chart.nodes; ++n) {
    if (row >= 6 && n > 0)
      out << "<line x1=\"" << px(left) << "\" y1=\"" << px(g.y(n)) << "\" x2=\""
          << px(left + chart.plot_width) << "\" y2=\"" << px(g.y(n)) << "\" stroke=\"#eeeeee\"/>\n";
    if (n % every == 0)
      out << "<text class=\"node-label\" x=\"" << px(left - 6) << "\" y=\""
          << px(g.y(n) + std::min(row, 13.0) / 2 + 4) << "\" text-anchor=\"end\">" << n
          << "</text>\n";
  }
  out << "<text class=\"y-title\" transform=\"translate(14 " << px(top + plot_h / 2)
      << ") rotate(-90)\" text-anchor=\"middle\">node</text>\n</g>\n";
  // The segments, then the transfers over them (a transfer holds a node's link and disk, not
  // its CPUs, so another lease may be running there), then the migrations' arrows.
  for (const gantt_segment& s : chart.segments) detail::draw_segment(out, s, g);
  for (const gantt_transfer& t : chart.transfers) detail::draw_transfer(out, t, g);
  for (const gantt_migration& m : chart.migrations) detail::draw_migration(out, m, g);
  out << "<rect x=\"" << px(left) << "\" y=\"" << px(top) << "\" width=\"" << px(chart.plot_width)
      << "\" height=\"" << px(plot_h) << "\" fill=\"none\" stroke=\"#333333\"/>\n";
  out << legend.str();
  detail::write_notes(out, chart.notes, notes_top);
  out << "</svg>\n";
  return out.str();
}

}  // namespace leasehold::io
