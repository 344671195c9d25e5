#pragma once

/// \file
/// Where the gzip-aware file reader was before trace reading moved to one place,
/// sim/workload/input_file.hpp: kept so that existing includes and the names
/// leasehold::io::read_text_file and leasehold::io::is_gzip still work. New code includes
/// sim/workload/input_file.hpp. Needs Boost.Iostreams at link time (`leasehold::iostreams`).

#include "leasehold/io/file_error.hpp"
#include "leasehold/sim/workload/input_file.hpp"

namespace leasehold::io {
using workload::is_gzip;
using workload::read_text_file;
}  // namespace leasehold::io
