#include "rest/http_server.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <iostream>
#include <optional>
#include <thread>
#include <vector>

#include "rest/error_mapping.h"

namespace cairn::rest {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

using BeastRequest = http::request<http::string_body>;
using BeastResponse = http::response<http::string_body>;

// Splits the query string into decoded parameters ('+' is a space, as in forms).
void ParseQuery(std::string_view query, std::map<std::string, std::string>* out) {
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    size_t eq = pair.find('=');
    std::string key = PercentDecode(std::string(pair.substr(0, eq)), true);
    std::string value =
        eq == std::string_view::npos ? "" : PercentDecode(std::string(pair.substr(eq + 1)), true);
    if (!key.empty()) out->emplace(std::move(key), std::move(value));
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
}

HttpRequest Adapt(BeastRequest& req) {
  HttpRequest out;
  out.method = std::string(req.method_string());
  std::string_view target(req.target().data(), req.target().size());
  size_t q = target.find('?');
  out.raw_path = std::string(target.substr(0, q));
  if (q != std::string_view::npos) ParseQuery(target.substr(q + 1), &out.query);
  for (const auto& field : req) {
    out.headers.emplace(std::string(field.name_string()), std::string(field.value()));
  }
  out.body = std::move(req.body());
  return out;
}

}  // namespace

struct HttpServer::Impl {
  Impl(RestApi* api, ServerOptions options)
      : api(api), options(std::move(options)), workers(this->options.threads) {}

  RestApi* api;
  ServerOptions options;
  asio::io_context ioc;
  tcp::acceptor acceptor{ioc};
  asio::thread_pool workers;

  void Accept();
};

namespace {

// A connection's read buffer keeps no more than this between requests.
constexpr size_t kIdleBufferBytes = 16 * 1024;

// One connection: read a request, run it on a worker, write the answer, repeat.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, HttpServer::Impl* server)
      : stream_(std::move(socket)), server_(server) {}

  void Start() {
    asio::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->Read(); });
  }

 private:
  void Read() {
    parser_.emplace();
    parser_->body_limit(server_->options.max_body_bytes);
    parser_->header_limit(64 * 1024);
    stream_.expires_after(std::chrono::seconds(server_->options.keep_alive_timeout_s));
    http::async_read_header(stream_, buffer_, *parser_,
                            [self = shared_from_this()](beast::error_code ec, size_t) {
                              self->OnHeader(ec);
                            });
  }

  // The body: with room for all of it reserved, it arrives in one or two reads instead of
  // many 512-byte ones (the buffer's default step). Idle connections keep a small buffer.
  void OnHeader(beast::error_code ec) {
    if (ec) return OnRead(ec);
    if (auto length = parser_->content_length()) {
      size_t want = std::min<uint64_t>(*length, server_->options.max_body_bytes) + 1024;
      if (buffer_.capacity() < want) buffer_.reserve(want);
    }
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, size_t) {
                       self->OnRead(ec);
                     });
  }

  void OnRead(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == beast::error::timeout ||
        ec == asio::error::connection_reset || ec == asio::error::eof) {
      return Close();
    }
    if (ec == http::error::body_limit) {
      return Reply(ErrorResponse(413, "PayloadTooLargeException",
                                 "request body exceeds the server's size limit of " +
                                     std::to_string(server_->options.max_body_bytes) + " bytes"),
                   11, false, false);
    }
    if (ec) {
      return Reply(ErrorResponse(400, "BadRequestException",
                                 "malformed HTTP request: " + ec.message()),
                   11, false, false);
    }
    auto request = std::make_shared<BeastRequest>(parser_->release());
    if (buffer_.capacity() > kIdleBufferBytes) buffer_.shrink_to_fit();
    // Catalog work blocks: run it on a worker, then answer from this connection's strand.
    asio::post(server_->workers, [self = shared_from_this(), request] {
      bool head = request->method() == http::verb::head;
      bool keep_alive = request->keep_alive();
      unsigned version = request->version();
      HttpResponse out = self->server_->api->Handle(Adapt(*request));
      asio::post(self->stream_.get_executor(),
                 [self, out = std::move(out), version, keep_alive, head]() mutable {
                   self->Reply(std::move(out), version, keep_alive, head);
                 });
    });
  }

  void Reply(HttpResponse out, unsigned version, bool keep_alive, bool head) {
    res_ = BeastResponse(static_cast<http::status>(out.status), version);
    bool has_type = false;
    for (const auto& [name, value] : out.headers) {
      has_type |= strcasecmp(name.c_str(), "Content-Type") == 0;
      res_.set(name, value);
    }
    if (!out.body.empty() && !has_type) res_.set(http::field::content_type, "application/json");
    res_.keep_alive(keep_alive);
    if (!head) res_.body() = std::move(out.body);
    res_.prepare_payload();
    stream_.expires_after(std::chrono::seconds(server_->options.request_timeout_s));
    http::async_write(stream_, res_,
                      [self = shared_from_this(), keep_alive](beast::error_code ec, size_t) {
                        if (ec || !keep_alive) return self->Close();
                        self->Read();
                      });
  }

  void Close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  BeastResponse res_;
  HttpServer::Impl* server_;
};

}  // namespace

void HttpServer::Impl::Accept() {
  acceptor.async_accept(asio::make_strand(ioc), [this](beast::error_code ec, tcp::socket socket) {
    if (!acceptor.is_open()) return;
    if (!ec) {
      beast::error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      std::make_shared<Session>(std::move(socket), this)->Start();
    }
    Accept();
  });
}

HttpServer::HttpServer(RestApi* api, ServerOptions options)
    : impl_(std::make_unique<Impl>(api, std::move(options))) {}

HttpServer::~HttpServer() {
  Stop();
  impl_->workers.join();
}

engine::Status HttpServer::Bind() {
  beast::error_code ec;
  auto address = asio::ip::make_address(impl_->options.host, ec);
  if (ec) return engine::Status::InvalidArgument("bad listen address " + impl_->options.host);
  tcp::endpoint endpoint(address, static_cast<unsigned short>(impl_->options.port));
  tcp::acceptor& a = impl_->acceptor;
  a.open(endpoint.protocol(), ec);
  if (!ec) a.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) a.bind(endpoint, ec);
  if (!ec) a.listen(4096, ec);
  if (ec) {
    return engine::Status::IOError("cannot listen on " + impl_->options.host + ":" +
                                   std::to_string(impl_->options.port) + ": " + ec.message());
  }
  port_ = a.local_endpoint().port();
  return engine::Status::OK();
}

void HttpServer::Serve() {
  impl_->Accept();
  std::vector<std::thread> extra;
  for (int i = 1; i < impl_->options.io_threads; ++i) {
    extra.emplace_back([this] { impl_->ioc.run(); });
  }
  impl_->ioc.run();
  for (std::thread& t : extra) t.join();
}

void HttpServer::Stop() {
  asio::post(impl_->ioc, [this] {
    beast::error_code ignored;
    impl_->acceptor.close(ignored);
  });
  impl_->ioc.stop();
}

}  // namespace cairn::rest
