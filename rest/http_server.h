#pragma once

// HttpServer: serves a RestApi over HTTP/1.1 with Boost.Beast on Boost.Asio.
//
// A few network threads multiplex every connection (keep-alive connections cost no thread
// while idle, so thousands can stay open); each parsed request runs on a pool of worker
// threads, because catalog work blocks (SQL, fsync). TCP_NODELAY is set on every connection.
// Every limit lives in ServerOptions. Errors found before a request reaches the API (an
// oversized body: 413, a malformed request: 400) get the spec's ErrorModel body.

#include <memory>
#include <string>

#include "engine/status.h"
#include "rest/rest_api.h"

namespace cairn::rest {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8181;                   // 0 = any free port (see HttpServer::port())
  int threads = 16;                  // worker threads running requests
  int io_threads = 2;                // threads multiplexing connections
  size_t max_body_bytes = 8u << 20;  // larger bodies: 413
  int keep_alive_timeout_s = 60;     // an idle connection closes after this
  int request_timeout_s = 30;        // reading one request, or writing one response
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
  // Stops serving; safe from any thread.
  void Stop();

  struct Impl;  // the Asio machinery, shared with the connection sessions in the .cc

 private:
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace cairn::rest
