#pragma once

// Flags: `--name value` pairs after the subcommand, and everything after a lone `--` kept as
// a command line (the `startup` subcommand's server command).

#include <map>
#include <string>
#include <vector>

namespace cairn::bench {

class Flags {
 public:
  // Parses argv[first..argc). Returns false (after printing why) on a malformed list.
  bool Parse(int argc, char** argv, int first);

  std::string Str(const std::string& name, const std::string& fallback = "") const;
  // Exits with status 2 when the flag is missing and has no fallback, or is not a number.
  long Int(const std::string& name, long fallback = -1) const;
  double Num(const std::string& name, double fallback = -1) const;
  bool Has(const std::string& name) const { return values_.count(name) > 0; }
  const std::vector<std::string>& command() const { return command_; }

 private:
  std::map<std::string, std::string> values_;
  std::vector<std::string> command_;
};

}  // namespace cairn::bench
