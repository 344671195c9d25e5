#pragma once

/// \file
/// Where file_error was declared before it moved to core/file_error.hpp (every reader throws it,
/// the trace readers below io/ included): kept so that existing includes and the name
/// leasehold::io::file_error still work. New code includes core/file_error.hpp.

#include "leasehold/core/file_error.hpp"

namespace leasehold::io {
using leasehold::file_error;
}  // namespace leasehold::io
