// A user of the io layer's file readers, linked with leasehold::iostreams (Boost.Iostreams for
// the gzip filter): reads a plain SWF log it writes itself, and gets a file_error naming a
// missing one.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <leasehold/sim/workload/swf_file.hpp>

int main() {
  const auto path = std::filesystem::temp_directory_path() / "leasehold_swf_consumer.swf";
  std::ofstream(path) << "; MaxProcs: 8\n1 0 0 60 4 -1 -1 4 120 -1 1 1 1 1 1 -1 -1 -1\n";
  const auto trace = leasehold::workload::read_swf_file(path);
  std::filesystem::remove(path);
  bool named = false;
  try {
    (void)leasehold::workload::read_swf_file(path);
  } catch (const leasehold::file_error& e) {
    named = e.path() == path;
  }
  std::cout << trace.log.records.size() << " record(s); missing file named: " << named << '\n';
  return trace.log.records.size() == 1 && named ? EXIT_SUCCESS : EXIT_FAILURE;
}
