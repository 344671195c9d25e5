// Writes a figure that exercises every part of io::to_svg (several panels, a logarithmic axis,
// negative values, eight series, text that needs escaping, a single-point series) to the path
// given, so that ctest can check it with xmllint and render it with rsvg-convert.

#include <cmath>
#include <fstream>
#include <iostream>
#include <string>

#include <leasehold/io/svg_plot.hpp>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: svg_sample OUT.svg\n";
    return 2;
  }
  namespace io = leasehold::io;
  io::plot_figure figure{.title = "Sample <figure> & \"quotes\"",
                         .subtitle = "every feature of the writer, µs and % in titles",
                         .panels = {},
                         .columns = 2,
                         .notes = {"a note below the panels"}};
  io::plot_panel lines{.title = "eight series",
                       .x = {.title = "load increase (%)"},
                       .y = {.title = "gain (%)"},
                       .series = {}};
  for (int s = 0; s < 8; ++s) {
    io::plot_series series{
        .name = "series " + std::to_string(s) + " <" + std::to_string(s) + ">", .x = {}, .y = {}};
    for (int i = 0; i <= 5; ++i) {
      series.x.push_back(10.0 * i);
      series.y.push_back((s - 3) * 2.5 + std::sin(i + s) * 4);
    }
    lines.series.push_back(series);
  }
  figure.panels.push_back(lines);
  figure.panels.push_back(
      {.title = "logarithmic x",
       .x = {.title = "runtime per reservation (µs)", .scale = io::axis_scale::log10},
       .y = {.title = "success rate (%)", .min = 0, .max = 100},
       .series = {{.name = "one point", .x = {3.5}, .y = {42}},
                  {.name = "curve", .x = {0.2, 2, 20, 200}, .y = {90, 80, 70, 40}}}});
  figure.panels.push_back(
      {.title = "empty panel", .x = {.title = "x (s)"}, .y = {.title = "y (s)"}, .series = {}});
  std::ofstream out(argv[1]);
  out << io::to_svg(figure);
  out.close();
  if (!out) {
    std::cerr << "svg_sample: cannot write " << argv[1] << '\n';
    return 1;
  }
}
