// io::to_svg and its round ticks: tick values hand-computed from Heckbert's nice numbers,
// every series with its own marker, dash and colour, the legend right of the plotting area,
// titles escaped, and data that cannot be drawn rejected by name. The SVG documents are
// checked with xmllint and rendered with rsvg-convert by the svg.* ctests.

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <regex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <leasehold/io/svg_plot.hpp>

namespace svg_plot_test {

using namespace leasehold;

namespace {

std::vector<double> values_of(const io::axis_ticks& t) { return t.values; }

// Every match of `pattern`'s first group in `text`.
std::vector<std::string> all(const std::string& text, const std::string& pattern) {
  std::vector<std::string> found;
  const std::regex re(pattern);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it)
    found.push_back((*it)[1].str());
  return found;
}

io::plot_figure two_series() {
  io::plot_figure f;
  f.title = "A & B <test>";
  f.panels.push_back({.title = "panel",
                      .x = {.title = "load (%)"},
                      .y = {.title = "gain (%)"},
                      .series = {{.name = "first", .x = {0, 50, 100}, .y = {1, 2, 3}},
                                 {.name = "second", .x = {0, 50, 100}, .y = {-3, 0, 7.5}}}});
  return f;
}

}  // namespace

TEST_CASE("svg_plot: linear ticks are 1, 2 or 5 times a power of ten and cover the data") {
  // [0, 97]: range rounds up to 100, step 100 / 5 = 20.
  auto t = io::linear_ticks(0, 97);
  CHECK(values_of(t) == std::vector<double>{0, 20, 40, 60, 80, 100});
  CHECK(t.decimals == 0);
  // [0.13, 0.87]: range 1, step 0.2, widened to [0, 1].
  t = io::linear_ticks(0.13, 0.87);
  REQUIRE(t.values.size() == 6);
  CHECK(t.lo == 0);
  CHECK(t.hi == doctest::Approx(1.0));
  CHECK(t.values[3] == doctest::Approx(0.6));
  CHECK(t.decimals == 1);
  // [-12.3, 45.6]: range 57.9 rounds up to 100, step 20, widened to [-20, 60].
  t = io::linear_ticks(-12.3, 45.6);
  CHECK(values_of(t) == std::vector<double>{-20, 0, 20, 40, 60});
  // A single value gets a step around it.
  t = io::linear_ticks(5, 5);
  CHECK(t.lo <= 4.5);
  CHECK(t.hi >= 5.5);
  CHECK_THROWS_AS((void)io::linear_ticks(2, 1), error);
  CHECK_THROWS_AS((void)io::linear_ticks(0, std::nan("")), error);
}

TEST_CASE("svg_plot: logarithmic axes tick whole decades") {
  auto t = io::decade_ticks(0.3, 42);
  CHECK(values_of(t) == std::vector<double>{-1, 0, 1, 2});  // 0.1, 1, 10, 100
  t = io::decade_ticks(1, 1);
  CHECK(values_of(t) == std::vector<double>{0, 1});
  CHECK_THROWS_AS((void)io::decade_ticks(0, 10), error);
  CHECK(io::detail::decade_label(-2) == "0.01");
  CHECK(io::detail::decade_label(3) == "1000");
  CHECK(io::detail::decade_label(9) == "1e9");
}

TEST_CASE("svg_plot: series differ in marker, dash and colour, the legend is outside the data") {
  io::plot_figure f = two_series();
  for (int i = 0; i < 3; ++i)
    f.panels[0].series.push_back(
        {.name = "s" + std::to_string(i), .x = {0, 100}, .y = {0, double(i)}});
  const std::string svg = io::to_svg(f);
  // Five series: five different line colours and five different dash patterns (one solid).
  const auto strokes = all(svg, "<polyline fill=\"none\" stroke=\"(#[0-9A-F]{6})\"");
  CHECK(strokes.size() == 5);
  CHECK(std::set<std::string>(strokes.begin(), strokes.end()).size() == 5);
  const auto dashes = all(svg, "<polyline[^>]*?( stroke-dasharray=\"[0-9,]+\"|/>)");
  CHECK(std::set<std::string>(dashes.begin(), dashes.end()).size() == 5);
  // The plotting area and the legend: every legend entry starts right of the area.
  const auto area = all(svg, "<rect x=\"([0-9.]+)\" y=\"[0-9.]+\" width=\"[0-9.]+\"");
  const auto area_width = all(svg, "<rect x=\"[0-9.]+\" y=\"[0-9.]+\" width=\"([0-9.]+)\"");
  REQUIRE(area.size() == 1);
  const double right = std::stod(area[0]) + std::stod(area_width[0]);
  const auto legend_lines = all(svg,
                                "<line x1=\"([0-9.]+)\" y1=\"[0-9.]+\" x2=\"[0-9.]+\" "
                                "y2=\"[0-9.]+\" stroke=\"#[0-9A-F]{6}\"");
  REQUIRE(legend_lines.size() == 5);
  for (const auto& x : legend_lines) CHECK(std::stod(x) > right);
  // Titles are escaped, axis titles carry their units.
  CHECK(svg.find("A &amp; B &lt;test&gt;") != std::string::npos);
  CHECK(svg.find(">load (%)</text>") != std::string::npos);
  CHECK(svg.find(">gain (%)</text>") != std::string::npos);
  // Round y ticks around [-3, 7.5]: the range 10.5 rounds up to 20, 20 / 5 = 4 rounds to a
  // step of 5, so the axis runs from -5 to 10.
  for (const char* label : {">-5</text>", ">0</text>", ">5</text>", ">10</text>"})
    CHECK(svg.find(label) != std::string::npos);
  CHECK(svg.find(">-3</text>") == std::string::npos);
}

TEST_CASE("svg_plot: data that cannot be drawn is an error naming the series and the point") {
  io::plot_figure f = two_series();
  SUBCASE("NaN") {
    f.panels[0].series[1].y[2] = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_WITH_AS((void)io::to_svg(f),
                         "svg plot \"panel\": series \"second\" point 2 has y = nan", error);
  }
  SUBCASE("a value <= 0 on a logarithmic axis") {
    f.panels[0].x.scale = io::axis_scale::log10;
    CHECK_THROWS_WITH_AS((void)io::to_svg(f),
                         "svg plot \"panel\": series \"first\" point 0 has x = 0, which a "
                         "logarithmic axis cannot show",
                         error);
  }
  SUBCASE("x and y of different lengths") {
    f.panels[0].series[0].y.pop_back();
    CHECK_THROWS_WITH_AS((void)io::to_svg(f),
                         "svg plot \"panel\": series \"first\" has 3 x values but 2 y values",
                         error);
  }
  SUBCASE("no panel") {
    f.panels.clear();
    CHECK_THROWS_AS((void)io::to_svg(f), error);
  }
}

TEST_CASE("svg_plot: several panels in columns, notes below") {
  io::plot_figure f = two_series();
  f.panels.push_back(f.panels[0]);
  f.panels.push_back(f.panels[0]);
  f.columns = 2;
  f.notes = {"note one", "note two"};
  const std::string svg = io::to_svg(f);
  // Two columns of 560 px; two rows of 340 px below a 32 px title, 44 px of notes.
  CHECK(svg.find("width=\"1120.00\" height=\"756.00\"") != std::string::npos);
  CHECK(all(svg, "<g class=\"(panel)\">").size() == 3);
  CHECK(svg.find(">note two</text>") != std::string::npos);
}

TEST_CASE("svg_plot: the figure widens to fit a long title") {
  io::plot_figure f = two_series();
  f.title = std::string(200, 'w');
  const std::string svg = io::to_svg(f);
  // 200 glyphs at 15 px, 0.65 em each, 10 % more for bold, plus 24 px of margins: 2169 px.
  CHECK(svg.find("width=\"2169.00\"") != std::string::npos);
}

TEST_CASE("svg_plot: eight marker shapes, told apart without colour") {
  // Shape (path) and fill together: the hollow square (7) shares the square's path (1) but
  // not its fill.
  std::set<std::pair<std::string, bool>> markers;
  for (std::size_t m = 0; m < io::detail::marker_count; ++m)
    markers.insert({io::detail::marker_path(m, 0, 0), io::detail::marker_filled(m)});
  CHECK(markers.size() == io::detail::marker_count);
}

TEST_CASE("svg_plot: a long series name widens the panels, the legend stays inside the figure") {
  io::plot_figure f = two_series();
  f.panels[0].series[0].name = std::string(100, 'n');
  const std::string svg = io::to_svg(f);
  // The legend column (46 px + 100 glyphs of 7.8 px) may take 45 % of a panel:
  // 826 / 0.45 = 1835.56 px.
  CHECK(svg.find("width=\"1835.56\"") != std::string::npos);
}

}  // namespace svg_plot_test
