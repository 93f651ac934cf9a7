#pragma once

// HttpRequest / HttpResponse: the HTTP exchange as the REST layer sees it, independent of the
// server library that carries it (rest/http_server.cc adapts cpp-httplib to these).

#include <map>
#include <string>
#include <vector>

namespace cairn::rest {

struct CaseInsensitiveLess {
  bool operator()(const std::string& a, const std::string& b) const;
};

using Headers = std::map<std::string, std::string, CaseInsensitiveLess>;

struct HttpRequest {
  std::string method;    // "GET", "HEAD", "POST", ...
  std::string raw_path;  // the target's path, still percent-encoded
  std::map<std::string, std::string> query;  // decoded query parameters
  Headers headers;
  std::string body;

  // The header's value, or "" when absent.
  std::string Header(const std::string& name) const;
  // The query parameter's value, or `fallback` when absent.
  std::string Query(const std::string& name, const std::string& fallback = "") const;
};

struct HttpResponse {
  int status = 200;
  Headers headers;
  std::string body;  // JSON unless a Content-Type header says otherwise
};

// Percent-decodes `s`; '+' becomes a space when `plus_is_space` (form encoding).
std::string PercentDecode(const std::string& s, bool plus_is_space);

}  // namespace cairn::rest
