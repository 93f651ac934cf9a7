#include "catalog/location.h"

namespace cairn::catalog {

std::string NormalizeLocation(const std::string& location) {
  std::string s = location;
  if (s.rfind("file://", 0) == 0) {
    s = s.substr(7);
  } else if (s.rfind("file:", 0) == 0) {
    s = s.substr(5);
  }
  if (!s.empty() && s[0] == '/') {
    // Collapse repeated slashes in a local path.
    std::string path;
    for (char c : s) {
      if (c == '/' && !path.empty() && path.back() == '/') continue;
      path += c;
    }
    s = "file://" + path;
  } else {
    s = location;
  }
  while (s.size() > 1 && s.back() == '/' && s != "file:///") s.pop_back();
  return s;
}

bool IsWithin(const std::string& location, const std::string& root) {
  std::string loc = NormalizeLocation(location);
  std::string base = NormalizeLocation(root);
  for (size_t pos = 0; (pos = loc.find("/.", pos)) != std::string::npos; ++pos) {
    size_t end = pos + 2;
    if (end < loc.size() && loc[end] == '.') ++end;
    if (end == loc.size() || loc[end] == '/') return false;
  }
  if (loc == base) return true;
  std::string prefix = base.back() == '/' ? base : base + "/";
  return loc.compare(0, prefix.size(), prefix) == 0;
}

std::string TrimLocation(const std::string& location) {
  std::string out = location;
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::string JoinLocation(const std::string& location, const std::string& relative) {
  std::string out = location;
  while (!out.empty() && out.back() == '/') out.pop_back();
  return out + "/" + relative;
}

}  // namespace cairn::catalog
