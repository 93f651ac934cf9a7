// cairn-bench-load: the load generator of tests/bench (run_bench.sh drives it). One binary,
// one subcommand per workload; see workloads.h.
#include <iostream>
#include <map>
#include <string>

#include "flags.h"
#include "workloads.h"

int main(int argc, char** argv) {
  using namespace cairn::bench;
  const std::map<std::string, int (*)(const Flags&)> commands = {
      {"populate", Populate},
      {"load", LoadTables},
      {"commit", Commit},
      {"create-namespaces", CreateNamespaces},
      {"create-tables", CreateTables},
      {"list-tables", ListTables},
      {"hold", Hold},
      {"startup", Startup},
      {"fsync-floor", FsyncFloor},
      {"cas-floor", CasFloor},
      {"commit-floor", CommitFloor},
  };
  auto it = argc > 1 ? commands.find(argv[1]) : commands.end();
  if (it == commands.end()) {
    std::cerr << "usage: cairn-bench-load <subcommand> [--flag value]...\nsubcommands:";
    for (const auto& [name, fn] : commands) std::cerr << " " << name;
    std::cerr << "\n(tests/bench/loadgen/workloads.h documents each)\n";
    return 2;
  }
  Flags flags;
  if (!flags.Parse(argc, argv, 2)) return 2;
  return it->second(flags);
}
