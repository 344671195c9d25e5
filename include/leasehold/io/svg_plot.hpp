#pragma once

/// \file
/// A small SVG plot writer (io::plot_figure, io::write_svg): line plots with a legend beside
/// the data, round ticks and greyscale-safe series; see below.

// A small SVG plot writer for the figures of the examples: line plots of a few series, one or
// more panels per figure, drawn the way a paper would print them.
//
// - The legend sits to the right of the plotting area, never over the data.
// - Series are told apart by marker shape and dash pattern as well as by colour, so a figure
//   stays readable in greyscale and for colour-blind readers. The colours are Okabe & Ito's
//   colour-blind-safe palette ("Color Universal Design", 2008).
// - Every axis has a title, which should carry its unit ("runtime per reservation (µs)").
// - Tick values are round: 1, 2 or 5 times a power of ten (Heckbert, "Nice numbers for graph
//   labels", Graphics Gems, 1990), or whole decades on a logarithmic axis, and the axis range
//   is widened to the ticks around the data.
//
// Only the standard library: no link dependency. Data that cannot be drawn (x and y of
// different lengths, a NaN or infinite value, a value <= 0 on a logarithmic axis) is a
// leasehold::error naming the series and the point.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "leasehold/core/error.hpp"

namespace leasehold::io {

/// How an axis maps values to positions.
enum class axis_scale { linear, log10 };

/// One axis: its title (with the unit), its scale, and optionally limits that the data may
/// not shrink (the axis still widens to fit every point and to round ticks).
struct plot_axis {
  std::string title;  ///< e.g. "load increase (%)"
  /// Linear or logarithmic.
  axis_scale scale = axis_scale::linear;
  std::optional<double> min{};  ///< include this value in the range
  std::optional<double> max{};  ///< include this value in the range
};

/// One series: points joined in the order given, each drawn with the series' marker.
struct plot_series {
  std::string name;  ///< the legend entry
  /// The points' x values.
  std::vector<double> x;
  /// The points' y values, as many as x.
  std::vector<double> y;
};

/// One panel: axes, series and a title.
struct plot_panel {
  /// Printed above the panel.
  std::string title;
  /// The horizontal axis.
  plot_axis x;
  /// The vertical axis.
  plot_axis y;
  /// The series drawn, in legend order.
  std::vector<plot_series> series;
};

/// A figure: one or more panels laid out in `columns` columns, a title, a subtitle and notes
/// printed below the panels (e.g. the workload and the command that made it).
struct plot_figure {
  /// Printed at the top.
  std::string title;
  /// Printed below the title.
  std::string subtitle;
  /// The panels, row by row.
  std::vector<plot_panel> panels;
  /// How many panels a row holds.
  std::size_t columns = 1;
  /// Lines printed below the panels.
  std::vector<std::string> notes;
  double panel_width = 560;   ///< px, legend included
  double panel_height = 340;  ///< px
};

/// Round tick values for an axis holding [lo, hi].
struct axis_ticks {
  double lo;  ///< the axis range, widened to the ticks
  /// The upper end of that range.
  double hi;
  std::vector<double> values;  ///< from lo to hi
  int decimals;                ///< digits after the point that the labels need
};

namespace detail {

// 1, 2, 5 or 10 times a power of ten, near `x` (Heckbert 1990): rounded to the nearest of them
// when `round`, else the smallest not below x.
inline double nice_number(double x, bool round) {
  const double exponent = std::floor(std::log10(x));
  const double fraction = x / std::pow(10.0, exponent);
  double nice = 10;
  if (round)
    nice = fraction < 1.5 ? 1 : fraction < 3 ? 2 : fraction < 7 ? 5 : 10;
  else
    nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
  return nice * std::pow(10.0, exponent);
}

// Fixed-point text with `decimals` digits; "-0" prints as "0".
inline std::string format_fixed(double value, int decimals) {
  if (std::abs(value) < 0.5 * std::pow(10.0, -decimals)) value = 0;
  std::array<char, 64> buffer{};
  const int n = std::snprintf(buffer.data(), buffer.size(), "%.*f", decimals, value);
  return std::string(buffer.data(), static_cast<std::size_t>(std::max(n, 0)));
}

// A coordinate in the SVG: two decimals are a hundredth of a pixel.
inline std::string px(double value) { return format_fixed(value, 2); }

inline std::string xml_escape(std::string_view text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        escaped += "&amp;";
        break;
      case '<':
        escaped += "&lt;";
        break;
      case '>':
        escaped += "&gt;";
        break;
      case '"':
        escaped += "&quot;";
        break;
      case '\'':
        escaped += "&apos;";
        break;
      default:
        escaped += c;
    }
  }
  return escaped;
}

// The label of a decade tick 10^k: plain decimals for 10^-4 .. 10^6, else "1e<k>".
inline std::string decade_label(double exponent) {
  const int k = static_cast<int>(std::lround(exponent));
  if (k >= 0 && k <= 6) return format_fixed(std::pow(10.0, k), 0);
  if (k < 0 && k >= -4) return format_fixed(std::pow(10.0, k), -k);
  return "1e" + std::to_string(k);
}

// Okabe & Ito's palette without yellow (too pale on white), black last.
inline constexpr std::array<const char*, 7> colours = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                                       "#E69F00", "#56B4E9", "#000000"};
// Dash patterns (empty = solid); 5 is coprime with 7 colours and 8 markers, so the first 280
// series all differ in their combination.
inline constexpr std::array<const char*, 5> dashes = {"", "7,3", "2,2", "8,3,2,3", "12,4"};
inline constexpr std::size_t marker_count = 8;

// The path of marker `m` centred at (x, y), about 8 px across.
inline std::string marker_path(std::size_t m, double x, double y) {
  const auto p = [](double v) { return px(v); };
  switch (m % marker_count) {
    case 0:  // circle
      return "M" + p(x - 4) + "," + p(y) + "a4,4 0 1,0 8,0a4,4 0 1,0 -8,0Z";
    case 1:  // square
      return "M" + p(x - 3.5) + "," + p(y - 3.5) + "h7v7h-7Z";
    case 2:  // triangle up
      return "M" + p(x) + "," + p(y - 4.5) + "L" + p(x + 4.5) + "," + p(y + 3.5) + "H" +
             p(x - 4.5) + "Z";
    case 3:  // diamond
      return "M" + p(x) + "," + p(y - 5) + "L" + p(x + 4.5) + "," + p(y) + "L" + p(x) + "," +
             p(y + 5) + "L" + p(x - 4.5) + "," + p(y) + "Z";
    case 4:  // triangle down
      return "M" + p(x) + "," + p(y + 4.5) + "L" + p(x + 4.5) + "," + p(y - 3.5) + "H" +
             p(x - 4.5) + "Z";
    case 5:  // plus
      return "M" + p(x - 4.5) + "," + p(y) + "H" + p(x + 4.5) + "M" + p(x) + "," + p(y - 4.5) +
             "V" + p(y + 4.5);
    case 6:  // cross
      return "M" + p(x - 3.5) + "," + p(y - 3.5) + "L" + p(x + 3.5) + "," + p(y + 3.5) + "M" +
             p(x - 3.5) + "," + p(y + 3.5) + "L" + p(x + 3.5) + "," + p(y - 3.5);
    default:  // hollow square (drawn with a white fill, see marker_filled)
      return "M" + p(x - 3.5) + "," + p(y - 3.5) + "h7v7h-7Z";
  }
}

// Markers 5 and 6 (plus, cross) are strokes; 7 is hollow; the others are filled.
inline bool marker_filled(std::size_t m) { return m % marker_count < 5; }

// An approximate text width for the layout (sans-serif, average glyph ~0.65 em in DejaVu Sans).
inline double text_width(std::string_view text, double font_size) {
  std::size_t glyphs = 0;
  for (const char c : text)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++glyphs;  // UTF-8 lead bytes only
  return 0.65 * font_size * static_cast<double>(glyphs);
}

// The parts every figure of io/ shares (plots here, Gantt charts in gantt_chart.hpp), so that
// they are one writer: the document's opening (size, font, white background), the heading
// (a bold title and a grey subtitle at the top left) and the notes below the drawing.
inline void open_document(std::ostringstream& out, double width, double height) {
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << px(width) << "\" height=\""
      << px(height) << "\" viewBox=\"0 0 " << px(width) << ' ' << px(height)
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
}

// The height the heading takes, a margin below it included.
inline double heading_height(std::string_view title, std::string_view subtitle) {
  return (title.empty() ? 0 : 24) + (subtitle.empty() ? 0 : 18) + 8;
}

inline void write_heading(std::ostringstream& out, std::string_view title,
                          std::string_view subtitle) {
  double y = 0;
  if (!title.empty()) {
    out << "<text x=\"12\" y=\"20\" font-size=\"15\" font-weight=\"bold\">" << xml_escape(title)
        << "</text>\n";
    y = 24;
  }
  if (!subtitle.empty())
    out << "<text x=\"12\" y=\"" << px(y + 14) << "\" fill=\"#444444\">" << xml_escape(subtitle)
        << "</text>\n";
}

inline double notes_height(const std::vector<std::string>& notes) {
  return 18 * static_cast<double>(notes.size()) + 8;
}

// The notes, one line each, from `top` down.
inline void write_notes(std::ostringstream& out, const std::vector<std::string>& notes,
                        double top) {
  for (std::size_t n = 0; n < notes.size(); ++n)
    out << "<text x=\"12\" y=\"" << px(top + 14 + 18 * static_cast<double>(n))
        << "\" fill=\"#444444\">" << xml_escape(notes[n]) << "</text>\n";
}

// The width the heading and the notes need, so that no line of text is cut off.
inline double text_block_width(std::string_view title, std::string_view subtitle,
                               const std::vector<std::string>& notes) {
  double width = 24 + 1.1 * text_width(title, 15);  // bold
  width = std::max(width, 24 + text_width(subtitle, 12));
  for (const std::string& note : notes) width = std::max(width, 24 + text_width(note, 12));
  return width;
}

}  // namespace detail

/// Round ticks for a linear axis holding [lo, hi], about `target` of them (Heckbert 1990).
/// The range is widened to whole steps; an empty range (lo == hi) becomes one step around it.
[[nodiscard]] inline axis_ticks linear_ticks(double lo, double hi, int target = 6) {
  if (!(lo <= hi) || !std::isfinite(lo) || !std::isfinite(hi))
    throw error("linear_ticks: bad range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  if (lo == hi) {
    const double pad = lo == 0 ? 1 : std::abs(lo) * 0.1;
    lo -= pad;
    hi += pad;
  }
  const double range = detail::nice_number(hi - lo, false);
  const double step = detail::nice_number(range / std::max(1, target - 1), true);
  axis_ticks ticks{std::floor(lo / step) * step, std::ceil(hi / step) * step, {}, 0};
  ticks.decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9)));
  const auto count = static_cast<long>(std::lround((ticks.hi - ticks.lo) / step));
  for (long i = 0; i <= count; ++i)
    ticks.values.push_back(ticks.lo + static_cast<double>(i) * step);
  return ticks;
}

/// Decade ticks for a logarithmic axis holding [lo, hi] (both > 0): the range is widened to
/// whole decades, at least one. `lo`, `hi` and the values of the result are exponents
/// (log10 of the data), so that the layout stays linear.
[[nodiscard]] inline axis_ticks decade_ticks(double lo, double hi) {
  if (!(lo > 0) || !(lo <= hi) || !std::isfinite(hi))
    throw error("decade_ticks: bad range [" + std::to_string(lo) + ", " + std::to_string(hi) +
                "] (a logarithmic axis needs values > 0)");
  axis_ticks ticks{std::floor(std::log10(lo) + 1e-9), std::ceil(std::log10(hi) - 1e-9), {}, 0};
  if (ticks.hi <= ticks.lo) ticks.hi = ticks.lo + 1;
  for (double k = ticks.lo; k <= ticks.hi + 1e-9; k += 1) ticks.values.push_back(k);
  return ticks;
}

namespace detail {

struct panel_layout {
  double left, top, width, height;  // the plotting area
  double legend_x;                  // where the legend column starts
};

// The ticks of one axis of a panel, after checking every value on it.
inline axis_ticks ticks_for(const plot_panel& panel, const plot_axis& axis, bool is_x) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  const char* name = is_x ? "x" : "y";
  for (const plot_series& s : panel.series) {
    const std::vector<double>& values = is_x ? s.x : s.y;
    for (std::size_t i = 0; i < values.size(); ++i) {
      const double v = values[i];
      if (!std::isfinite(v) || (axis.scale == axis_scale::log10 && v <= 0)) {
        std::ostringstream message;
        message << "svg plot \"" << panel.title << "\": series \"" << s.name << "\" point " << i
                << " has " << name << " = " << v
                << (std::isfinite(v) ? ", which a logarithmic axis cannot show" : "");
        throw error(message.str());
      }
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  for (const auto& limit : {axis.min, axis.max})
    if (limit) {
      lo = std::min(lo, *limit);
      hi = std::max(hi, *limit);
    }
  if (lo > hi) {  // no data and no limits
    lo = axis.scale == axis_scale::log10 ? 1 : 0;
    hi = axis.scale == axis_scale::log10 ? 10 : 1;
  }
  return axis.scale == axis_scale::log10 ? decade_ticks(lo, hi) : linear_ticks(lo, hi);
}

inline void check_series(const plot_panel& panel) {
  for (const plot_series& s : panel.series)
    if (s.x.size() != s.y.size())
      throw error("svg plot \"" + panel.title + "\": series \"" + s.name + "\" has " +
                  std::to_string(s.x.size()) + " x values but " + std::to_string(s.y.size()) +
                  " y values");
}

inline void draw_panel(std::ostringstream& out, const plot_panel& panel, double x0, double y0,
                       double width, double height) {
  check_series(panel);
  const axis_ticks xt = ticks_for(panel, panel.x, true);
  const axis_ticks yt = ticks_for(panel, panel.y, false);
  constexpr double font = 12;
  double legend_width = 0;
  for (const plot_series& s : panel.series)
    legend_width = std::max(legend_width, 34 + text_width(s.name, font));
  legend_width = std::min(legend_width + 12, width * 0.45);
  double tick_label_width = 0;
  for (const double v : yt.values)
    tick_label_width = std::max(tick_label_width, text_width(panel.y.scale == axis_scale::log10
                                                                 ? decade_label(v)
                                                                 : format_fixed(v, yt.decimals),
                                                             font));
  const double left = x0 + 30 + tick_label_width;
  const double top = y0 + (panel.title.empty() ? 12 : 30);
  const double plot_w = width - (left - x0) - legend_width - 10;
  const double plot_h = height - (top - y0) - 48;
  const auto to_x = [&](double v) {
    const double u = panel.x.scale == axis_scale::log10 ? std::log10(v) : v;
    return left + (u - xt.lo) / (xt.hi - xt.lo) * plot_w;
  };
  const auto to_y = [&](double v) {
    const double u = panel.y.scale == axis_scale::log10 ? std::log10(v) : v;
    return top + (1 - (u - yt.lo) / (yt.hi - yt.lo)) * plot_h;
  };

  out << "<g class=\"panel\">\n";
  if (!panel.title.empty())
    out << "<text x=\"" << px(left + plot_w / 2) << "\" y=\"" << px(y0 + 18)
        << "\" text-anchor=\"middle\" font-weight=\"bold\">" << xml_escape(panel.title)
        << "</text>\n";
  // Grid lines and tick labels; the tick positions are in axis units (exponents on a log axis).
  for (const double v : xt.values) {
    const double x = left + (v - xt.lo) / (xt.hi - xt.lo) * plot_w;
    out << "<line x1=\"" << px(x) << "\" y1=\"" << px(top) << "\" x2=\"" << px(x) << "\" y2=\""
        << px(top + plot_h) << "\" stroke=\"#dddddd\"/>\n"
        << "<text x=\"" << px(x) << "\" y=\"" << px(top + plot_h + 16)
        << "\" text-anchor=\"middle\">"
        << (panel.x.scale == axis_scale::log10 ? decade_label(v) : format_fixed(v, xt.decimals))
        << "</text>\n";
  }
  for (const double v : yt.values) {
    const double y = top + (1 - (v - yt.lo) / (yt.hi - yt.lo)) * plot_h;
    out << "<line x1=\"" << px(left) << "\" y1=\"" << px(y) << "\" x2=\"" << px(left + plot_w)
        << "\" y2=\"" << px(y) << "\" stroke=\"#dddddd\"/>\n"
        << "<text x=\"" << px(left - 6) << "\" y=\"" << px(y + 4) << "\" text-anchor=\"end\">"
        << (panel.y.scale == axis_scale::log10 ? decade_label(v) : format_fixed(v, yt.decimals))
        << "</text>\n";
  }
  out << "<rect x=\"" << px(left) << "\" y=\"" << px(top) << "\" width=\"" << px(plot_w)
      << "\" height=\"" << px(plot_h) << "\" fill=\"none\" stroke=\"#333333\"/>\n"
      << "<text class=\"x-title\" x=\"" << px(left + plot_w / 2) << "\" y=\""
      << px(top + plot_h + 36) << "\" text-anchor=\"middle\">" << xml_escape(panel.x.title)
      << "</text>\n"
      << "<text class=\"y-title\" transform=\"translate(" << px(x0 + 14) << ' '
      << px(top + plot_h / 2) << ") rotate(-90)\" text-anchor=\"middle\">"
      << xml_escape(panel.y.title) << "</text>\n";

  // The series, then the legend to the right of the plotting area.
  const double legend_x = left + plot_w + 14;
  for (std::size_t s = 0; s < panel.series.size(); ++s) {
    const plot_series& series = panel.series[s];
    const char* colour = colours[s % colours.size()];
    const char* dash = dashes[s % dashes.size()];
    const std::string dash_attribute =
        *dash == '\0' ? std::string() : std::string(" stroke-dasharray=\"") + dash + "\"";
    const std::string marker_style =
        marker_filled(s)
            ? std::string(" fill=\"") + colour + "\" stroke=\"" + colour + "\""
            : std::string(" fill=\"white\" stroke=\"") + colour + "\" stroke-width=\"1.5\"";
    out << "<g class=\"series\">\n";
    if (series.x.size() > 1) {
      out << "<polyline fill=\"none\" stroke=\"" << colour << "\" stroke-width=\"1.5\""
          << dash_attribute << " points=\"";
      for (std::size_t i = 0; i < series.x.size(); ++i)
        out << (i == 0 ? "" : " ") << px(to_x(series.x[i])) << ',' << px(to_y(series.y[i]));
      out << "\"/>\n";
    }
    for (std::size_t i = 0; i < series.x.size(); ++i)
      out << "<path d=\"" << marker_path(s, to_x(series.x[i]), to_y(series.y[i])) << '"'
          << marker_style << "/>\n";
    const double ly = top + 8 + 18 * static_cast<double>(s);
    out << "<line x1=\"" << px(legend_x) << "\" y1=\"" << px(ly) << "\" x2=\"" << px(legend_x + 26)
        << "\" y2=\"" << px(ly) << "\" stroke=\"" << colour << "\" stroke-width=\"1.5\""
        << dash_attribute << "/>\n"
        << "<path d=\"" << marker_path(s, legend_x + 13, ly) << '"' << marker_style << "/>\n"
        << "<text x=\"" << px(legend_x + 32) << "\" y=\"" << px(ly + 4) << "\">"
        << xml_escape(series.name) << "</text>\n</g>\n";
  }
  out << "</g>\n";
}

}  // namespace detail

/// The figure as a standalone SVG document. Throws leasehold::error naming the panel, the
/// series and the point when some data cannot be drawn, or when the figure has no panel.
[[nodiscard]] inline std::string to_svg(const plot_figure& figure) {
  if (figure.panels.empty()) throw error("svg plot \"" + figure.title + "\": no panel to draw");
  if (figure.columns == 0) throw error("svg plot \"" + figure.title + "\": columns is 0");
  if (!(figure.panel_width >= 200 && figure.panel_height >= 150))
    throw error("svg plot \"" + figure.title + "\": panels of " +
                std::to_string(figure.panel_width) + " x " + std::to_string(figure.panel_height) +
                " px are too small (at least 200 x 150)");
  // Panels wide enough that the longest legend entry fits in the legend column (at most 45 %
  // of a panel, see draw_panel): a long series name widens the figure instead of running over
  // the next panel or off the page.
  double panel_width = figure.panel_width;
  for (const plot_panel& panel : figure.panels)
    for (const plot_series& series : panel.series)
      panel_width = std::max(panel_width, (46 + detail::text_width(series.name, 12)) / 0.45);
  const std::size_t columns = std::min(figure.columns, figure.panels.size());
  const std::size_t rows = (figure.panels.size() + columns - 1) / columns;
  const double header = detail::heading_height(figure.title, figure.subtitle);
  const double footer = detail::notes_height(figure.notes);
  // Wide enough for the panels and for every line of text (titles are never cut off).
  const double width =
      std::max(panel_width * static_cast<double>(columns),
               detail::text_block_width(figure.title, figure.subtitle, figure.notes));
  const double height = header + figure.panel_height * static_cast<double>(rows) + footer;

  std::ostringstream out;
  detail::open_document(out, width, height);
  detail::write_heading(out, figure.title, figure.subtitle);
  for (std::size_t p = 0; p < figure.panels.size(); ++p)
    detail::draw_panel(out, figure.panels[p], panel_width * static_cast<double>(p % columns),
                       header + figure.panel_height * static_cast<double>(p / columns), panel_width,
                       figure.panel_height);
  detail::write_notes(out, figure.notes, header + figure.panel_height * static_cast<double>(rows));
  out << "</svg>\n";
  return out.str();
}

}  // namespace leasehold::io
