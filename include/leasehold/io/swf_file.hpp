#pragma once

/// \file
/// Where the SWF file reader was before trace reading moved to one place,
/// sim/workload/swf_file.hpp: kept so that existing includes and the names
/// leasehold::io::read_swf_file, io::swf_file and io::skipped_line still work. New code
/// includes sim/workload/swf_file.hpp. Needs Boost.Iostreams at link time
/// (`leasehold::iostreams`).

#include "leasehold/io/input_file.hpp"
#include "leasehold/sim/workload/swf_file.hpp"

namespace leasehold::io {
using workload::read_swf_file;
using workload::skipped_line;
using workload::swf_file;
}  // namespace leasehold::io
