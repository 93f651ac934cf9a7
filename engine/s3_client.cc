#include "engine/s3_client.h"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <random>
#include <thread>

namespace cairn::engine {
namespace {

constexpr const char* kEmptySha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

bool Transient(int status) {
  return status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
}

// Errors that another try cannot fix (TLS setup and verification).
bool Permanent(httplib::Error error) {
  return error == httplib::Error::SSLLoadingCerts ||
         error == httplib::Error::SSLServerVerification || error == httplib::Error::BindIPAddress;
}

std::string Describe(httplib::Error error) {
  switch (error) {
    case httplib::Error::Connection:
      return "cannot connect";
    case httplib::Error::ConnectionTimeout:
      return "connect timed out";
    case httplib::Error::Read:
      return "no response (read failed or timed out)";
    case httplib::Error::Write:
      return "request not sent (write failed or timed out)";
    case httplib::Error::SSLConnection:
      return "TLS handshake failed";
    case httplib::Error::SSLLoadingCerts:
      return "cannot load CA certificates";
    case httplib::Error::SSLServerVerification:
      return "TLS certificate not trusted";
    default:
      return "HTTP client error " + httplib::to_string(error);
  }
}

// UTF-8 encoding of a Unicode code point.
std::string Utf8(unsigned long cp) {
  auto byte = [](unsigned long v) { return static_cast<char>(v); };
  if (cp < 0x80) return {byte(cp)};
  if (cp < 0x800) return {byte(0xC0 | (cp >> 6)), byte(0x80 | (cp & 0x3F))};
  if (cp < 0x10000) {
    return {byte(0xE0 | (cp >> 12)), byte(0x80 | ((cp >> 6) & 0x3F)), byte(0x80 | (cp & 0x3F))};
  }
  return {byte(0xF0 | (cp >> 18)), byte(0x80 | ((cp >> 12) & 0x3F)),
          byte(0x80 | ((cp >> 6) & 0x3F)), byte(0x80 | (cp & 0x3F))};
}

// The text of an XML entity's name ("amp", "#233", "#xE9"); nullopt if unknown.
std::optional<std::string> EntityText(std::string_view name) {
  static const std::map<std::string_view, std::string> kNamed = {
      {"amp", "&"}, {"lt", "<"}, {"gt", ">"}, {"quot", "\""}, {"apos", "'"}};
  if (auto it = kNamed.find(name); it != kNamed.end()) return it->second;
  if (name.size() < 2 || name[0] != '#') return std::nullopt;
  bool hex = name[1] == 'x' || name[1] == 'X';
  std::string digits(name.substr(hex ? 2 : 1));
  char* end = nullptr;
  unsigned long cp = std::strtoul(digits.c_str(), &end, hex ? 16 : 10);
  if (digits.empty() || *end != '\0' || cp > 0x10FFFF) return std::nullopt;
  return Utf8(cp);
}

std::string DecodeEntities(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    size_t semi = s[i] == '&' ? s.find(';', i) : std::string_view::npos;
    std::optional<std::string> text;
    if (semi != std::string_view::npos) text = EntityText(s.substr(i + 1, semi - i - 1));
    if (!text) {
      out += s[i];
      continue;
    }
    out += *text;
    i = semi;
  }
  return out;
}

std::string FirstElement(std::string_view xml, std::string_view tag) {
  std::vector<std::string> all = XmlElements(xml, tag);
  return all.empty() ? "" : all.front();
}

}  // namespace

std::vector<std::string> XmlElements(std::string_view xml, std::string_view tag) {
  std::string open = "<" + std::string(tag) + ">";
  std::string close = "</" + std::string(tag) + ">";
  std::vector<std::string> out;
  for (size_t pos = 0; (pos = xml.find(open, pos)) != std::string_view::npos;) {
    size_t start = pos + open.size();
    size_t end = xml.find(close, start);
    if (end == std::string_view::npos) break;
    out.push_back(DecodeEntities(xml.substr(start, end - start)));
    pos = end + close.size();
  }
  return out;
}

std::string S3ErrorCode(std::string_view body) { return FirstElement(body, "Code"); }
std::string S3ErrorMessage(std::string_view body) { return FirstElement(body, "Message"); }

Result<std::unique_ptr<S3Client>> S3Client::Make(Options options) {
  if (options.region.empty()) return Status::InvalidArgument("S3 region must not be empty");
  if (options.endpoint.empty()) {
    options.endpoint = "https://s3." + options.region + ".amazonaws.com";
  }
  while (options.endpoint.size() > 1 && options.endpoint.back() == '/') {
    options.endpoint.pop_back();
  }
  Endpoint e;
  std::string_view rest = options.endpoint;
  if (rest.rfind("http://", 0) == 0) {
    e.scheme = "http";
    rest.remove_prefix(7);
  } else if (rest.rfind("https://", 0) == 0) {
    e.scheme = "https";
    rest.remove_prefix(8);
  } else {
    return Status::InvalidArgument("S3 endpoint must start with http:// or https://, got '" +
                                   options.endpoint + "'");
  }
  size_t colon = rest.rfind(':');
  bool bracketed = !rest.empty() && rest.back() == ']';
  if (colon != std::string_view::npos && !bracketed) {
    e.host = std::string(rest.substr(0, colon));
    std::string port(rest.substr(colon + 1));
    char* end = nullptr;
    long p = std::strtol(port.c_str(), &end, 10);
    if (port.empty() || *end != '\0' || p < 1 || p > 65535) {
      return Status::InvalidArgument("bad port in S3 endpoint '" + options.endpoint + "'");
    }
    e.port = static_cast<int>(p);
  } else {
    e.host = std::string(rest);
    e.port = e.scheme == "https" ? 443 : 80;
  }
  if (e.host.empty() || e.host.find('/') != std::string::npos) {
    return Status::InvalidArgument("S3 endpoint must be scheme://host[:port] with no path, got '" +
                                   options.endpoint + "'");
  }
  if (!options.clock) options.clock = std::make_shared<SystemClock>();
  if (options.max_attempts < 1) options.max_attempts = 1;
  return std::unique_ptr<S3Client>(new S3Client(std::move(options), std::move(e)));
}

S3Client::S3Client(Options options, Endpoint endpoint)
    : options_(std::move(options)), endpoint_(std::move(endpoint)) {}

S3Client::~S3Client() = default;

S3Target S3Client::TargetOf(const std::string& bucket, const std::string& key) const {
  bool default_port = (endpoint_.scheme == "https" && endpoint_.port == 443) ||
                      (endpoint_.scheme == "http" && endpoint_.port == 80);
  std::string host = options_.path_style ? endpoint_.host : bucket + "." + endpoint_.host;
  S3Target t;
  t.host = default_port ? host : host + ":" + std::to_string(endpoint_.port);
  t.base_url = endpoint_.scheme + "://" + host + ":" + std::to_string(endpoint_.port);
  t.path = options_.path_style ? "/" + UriEncode(bucket, true) : "";
  t.path += "/" + UriEncode(key, false);
  return t;
}

std::unique_ptr<httplib::Client> S3Client::Borrow(const std::string& base_url) {
  {
    std::lock_guard lock(mu_);
    auto& idle = idle_[base_url];
    if (!idle.empty()) {
      auto client = std::move(idle.back());
      idle.pop_back();
      return client;
    }
  }
  auto client = std::make_unique<httplib::Client>(base_url);
  client->set_connection_timeout(std::chrono::milliseconds(options_.connect_timeout_ms));
  client->set_read_timeout(std::chrono::milliseconds(options_.io_timeout_ms));
  client->set_write_timeout(std::chrono::milliseconds(options_.io_timeout_ms));
  client->set_keep_alive(true);
  client->set_url_encode(false);  // paths are encoded once, as signed
  client->set_decompress(false);  // objects are returned byte for byte
  if (!options_.resolve.empty()) client->set_hostname_addr_map(options_.resolve);
  return client;
}

void S3Client::Return(const std::string& base_url, std::unique_ptr<httplib::Client> client) {
  std::lock_guard lock(mu_);
  auto& idle = idle_[base_url];
  if (idle.size() < 16) idle.push_back(std::move(client));
}

void S3Client::Backoff(int attempt) {
  thread_local std::mt19937 rng{std::random_device{}()};
  int base = options_.backoff_ms << std::min(attempt - 1, 8);
  std::uniform_int_distribution<int> jitter(base / 2, base);
  std::this_thread::sleep_for(std::chrono::milliseconds(jitter(rng)));
}

S3Response S3Client::SendOnce(const S3Request& request, bool* retry) {
  S3Target target = TargetOf(request.bucket, request.key);
  std::string payload_hash = request.body.empty() ? kEmptySha256 : Sha256Hex(request.body);
  std::string amz_date = AmzDate(options_.clock->NowMillis());

  SigV4Request sig;
  sig.method = request.method;
  sig.canonical_uri = target.path;
  sig.query = request.query;
  sig.payload_sha256 = payload_hash;
  sig.headers = request.headers;
  sig.headers.emplace_back("host", target.host);
  sig.headers.emplace_back("x-amz-content-sha256", payload_hash);
  sig.headers.emplace_back("x-amz-date", amz_date);
  if (!options_.credentials.session_token.empty()) {
    sig.headers.emplace_back("x-amz-security-token", options_.credentials.session_token);
  }

  httplib::Request req;
  req.method = request.method;
  req.path = target.path;
  for (size_t i = 0; i < request.query.size(); ++i) {
    req.path += (i == 0 ? "?" : "&") + UriEncode(request.query[i].first, true) + "=" +
                UriEncode(request.query[i].second, true);
  }
  for (const auto& [name, value] : sig.headers) {
    req.headers.emplace(name == "host" ? "Host" : name, value);
  }
  if (!options_.credentials.access_key_id.empty()) {
    SigV4Signature signature = SignV4(sig, options_.credentials, options_.region, "s3", amz_date);
    req.headers.emplace("Authorization", signature.authorization);
  }
  req.body = std::string(request.body);
  if (request.method == "PUT") req.headers.emplace("Content-Type", "application/octet-stream");

  S3Response out;
  auto client = Borrow(target.base_url);
  httplib::Result res = client->send(req);
  if (!res) {
    out.transport_error = Describe(res.error());
    *retry = !Permanent(res.error());
    return out;  // the connection is dropped, not pooled
  }
  out.status = res->status;
  *retry = Transient(out.status);
  if (request.method != "HEAD") out.body = std::move(res->body);
  out.bucket_region = res->get_header_value("x-amz-bucket-region");
  Return(target.base_url, std::move(client));
  return out;
}

S3Response S3Client::Send(const S3Request& request) {
  S3Response res;
  for (int attempt = 1;; ++attempt) {
    bool retry = false;
    res = SendOnce(request, &retry);
    res.attempts = attempt;
    if (!retry || attempt >= options_.max_attempts) break;
    Backoff(attempt);
  }
  return res;
}

}  // namespace cairn::engine
