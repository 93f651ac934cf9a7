// S3FileIO and S3Client against a scripted fake S3 (cpp-httplib's server on a loopback port
// picked by the kernel): how store errors map to Status codes, which failures are retried,
// timeouts, the read-back after a lost PUT answer, and the conditional-write probe against
// stores that ignore or reject If-None-Match. The real-server suite is s3_file_io_test.cc.

#include <arpa/inet.h>
#include <doctest/doctest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "engine/clock.h"
#include "engine/s3_file_io.h"
#include "tests/engine/table_fixtures.h"

namespace cairn::engine {
namespace {

// A fake S3 endpoint: every request goes to `handler`, which sees the request and answers.
class FakeS3 {
 public:
  using Handler = std::function<void(const httplib::Request&, httplib::Response&)>;

  explicit FakeS3(Handler handler) : handler_(std::move(handler)) {
    auto dispatch = [this](const httplib::Request& req, httplib::Response& res) {
      ++requests;
      std::lock_guard lock(mu_);
      handler_(req, res);
    };
    server_.Get(R"(/.*)", dispatch);  // and HEAD
    server_.Put(R"(/.*)", dispatch);
    server_.Delete(R"(/.*)", dispatch);
    port_ = server_.bind_to_any_port("127.0.0.1");
    REQUIRE(port_ > 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~FakeS3() {
    server_.stop();
    thread_.join();
  }

  S3Client::Options Options() const {
    S3Client::Options o;
    o.endpoint = "http://127.0.0.1:" + std::to_string(port_);
    o.path_style = true;
    o.credentials = {"AKIDEXAMPLE", "secret", ""};
    o.clock = std::make_shared<ManualClock>(1369353600000);  // 2013-05-24T00:00:00Z
    o.backoff_ms = 1;
    o.max_attempts = 3;
    return o;
  }

  std::unique_ptr<S3FileIO> IO() const { return IO(Options()); }
  static std::unique_ptr<S3FileIO> IO(S3Client::Options o) {
    auto io = S3FileIO::Make(std::move(o));
    REQUIRE_OK(io);
    return std::move(io).value();
  }

  std::atomic<int> requests{0};

 private:
  std::mutex mu_;
  Handler handler_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

void Error(httplib::Response& res, int status, const std::string& code) {
  res.status = status;
  res.set_content("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + code +
                      "</Code><Message>scripted " + code + "</Message></Error>",
                  "application/xml");
}

// A minimal in-memory S3 object store, honouring If-None-Match: * unless told to ignore it.
struct Objects {
  std::map<std::string, std::string> data;
  bool honour_if_none_match = true;
  std::string last_if_none_match;  // as sent on the last PUT

  void Serve(const httplib::Request& req, httplib::Response& res) {
    if (req.method == "PUT") {
      last_if_none_match = req.get_header_value("If-None-Match");
      if (honour_if_none_match && last_if_none_match == "*" && data.count(req.path)) {
        return Error(res, 412, "PreconditionFailed");
      }
      data[req.path] = req.body;
      res.status = 200;
    } else if (req.method == "GET" || req.method == "HEAD") {
      auto it = data.find(req.path);
      if (it == data.end()) return Error(res, 404, "NoSuchKey");
      res.set_content(it->second, "application/octet-stream");
    } else if (req.method == "DELETE") {
      data.erase(req.path);
      res.status = 204;
    }
  }
};

TEST_CASE("requests carry the signing headers at the injected clock's time") {
  std::string date, sha, auth, host;
  FakeS3 s3([&](const httplib::Request& req, httplib::Response& res) {
    date = req.get_header_value("x-amz-date");
    sha = req.get_header_value("x-amz-content-sha256");
    auth = req.get_header_value("Authorization");
    host = req.get_header_value("Host");
    CHECK(req.get_header_value_count("Host") == 1);
    res.status = 200;
  });
  REQUIRE_OK(s3.IO()->WriteNew("s3://b/k", "payload"));
  CHECK(date == "20130524T000000Z");
  CHECK(sha == Sha256Hex("payload"));
  CHECK(auth.rfind("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20130524/us-east-1/s3/aws4_request,"
                   "SignedHeaders=host;if-none-match;x-amz-content-sha256;x-amz-date,Signature=",
                   0) == 0);
  CHECK(host.rfind("127.0.0.1:", 0) == 0);
}

TEST_CASE("a session token is sent as x-amz-security-token and signed") {
  std::string token, auth;
  FakeS3 s3([&](const httplib::Request& req, httplib::Response& res) {
    token = req.get_header_value("x-amz-security-token");
    auth = req.get_header_value("Authorization");
    res.set_content("x", "application/octet-stream");
  });
  S3Client::Options o = s3.Options();
  o.credentials.session_token = "session/token+1";
  REQUIRE_OK(FakeS3::IO(o)->Read("s3://b/k"));
  CHECK(token == "session/token+1");
  CHECK(auth.find("SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,") !=
        std::string::npos);
}

TEST_CASE("without credentials requests go unsigned") {
  bool signed_request = true;
  FakeS3 s3([&](const httplib::Request& req, httplib::Response& res) {
    signed_request = req.has_header("Authorization");
    res.set_content("x", "application/octet-stream");
  });
  S3Client::Options o = s3.Options();
  o.credentials = {};
  REQUIRE_OK(FakeS3::IO(o)->Read("s3://b/k"));
  CHECK_FALSE(signed_request);
}

TEST_CASE("transient answers are retried with backoff until one succeeds") {
  int calls = 0;
  FakeS3 s3([&](const httplib::Request& req, httplib::Response& res) {
    if (req.path != "/b/k") return Error(res, 404, "NoSuchKey");
    if (++calls <= 2) return Error(res, calls == 1 ? 503 : 500, "SlowDown");
    res.set_content("data", "application/octet-stream");
  });
  Result<std::string> got = s3.IO()->Read("s3://b/k");
  REQUIRE_OK(got);
  CHECK(*got == "data");
  CHECK(s3.requests.load() == 3);
}

TEST_CASE("a store that stays overloaded is Unavailable after the last try") {
  FakeS3 s3([](const httplib::Request&, httplib::Response& res) { Error(res, 503, "SlowDown"); });
  CHECK_STATUS(s3.IO()->Read("s3://b/k"), kUnavailable, "HTTP 503 SlowDown");
  CHECK_STATUS(s3.IO()->Exists("s3://b/k"), kUnavailable, "after 3 tries");
  CHECK(s3.requests.load() == 6);
}

TEST_CASE("access denied, missing objects and wrong regions are not retried") {
  FakeS3 s3([](const httplib::Request& req, httplib::Response& res) {
    if (req.path == "/b/denied") return Error(res, 403, "AccessDenied");
    if (req.path == "/b/missing") return Error(res, 404, "NoSuchKey");
    res.set_header("x-amz-bucket-region", "eu-west-1");
    Error(res, 301, "PermanentRedirect");
  });
  auto io = s3.IO();
  CHECK_STATUS(io->Read("s3://b/denied"), kIOError, "access denied: S3 read of s3://b/denied");
  CHECK_STATUS(io->Read("s3://b/denied"), kIOError, "403 AccessDenied: scripted AccessDenied");
  CHECK_STATUS(io->Read("s3://b/missing"), kNotFound, "no such file: s3://b/missing");
  CHECK_STATUS(io->Read("s3://b/moved"), kIOError, "the bucket is in region eu-west-1");
  CHECK(s3.requests.load() == 4);
  CHECK_STATUS(io->Delete("s3://b/denied"), kIOError, "access denied");
  REQUIRE_OK(io->Delete("s3://b/missing"));
}

TEST_CASE("a PUT whose answer was lost and whose retry meets 412 is ours if the bytes match") {
  Objects store;
  int puts = 0;
  FakeS3 s3([&](const httplib::Request& req, httplib::Response& res) {
    store.Serve(req, res);
    // The first PUT of each key lands, but its answer says otherwise.
    if (req.method == "PUT" && ++puts % 2 == 1) Error(res, 500, "InternalError");
  });
  auto io = s3.IO();
  REQUIRE_OK(io->WriteNew("s3://b/mine.json", "mine"));
  CHECK(store.data["/b/mine.json"] == "mine");

  // Someone else's object at a name we also picked: the retry's 412 is a real conflict.
  // Its first answer (412) is lost too, so the retry's 412 is checked against the bytes.
  store.data["/b/theirs.json"] = "theirs";
  puts = 0;
  CHECK_STATUS(io->WriteNew("s3://b/theirs.json", "mine"), kAlreadyExists, "theirs.json");
  CHECK(store.data["/b/theirs.json"] == "theirs");
}

TEST_CASE("a write that keeps failing leaves nothing behind") {
  Objects store;
  FakeS3 s3([&](const httplib::Request& req, httplib::Response& res) {
    store.Serve(req, res);
    if (req.method == "PUT") Error(res, 503, "SlowDown");  // stored, but never acknowledged
  });
  CHECK_STATUS(s3.IO()->WriteNew("s3://b/k.json", "x"), kUnavailable, "SlowDown");
  CHECK(store.data.empty());
}

TEST_CASE("an unreachable store is Unavailable: cannot connect") {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  socklen_t len = sizeof(addr);
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  ::close(fd);  // the port is now closed: connections are refused
  S3Client::Options o;
  o.endpoint = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  o.path_style = true;
  o.backoff_ms = 1;
  o.max_attempts = 2;
  CHECK_STATUS(FakeS3::IO(o)->Read("s3://b/k"), kUnavailable, "cannot connect after 2 tries");
}

TEST_CASE("a store that accepts but never answers times out as Unavailable") {
  // A listening socket nobody accepts from: the kernel completes the connection, then silence.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  REQUIRE(::listen(fd, 16) == 0);
  socklen_t len = sizeof(addr);
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  S3Client::Options o;
  o.endpoint = "http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  o.path_style = true;
  o.backoff_ms = 1;
  o.max_attempts = 2;
  o.io_timeout_ms = 200;
  CHECK_STATUS(FakeS3::IO(o)->Read("s3://b/k"), kUnavailable, "no response");
  ::close(fd);
}

TEST_CASE("the probe reports a store that ignores If-None-Match, and turns the header off") {
  Objects store;
  store.honour_if_none_match = false;
  FakeS3 s3([&](const httplib::Request& req, httplib::Response& res) { store.Serve(req, res); });
  auto io = s3.IO();
  Result<ConditionalWriteProbe> probe = io->ProbeConditionalWrites("s3://b/warehouse");
  REQUIRE_OK(probe);
  CHECK_FALSE(probe->honoured);
  CHECK(probe->detail == "ignored (second PUT overwrote the object)");
  CHECK_FALSE(io->SupportsPutIfAbsent());
  CHECK(store.data.empty());  // the probe object was deleted
  REQUIRE_OK(io->WriteNew("s3://b/warehouse/t.json", "x"));
  CHECK(store.last_if_none_match.empty());
  CHECK_STATUS(io->WriteNew("s3://b/warehouse/t.json", "y"), kAlreadyExists, "t.json");
}

TEST_CASE("the probe reports a store that rejects If-None-Match, and writes without it") {
  Objects store;
  FakeS3 s3([&](const httplib::Request& req, httplib::Response& res) {
    if (req.method == "PUT" && req.has_header("If-None-Match")) {
      return Error(res, 501, "NotImplemented");
    }
    store.Serve(req, res);
  });
  auto io = s3.IO();
  Result<ConditionalWriteProbe> probe = io->ProbeConditionalWrites("s3://b/w/");
  REQUIRE_OK(probe);
  CHECK_FALSE(probe->honoured);
  CHECK(probe->detail == "rejected (first PUT answered 501 NotImplemented)");
  CHECK(store.data.empty());
  REQUIRE_OK(io->WriteNew("s3://b/w/t.json", "x"));
  CHECK(store.data["/b/w/t.json"] == "x");
}

TEST_CASE("the probe fails loudly when the store cannot be written") {
  FakeS3 s3(
      [](const httplib::Request&, httplib::Response& res) { Error(res, 403, "AccessDenied"); });
  CHECK_STATUS(s3.IO()->ProbeConditionalWrites("s3://b/w"), kIOError, "access denied");
}

}  // namespace
}  // namespace cairn::engine
