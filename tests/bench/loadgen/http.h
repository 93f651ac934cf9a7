#pragma once

// A keep-alive HTTP/1.1 client to one catalog on 127.0.0.1 (cpp-httplib), TCP_NODELAY on, no
// compression asked for, every call bounded by timeouts. Not thread-safe: one per thread.

#include <httplib.h>

#include <memory>
#include <string>

namespace cairn::bench {

struct Reply {
  int status = 0;     // 0 = no response (see error)
  std::string error;  // transport error, empty when a response arrived
  std::string body;   // empty when the caller asked to discard it
  std::string etag;
  size_t bytes = 0;  // body bytes received
  double ms = 0;     // request start to last body byte
};

class Http {
 public:
  // prefix: the catalog's path prefix ("" or "p/" ...); paths passed below start after
  // "/v1/" + prefix, e.g. "namespaces/ns/tables/t".
  Http(int port, std::string prefix, int read_timeout_s = 120);

  Reply Get(const std::string& path, const std::string& if_none_match = "", bool keep_body = true);
  Reply Post(const std::string& path, const std::string& body, bool keep_body = true);
  // GET of an absolute path (e.g. "/v1/config").
  Reply GetRaw(const std::string& target);

 private:
  std::string Target(const std::string& path) const { return "/v1/" + prefix_ + path; }

  std::unique_ptr<httplib::Client> client_;
  std::string prefix_;
};

// Percent-encodes a path segment or query value.
std::string Encode(const std::string& s);

}  // namespace cairn::bench
