#include "rest/http_server.h"

#include <httplib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <iostream>

#include "rest/error_mapping.h"

namespace cairn::rest {
namespace {

const char* kJson = "application/json";

HttpRequest Adapt(const httplib::Request& req) {
  HttpRequest out;
  out.method = req.method;
  std::string target = req.target.empty() ? req.path : req.target;
  out.raw_path = target.substr(0, target.find('?'));
  for (const auto& [k, v] : req.params) out.query.emplace(k, v);
  for (const auto& [k, v] : req.headers) out.headers.emplace(k, v);
  out.body = req.body;
  return out;
}

const char* ReasonType(int status) {
  switch (status) {
    case 400: return "BadRequestException";
    case 404: return "NotFoundException";
    case 405: return "MethodNotAllowedException";
    case 413: return "PayloadTooLargeException";
    case 414: return "UriTooLongException";
    default: return status < 500 ? "BadRequestException" : "InternalServerError";
  }
}

}  // namespace

HttpServer::HttpServer(RestApi* api, ServerOptions options)
    : api_(api), options_(std::move(options)), server_(std::make_unique<httplib::Server>()) {
  httplib::Server& s = *server_;
  int threads = options_.threads;
  s.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  s.set_payload_max_length(options_.max_body_bytes);
  s.set_keep_alive_max_count(options_.keep_alive_max_requests);
  s.set_keep_alive_timeout(options_.keep_alive_timeout_s);
  s.set_read_timeout(options_.read_timeout_s, 0);
  s.set_write_timeout(options_.write_timeout_s, 0);
  s.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
  });
  auto handle = [this](const httplib::Request& req, httplib::Response& res) {
    HttpResponse out = api_->Handle(Adapt(req));
    res.status = out.status;
    std::string type = kJson;
    for (const auto& [k, v] : out.headers) {
      if (strcasecmp(k.c_str(), "Content-Type") == 0) {
        type = v;
      } else {
        res.set_header(k, v);
      }
    }
    if (!out.body.empty()) res.set_content(std::move(out.body), type.c_str());
  };
  const char* any = R"(.*)";
  s.Get(any, handle);  // also serves HEAD
  s.Post(any, handle);
  s.Delete(any, handle);
  s.Put(any, handle);
  s.Patch(any, handle);
  s.set_exception_handler([](const httplib::Request& req, httplib::Response& res,
                             std::exception_ptr ep) {
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      std::cerr << "cairn: error serving " << req.method << " " << req.path << ": " << e.what()
                << std::endl;
    } catch (...) {
      std::cerr << "cairn: unknown error serving " << req.method << " " << req.path << std::endl;
    }
    res.status = 500;
    res.set_content(ErrorBody(500, "InternalServerError", "internal server error"), kJson);
  });
  s.set_error_handler(httplib::Server::HandlerWithResponse(
      [](const httplib::Request&, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    if (res.status == 304 || res.status < 400) return httplib::Server::HandlerResponse::Unhandled;
    std::string message = "request rejected with HTTP " + std::to_string(res.status);
    if (res.status == 413) message = "request body exceeds the server's size limit";
    res.set_content(ErrorBody(res.status, ReasonType(res.status), message), kJson);
    return httplib::Server::HandlerResponse::Handled;
  }));
}

HttpServer::~HttpServer() = default;

engine::Status HttpServer::Bind() {
  if (options_.port == 0) {
    port_ = server_->bind_to_any_port(options_.host);
    if (port_ <= 0) return engine::Status::IOError("cannot bind to " + options_.host);
    return engine::Status::OK();
  }
  if (!server_->bind_to_port(options_.host, options_.port)) {
    return engine::Status::IOError("cannot bind to " + options_.host + ":" +
                                   std::to_string(options_.port) +
                                   " (is another server running there?)");
  }
  port_ = options_.port;
  return engine::Status::OK();
}

void HttpServer::Serve() { server_->listen_after_bind(); }

void HttpServer::Stop() { server_->stop(); }

}  // namespace cairn::rest
