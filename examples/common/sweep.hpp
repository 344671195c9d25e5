// Helpers for splitting an example's sweep over processes (not part of the library): the
// `--shard I/N` option (also taken from a Slurm job array's environment) and the exact text
// form of the numbers a shard hands to the merge step.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include <CLI/CLI.hpp>

namespace examples {

// One share of a sweep: runs whose index is `index` modulo `count`. Chosen by the run's
// index alone, so that the same run lands in the same shard whatever the thread count.
struct shard {
  std::size_t index = 0;
  std::size_t count = 1;
  [[nodiscard]] bool owns(std::size_t run) const { return run % count == index; }
};

// Parses "I/N" with 0 <= I < N. Returns an empty string on success, else the reason.
inline std::string parse_shard(const std::string& text, shard& out) {
  const auto slash = text.find('/');
  auto number = [](const std::string& digits, std::size_t& value) {
    if (digits.empty()) return false;
    const auto* end = digits.data() + digits.size();
    const auto [ptr, ec] = std::from_chars(digits.data(), end, value);
    return ec == std::errc{} && ptr == end;
  };
  shard s;
  if (slash == std::string::npos || !number(text.substr(0, slash), s.index) ||
      !number(text.substr(slash + 1), s.count))
    return "Value " + text + " is not of the form I/N (two non-negative integers)";
  if (s.count == 0 || s.index >= s.count) return "Value " + text + " needs 0 <= I < N";
  out = s;
  return {};
}

// A CLI11 validator for --shard: the message quotes the value.
inline CLI::Validator shard_form() {
  return CLI::Validator(
      [](std::string& input) {
        shard ignored;
        return parse_shard(input, ignored);
      },
      "I/N");
}

// The shard of a Slurm job array task (sbatch --array=A-B): SLURM_ARRAY_TASK_ID minus
// SLURM_ARRAY_TASK_MIN out of SLURM_ARRAY_TASK_COUNT, so that --array=1-3 works like 0-2.
// Returns std::nullopt when not in a job array; exits the program with 2 (as a bad option
// does) when the variables make no shard, naming them and their values.
inline std::optional<shard> slurm_array_shard() {
  const char* id = std::getenv("SLURM_ARRAY_TASK_ID");
  const char* count = std::getenv("SLURM_ARRAY_TASK_COUNT");
  if (id == nullptr || count == nullptr) return std::nullopt;
  const char* min = std::getenv("SLURM_ARRAY_TASK_MIN");
  const std::string described = std::string("SLURM_ARRAY_TASK_ID=") + id +
                                " SLURM_ARRAY_TASK_MIN=" + (min ? min : "(unset)") +
                                " SLURM_ARRAY_TASK_COUNT=" + count;
  std::size_t task = 0;
  std::size_t first = 0;
  shard s;
  const std::string id_text = id;
  const std::string min_text = min ? min : "0";
  const auto parsed = [](const std::string& digits, std::size_t& value) {
    const auto* end = digits.data() + digits.size();
    const auto [ptr, ec] = std::from_chars(digits.data(), end, value);
    return !digits.empty() && ec == std::errc{} && ptr == end;
  };
  if (!parsed(id_text, task) || !parsed(min_text, first) || task < first ||
      !parse_shard(std::to_string(task - first) + "/" + count, s).empty()) {
    std::cerr << "error: the Slurm job array makes no shard I/N with 0 <= I < N: " << described
              << '\n';
    std::exit(2);
  }
  return s;
}

// Doubles are handed from a shard to the merge step as hexadecimal floating point, which
// reads back to the same bits (the merged tables must equal a single process's byte for byte).
inline std::string exact(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%a", value);
  return buffer;
}

inline bool read_exact(const std::string& text, double& value) {
  if (text.empty()) return false;
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

// ---- Shard files ------------------------------------------------------------------------
//
// Every sharded example writes one text file per shard, `shard-I-of-N.txt` in its shard
// directory: a first line naming the example and the format, `shard I N`, the lines that
// describe the sweep (the same in every shard of one sweep), one line per run the shard owns
// (`run <index> ...`, every number exact) and an `end` line, which a file cut short (a killed
// job) lacks. The merge step reads them all with shard_reader and refuses anything else.

inline std::filesystem::path shard_path(const std::filesystem::path& dir, const shard& s) {
  return dir / ("shard-" + std::to_string(s.index) + "-of-" + std::to_string(s.count) + ".txt");
}

// The first two lines of a shard file.
inline std::string shard_file_header(const std::string& magic, const shard& s) {
  return magic + "\nshard " + std::to_string(s.index) + ' ' + std::to_string(s.count) + '\n';
}

// The shard count N of the shard files (shard-I-of-N.txt) in `dir`: every shard 0..N-1 must
// then be there. Returns std::nullopt after printing an error naming the directory when it
// cannot be read, holds no shard file, or holds shards of different counts (files of an
// earlier sweep: each sweep wants its own directory).
inline std::optional<std::size_t> shard_count_in(const std::string& dir) {
  std::optional<std::size_t> count;
  std::error_code error;
  for (std::filesystem::directory_iterator it(dir, error), end; !error && it != end;
       it.increment(error)) {
    const std::string name = it->path().filename().string();
    std::size_t index = 0;
    std::size_t n = 0;
    char tail = 0;
    if (std::sscanf(name.c_str(), "shard-%zu-of-%zu.tx%c", &index, &n, &tail) != 3) continue;
    if (count && *count != n) {
      std::cerr << "error: " << dir << " holds shards of different counts (" << *count << " and "
                << n << ", e.g. " << it->path().string() << ")\n";
      return std::nullopt;
    }
    count = n;
  }
  if (error) {
    std::cerr << "error: cannot read directory " << dir << ": " << error.message() << '\n';
    return std::nullopt;
  }
  if (!count || *count == 0) {
    std::cerr << "error: no shard files (shard-I-of-N.txt) in " << dir << '\n';
    return std::nullopt;
  }
  return count;
}

// A run index: digits only, the whole text, in range.
inline bool parse_index(const std::string& text, std::size_t& index) {
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, index);
  return !text.empty() && ec == std::errc{} && ptr == end;
}

// Reads one shard file line by line; every error it reports names the file and the line.
class shard_reader {
 public:
  shard_reader(std::filesystem::path path, shard expected)
      : path_(std::move(path)), expected_(expected) {}

  // Opens the file and checks its first two lines (`magic`, then `shard I N` of the shard
  // expected). Returns false after printing an error.
  bool open(const std::string& magic, const std::string& example) {
    in_.open(path_);
    if (!in_) {
      std::cerr << "error: missing shard file " << path_.string() << " (shard " << expected_.index
                << '/' << expected_.count << ")\n";
      return false;
    }
    std::string line;
    if (!next(line) || line != magic) return fail("not " + example + " shard file");
    if (!next(line)) return fail("cut short (no shard line)");
    std::istringstream fields(line);
    std::string word;
    shard recorded;
    if (!(fields >> word >> recorded.index >> recorded.count) || word != "shard" ||
        recorded.index != expected_.index || recorded.count != expected_.count)
      return fail("expected 'shard " + std::to_string(expected_.index) + ' ' +
                  std::to_string(expected_.count) + "', found '" + line + "'");
    return true;
  }

  // The next line; false at the end of the file.
  bool next(std::string& line) {
    if (!std::getline(in_, line)) return false;
    ++number_;
    return true;
  }

  // The next line, which must be there; false after an error saying what is missing.
  bool expect(std::string& line, const std::string& what) {
    return next(line) || fail("cut short (no " + what + " line)");
  }

  // Prints "error: <path>: line <n>: <why>" and returns false.
  bool fail(const std::string& why) const { return fail_at(number_, why); }

  // The same for line `number`, read before.
  bool fail_at(std::size_t number, const std::string& why) const {
    std::cerr << "error: " << path_.string() << ": line " << number << ": " << why << '\n';
    return false;
  }

  // The number of the line last read (the first is 1).
  [[nodiscard]] std::size_t line_number() const { return number_; }

  // After the `end` line: nothing may follow. Returns false after printing an error.
  bool at_end() {
    std::string line;
    return !next(line) || fail("text after the end line");
  }

  // The lines that describe the sweep, one of each kind in `kinds` in that order (each starts
  // with its kind and a space). The first shard's are stored in `lines`; every other shard's
  // must equal them, or the shards are of different sweeps.
  bool sweep_lines(const std::vector<std::string>& kinds, std::vector<std::string>& lines,
                   bool first) {
    if (first) lines.clear();
    std::string line;
    for (std::size_t k = 0; k < kinds.size(); ++k) {
      if (!expect(line, kinds[k])) return false;
      if (!line.starts_with(kinds[k] + ' ')) return fail("expected the " + kinds[k] + " line");
      if (first)
        lines.push_back(line);
      else if (line != lines[k])
        return fail("a different sweep than the first shard's ('" + line + "')");
    }
    return true;
  }

  // The `said` lines after the sweep's (what the program printed before its runs, for the
  // merge to print again; see said_lines), the same in every shard: the first shard's become
  // `said`. Leaves the first line after them in `line`.
  bool said_lines(std::string& said, bool first, std::string& line) {
    std::string here;
    while (next(line)) {
      if (!line.starts_with("said ")) {
        if (first) said = here;
        return here == said || fail("a different sweep than the first shard's (said lines)");
      }
      here += line.substr(5) + '\n';
    }
    return fail("cut short (no end line)");
  }

  // The `said` lines, then the run lines up to the `end` line. For each `run <index> ...` the
  // run is claimed (see claim) and `parse(index, fields)` reads and stores the rest of the line,
  // returning an empty string, "malformed", or another reason the line is wrong.
  template <class Parse>
  bool said_and_runs(std::string& said, bool first, std::vector<bool>& seen, Parse parse) {
    std::string line;
    if (!said_lines(said, first, line)) return false;
    for (;;) {
      if (line == "end") return at_end();
      std::istringstream fields(line);
      std::string word;
      std::string index_text;
      std::size_t index = 0;
      const bool numbered = static_cast<bool>(fields >> word >> index_text) && word == "run" &&
                            parse_index(index_text, index);
      if (!numbered) return fail("malformed run line '" + line + "'");
      if (!claim(index, seen)) return false;
      if (const std::string why = parse(index, fields); !why.empty())
        return fail(why == "malformed" ? "malformed run line '" + line + "'" : why);
      if (!next(line)) return fail("cut short (no end line)");
    }
  }

  // Records that this shard holds run `run` of a sweep of `seen.size()` runs; an error when
  // the run is not this shard's or was given before.
  bool claim(std::size_t run, std::vector<bool>& seen) const {
    if (run >= seen.size() || !expected_.owns(run))
      return fail("run " + std::to_string(run) + " does not belong to shard " +
                  std::to_string(expected_.index) + '/' + std::to_string(expected_.count) + " of " +
                  std::to_string(seen.size()) + " runs");
    if (seen[run]) return fail("run " + std::to_string(run) + " given twice");
    seen[run] = true;
    return true;
  }

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  shard expected_;
  std::ifstream in_;
  std::size_t number_ = 0;
};

// After every shard file of `dir` was read: each run of the sweep must have been in one.
// Returns false after printing an error naming the first run missing.
inline bool every_run_seen(const std::vector<bool>& seen, const std::string& dir) {
  for (std::size_t i = 0; i < seen.size(); ++i)
    if (!seen[i]) {
      std::cerr << "error: run " << i << " is in no shard file of " << dir << '\n';
      return false;
    }
  return true;
}

// Reads the shard files of `dir` in order with `read(path, shard, first)`, which reports its
// own errors; then checks that each of the `seen.size()` runs was in one of them. Returns false
// after printing an error.
template <class Read>
bool read_shards(const std::string& dir, std::vector<bool>& seen, Read read) {
  const auto count = shard_count_in(dir);
  if (!count) return false;
  for (std::size_t i = 0; i < *count; ++i) {
    const shard sh{i, *count};
    if (!read(shard_path(dir, sh), sh, i == 0)) return false;
  }
  return every_run_seen(seen, dir);
}

// The options of a sweep that can be split: --shard I/N (else a Slurm job array's
// variables), --shard-dir and --merge DIR. --merge excludes the shard options and every option
// that chooses the sweep (the merge takes the sweep the shards recorded: such an option would
// be ignored).
struct shard_options {
  std::string shard_text;
  std::string dir;
  std::string merge_dir;
  CLI::Option* shard_option = nullptr;
  CLI::Option* merge_option = nullptr;

  // `runs` says which runs --shard picks; `merge` what --merge builds.
  void add(CLI::App& app, const std::string& default_dir, const std::string& runs,
           const std::string& merge, const std::vector<CLI::Option*>& sweep_options) {
    dir = default_dir;
    shard_option = app.add_option("--shard", shard_text,
                                  runs +
                                      " (0 <= I < N) and write their raw results to "
                                      "--shard-dir; default from "
                                      "SLURM_ARRAY_TASK_ID/_MIN/_COUNT")
                       ->check(shard_form());
    auto* dir_option = app.add_option("--shard-dir", dir, "where a shard writes shard-I-of-N.txt");
    merge_option =
        app.add_option("--merge", merge_dir, merge)->excludes(shard_option)->excludes(dir_option);
    for (CLI::Option* option : sweep_options) merge_option->excludes(option);
  }

  // This process's shard: --shard's, else the Slurm job array's (exits 2 when its variables
  // make none), else none (the whole sweep).
  [[nodiscard]] std::optional<shard> chosen() const {
    if (shard_text.empty()) return slurm_array_shard();
    shard s;
    (void)parse_shard(shard_text, s);  // validated by the option's check
    return s;
  }
};

// Standard output printed before the runs, as `said` lines of a shard file.
inline std::string said_lines(const std::string& said) {
  std::string text;
  std::istringstream lines(said);
  for (std::string line; std::getline(lines, line);) text += "said " + line + '\n';
  return text;
}

// The exact doubles of a line's fields, read back by read_exact: `count` of them from
// `fields`. False when one is missing or malformed.
inline bool read_exact_fields(std::istream& fields, std::size_t count, std::vector<double>& out) {
  out.clear();
  std::string word;
  for (std::size_t i = 0; i < count; ++i) {
    double value = 0.0;
    if (!(fields >> word) || !read_exact(word, value)) return false;
    out.push_back(value);
  }
  return true;
}

}  // namespace examples
