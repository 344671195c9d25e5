#pragma once

/// \file
/// Reading an input file whole, plain or gzip-compressed, in-process.
///
/// Needs Boost.Iostreams and zlib at link time: link the CMake target `leasehold::iostreams`
/// (Debian: libboost-iostreams-dev, zlib1g-dev). The rest of leasehold stays header-only with
/// no compiled dependency; only the code that includes this header pays for it.
///
/// Why in-process: the examples used to pipe traces through `gzip -dc`, which needs a shell and
/// a gzip binary, quotes the path into a command line, and reports a corrupt file only as a
/// non-zero exit status. Boost's gzip_decompressor (RFC 1952 over zlib's inflate) checks the
/// header, the deflate stream and the CRC-32 trailer, and tells a truncated file from a good one.
///
/// Compression is recognised by the gzip magic bytes (1f 8b, RFC 1952 §2.3.1), not by the file
/// name: a plain log named `.swf` and a compressed one named `.swf.gz` are both read, and a
/// compressed file without the suffix is not mistaken for text.

#include <array>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <ios>
#include <iterator>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>

#include <boost/iostreams/copy.hpp>
#include <boost/iostreams/device/array.hpp>
#include <boost/iostreams/device/back_inserter.hpp>
#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filtering_stream.hpp>

#include "leasehold/core/file_error.hpp"

namespace leasehold::workload {

/// True when `bytes` begins with the gzip magic number (RFC 1952 §2.3.1).
[[nodiscard]] inline bool is_gzip(const std::string& bytes) noexcept {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

namespace detail {

/// The raw bytes of a regular file; file_error naming it when it is missing, not a regular
/// file, or unreadable.
inline std::string read_bytes(const std::filesystem::path& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) throw file_error(path, 0, "no such file");
  if (!std::filesystem::is_regular_file(status)) throw file_error(path, 0, "not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw file_error(path, 0, "cannot be opened for reading");
  std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw file_error(path, 0, "read error");
  return bytes;
}

/// Every member of a gzip file, decompressed (RFC 1952 allows several members one after
/// another; gzip -dc concatenates them, and so does this).
inline std::string gunzip(const std::string& compressed, const std::filesystem::path& path) {
  std::string text;
  text.reserve(compressed.size() * 4);
  try {
    // 64 KiB buffers instead of Boost's 4 KiB default: fewer calls into zlib per megabyte,
    // which measured markedly faster on the Blue Horizon log.
    constexpr std::streamsize buffer = 1 << 16;
    boost::iostreams::filtering_istreambuf chain;
    chain.push(boost::iostreams::gzip_decompressor(boost::iostreams::zlib::default_window_bits,
                                                   static_cast<std::size_t>(buffer)),
               buffer);
    chain.push(boost::iostreams::array_source(compressed.data(), compressed.size()), buffer);
    boost::iostreams::copy(chain, boost::iostreams::back_inserter(text));
  } catch (const boost::iostreams::gzip_error& e) {
    // gzip_error carries zlib's code for a broken deflate stream, else the gzip-level fault.
    namespace gzip = boost::iostreams::gzip;
    static constexpr std::pair<int, const char*> gzip_faults[] = {
        {gzip::bad_header, "bad gzip header"},
        {gzip::bad_footer, "truncated gzip file (the trailer is missing)"},
        {gzip::bad_crc, "gzip CRC-32 mismatch (the data is corrupt)"},
        {gzip::bad_length, "gzip length mismatch (the data is corrupt)"},
        {gzip::bad_method, "unknown gzip compression method"}};
    const char* what = "corrupt gzip data";
    for (const auto& [code, message] : gzip_faults)
      if (e.error() == code) what = message;
    if (e.error() == gzip::zlib_error)
      // zlib's Z_BUF_ERROR: inflate wanted more input than the file holds.
      what = e.zlib_error_code() == boost::iostreams::zlib::buf_error
                 ? "truncated gzip file (the compressed data ends early)"
                 : "corrupt gzip data (zlib cannot inflate it)";
    throw file_error(path, 0, what);
  } catch (const std::ios_base::failure& e) {
    throw file_error(path, 0, std::string("corrupt or truncated gzip data: ") + e.what());
  }
  return text;
}

}  // namespace detail

/// The whole content of the file at `path`, decompressed in-process when it is gzip data.
/// Throws file_error naming the path when the file is missing, unreadable, or a corrupt or
/// truncated gzip file.
[[nodiscard]] inline std::string read_text_file(const std::filesystem::path& path) {
  std::string bytes = detail::read_bytes(path);
  if (!is_gzip(bytes)) return bytes;
  return detail::gunzip(bytes, path);
}

}  // namespace leasehold::workload
