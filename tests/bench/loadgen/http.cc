#include "http.h"

#include "stats.h"

namespace cairn::bench {

Http::Http(int port, std::string prefix, int read_timeout_s)
    : client_(std::make_unique<httplib::Client>("127.0.0.1", port)), prefix_(std::move(prefix)) {
  client_->set_keep_alive(true);
  client_->set_tcp_nodelay(true);
  client_->set_decompress(false);
  client_->set_connection_timeout(10, 0);
  client_->set_read_timeout(read_timeout_s, 0);
  client_->set_write_timeout(read_timeout_s, 0);
}

namespace {

Reply Finish(const httplib::Result& res, Clock::time_point start, Reply reply) {
  reply.ms = MsSince(start);
  if (!res) {
    reply.error = httplib::to_string(res.error());
    return reply;
  }
  reply.status = res->status;
  reply.etag = res->get_header_value("ETag");
  if (reply.bytes == 0) reply.bytes = res->body.size();
  return reply;
}

}  // namespace

Reply Http::Get(const std::string& path, const std::string& if_none_match, bool keep_body) {
  httplib::Headers headers;
  if (!if_none_match.empty()) headers.emplace("If-None-Match", if_none_match);
  Reply reply;
  auto start = Clock::now();
  auto receive = [&](const char* data, size_t n) {
    reply.bytes += n;
    if (keep_body) reply.body.append(data, n);
    return true;
  };
  auto res = client_->Get(Target(path), headers, receive);
  return Finish(res, start, std::move(reply));
}

Reply Http::GetRaw(const std::string& target) {
  Reply reply;
  auto start = Clock::now();
  auto res = client_->Get(target);
  if (res) reply.body = res->body;
  return Finish(res, start, std::move(reply));
}

Reply Http::Post(const std::string& path, const std::string& body, bool keep_body) {
  Reply reply;
  auto start = Clock::now();
  auto res = client_->Post(Target(path), body, "application/json");
  if (res && keep_body) reply.body = res->body;
  if (res) reply.bytes = res->body.size();
  return Finish(res, start, std::move(reply));
}

std::string Encode(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

}  // namespace cairn::bench
