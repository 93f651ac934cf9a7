#include "flags.h"

#include <cstdlib>
#include <iostream>

namespace cairn::bench {

bool Flags::Parse(int argc, char** argv, int first) {
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") {
      command_.assign(argv + i + 1, argv + argc);
      return true;
    }
    if (arg.rfind("--", 0) != 0) {
      std::cerr << "cairn-bench-load: unexpected argument '" << arg << "'\n";
      return false;
    }
    std::string name = arg.substr(2);
    size_t eq = name.find('=');
    if (eq != std::string::npos) {
      values_[name.substr(0, eq)] = name.substr(eq + 1);
    } else if (i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0) {
      values_[name] = argv[++i];
    } else {
      values_[name] = "true";  // a switch
    }
  }
  return true;
}

std::string Flags::Str(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

long Flags::Int(const std::string& name, long fallback) const {
  return static_cast<long>(Num(name, static_cast<double>(fallback)));
}

double Flags::Num(const std::string& name, double fallback) const {
  auto it = values_.find(name);
  if (it == values_.end()) {
    if (fallback >= 0) return fallback;
    std::cerr << "cairn-bench-load: missing --" << name << "\n";
    std::exit(2);
  }
  char* end = nullptr;
  double v = std::strtod(it->second.c_str(), &end);
  if (end == it->second.c_str() || *end != '\0') {
    std::cerr << "cairn-bench-load: --" << name << " must be a number, got '" << it->second
              << "'\n";
    std::exit(2);
  }
  return v;
}

}  // namespace cairn::bench
