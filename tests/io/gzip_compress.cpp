// The tests' gzip compressor (temp_files.hpp), alone in its translation unit: at -O3, GCC 12
// inlines Boost.Iostreams' gzip_compressor footer writes into std::string and then warns about
// impossible sizes on paths it cannot prove dead (-Wrestrict, -Warray-bounds,
// -Wstringop-overflow: false positives inside Boost and libstdc++, not in our code). The
// warnings are turned off for this file only (tests/CMakeLists.txt), so that every other test
// file keeps them as errors and the release preset's full build passes.

#include <string>

#include <boost/iostreams/copy.hpp>
#include <boost/iostreams/device/array.hpp>
#include <boost/iostreams/device/back_inserter.hpp>
#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filtering_stream.hpp>

#include "io/temp_files.hpp"

namespace leasehold::test {

std::string gzip(const std::string& text) {
  std::string out;
  boost::iostreams::filtering_istreambuf chain;
  chain.push(boost::iostreams::gzip_compressor());
  chain.push(boost::iostreams::array_source(text.data(), text.size()));
  boost::iostreams::copy(chain, boost::iostreams::back_inserter(out));
  return out;
}

}  // namespace leasehold::test
