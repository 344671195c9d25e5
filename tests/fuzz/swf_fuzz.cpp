// libFuzzer harness: the SWF reader on arbitrary text, with both error policies. It must
// return records or throw a leasehold::error (a parse_error with a line number under
// on_error::stop); anything else, or a sanitizer report, is a finding. What it returns must
// convert to best-effort leases without crashing, and what it writes must read back.

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include <leasehold/sim/workload/swf.hpp>
#include <leasehold/sim/workload/swf_leases.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace leasehold;
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const auto policy : {swf::on_error::stop, swf::on_error::skip}) {
    try {
      std::istringstream in(text);
      const swf::log log = swf::read(in, policy);
      for (const auto& r : log.records) {
        try {
          (void)workload::to_best_effort<std::int64_t>(r);
        } catch (const error&) {
        }
      }
      std::ostringstream out;
      swf::write(out, log);
      std::istringstream again(out.str());
      const swf::log back = swf::read(again);
      if (back.records.size() != log.records.size()) __builtin_trap();
    } catch (const error&) {
    }
  }
  return 0;
}
