#pragma once

// S3Client: signed HTTP requests to one S3 (or S3-compatible) endpoint, with retries.
//
// Each request is signed with AWS Signature Version 4 (engine/sigv4.h) at the injected Clock's
// time, over keep-alive connections from a small pool (cpp-httplib's client; https through
// OpenSSL with the system's CA store). Buckets are addressed virtual-host style
// (https://bucket.s3.us-east-1.amazonaws.com/key) or, with `path_style`, path style
// (http://127.0.0.1:9000/bucket/key) as most S3-compatible stores on a bare address need.
//
// Send retries what is safe to retry: a request whose answer is transient (no response, a
// timeout, 429, 500, 502, 503, 504) is sent again after an exponential, jittered backoff, up to
// `max_attempts` tries in all. REQUIRES of the caller: only send idempotent requests through
// Send, or handle the "maybe applied twice" case (S3FileIO::WriteNew does).
//
// Thread-safe: one client serves all threads.

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/clock.h"
#include "engine/sigv4.h"
#include "engine/status.h"

namespace httplib {
class Client;
}

namespace cairn::engine {

struct S3Request {
  std::string method;  // GET, HEAD, PUT, DELETE
  std::string bucket;
  std::string key;                                           // "" addresses the bucket itself
  std::vector<std::pair<std::string, std::string>> query;    // raw names and values
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers, all signed
  std::string_view body;
};

struct S3Response {
  int status = 0;               // HTTP status; 0 when no response arrived (see `transport_error`)
  std::string body;             // the body (empty for HEAD)
  std::string transport_error;  // why no response arrived: "cannot connect", "no response..."
  std::string bucket_region;    // the x-amz-bucket-region header, when sent
  int attempts = 1;             // how many times the request was sent
};

// Where a request goes: "http://127.0.0.1:9000", the Host header and the encoded path.
struct S3Target {
  std::string base_url;  // scheme://host[:port] to connect to
  std::string host;      // Host header value (":port" only when not the scheme's default)
  std::string path;      // "/bucket/key" (path style) or "/key", URI-encoded once
};

class S3Client {
 public:
  struct Options {
    // "http://127.0.0.1:9000" or "https://store.example". "" = AWS's regional endpoint,
    // https://s3.<region>.amazonaws.com.
    std::string endpoint;
    std::string region = "us-east-1";
    bool path_style = false;       // address buckets as /bucket/key on the endpoint's host
    AwsCredentials credentials;    // an empty access key id sends unsigned requests
    std::shared_ptr<Clock> clock;  // signing time; default SystemClock
    int max_attempts = 4;          // tries per request when the failure is transient
    int backoff_ms = 100;          // delay before the first retry; doubles, with jitter
    int connect_timeout_ms = 5000;
    int io_timeout_ms = 60000;  // each read or write on the socket
    // Hostname → address overrides, like curl's --resolve (tests, split-horizon DNS).
    std::map<std::string, std::string> resolve;
  };

  // InvalidArgument if the endpoint is not http(s)://host[:port] or the region is empty.
  static Result<std::unique_ptr<S3Client>> Make(Options options);
  ~S3Client();

  // Sends `request`, retrying transient failures as described above. Never fails: the
  // caller maps the response (or its absence) to a Status.
  S3Response Send(const S3Request& request);

  // Where a request for `bucket`/`key` goes. Pure; for tests and messages.
  S3Target TargetOf(const std::string& bucket, const std::string& key) const;

  const Options& options() const { return options_; }

 private:
  struct Endpoint {
    std::string scheme, host;
    int port = 0;
  };
  S3Client(Options options, Endpoint endpoint);

  // One try; sets *retry when the failure is transient.
  S3Response SendOnce(const S3Request& request, bool* retry);
  std::unique_ptr<httplib::Client> Borrow(const std::string& base_url);
  void Return(const std::string& base_url, std::unique_ptr<httplib::Client> client);
  void Backoff(int attempt);

  Options options_;
  Endpoint endpoint_;
  std::mutex mu_;
  // Idle keep-alive connections by base URL (one per bucket in virtual-host style).
  std::map<std::string, std::vector<std::unique_ptr<httplib::Client>>> idle_;
};

// The <Code> and <Message> of an S3 XML error body, "" when absent.
std::string S3ErrorCode(std::string_view body);
std::string S3ErrorMessage(std::string_view body);

// The text of every <tag>...</tag> element in `xml`, in order, with XML entities decoded.
std::vector<std::string> XmlElements(std::string_view xml, std::string_view tag);

}  // namespace cairn::engine
