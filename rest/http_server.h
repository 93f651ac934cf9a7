#pragma once

// HttpServer: serves a RestApi over HTTP/1.1 with cpp-httplib.
//
// Every limit lives in ServerOptions. TCP_NODELAY is set on every connection (without it
// each response waits on Nagle + delayed ACK, ~40 ms). Errors raised by the library itself
// (oversized bodies, bad requests) get the spec's ErrorModel body; JSON error bodies made by
// the API are left alone.

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>

#include "engine/status.h"
#include "rest/rest_api.h"

namespace httplib {
class Server;
}

namespace cairn::rest {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8181;                        // 0 = any free port (see HttpServer::port())
  int threads = 16;                       // worker threads, one per open connection
  size_t max_body_bytes = 8u << 20;       // larger bodies: 413
  size_t keep_alive_max_requests = 1000;  // per connection
  int keep_alive_timeout_s = 5;           // idle keep-alive connections close after this
  int read_timeout_s = 30;
  int write_timeout_s = 30;
};

class HttpServer {
 public:
  HttpServer(RestApi* api, ServerOptions options);
  ~HttpServer();

  // Binds the listening socket. IOError if it cannot.
  engine::Status Bind();
  // The bound port. REQUIRES: Bind() succeeded.
  int port() const { return port_; }
  // Serves until Stop(). REQUIRES: Bind() succeeded.
  void Serve();
  void Stop();

 private:
  RestApi* api_;
  ServerOptions options_;
  std::unique_ptr<httplib::Server> server_;
  int port_ = 0;
};

}  // namespace cairn::rest
