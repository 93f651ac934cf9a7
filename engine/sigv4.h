#pragma once

// AWS Signature Version 4 for S3 requests signed in the Authorization header.
//
// The caller builds the request (method, URI-encoded path, raw query pairs, the headers to sign
// with their values, the payload's SHA-256) and SignV4 computes the canonical request, the
// string to sign and the signature exactly as AWS's "Authenticating Requests (AWS Signature
// Version 4)" pages describe. Nothing here reads the clock or the environment: the caller
// passes the request time as an x-amz-date string (AmzDate turns a Clock's millis into one),
// so signatures are deterministic and testable against AWS's published examples.
//
// HMAC and SHA-256 come from OpenSSL's libcrypto. Thread-safety: pure functions.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cairn::engine {

struct AwsCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // "" = none; else sent and signed as x-amz-security-token
};

struct SigV4Request {
  std::string method;  // "GET", "PUT", ...
  // The path exactly as sent on the wire, already URI-encoded ("/test%24file.text").
  std::string canonical_uri;
  // Query parameters, raw (not encoded); order does not matter. A bare "?lifecycle" is
  // {"lifecycle", ""}.
  std::vector<std::pair<std::string, std::string>> query;
  // Every header to sign, with the value sent (host, x-amz-date and x-amz-content-sha256
  // included). Names in any case; values are trimmed and inner spaces collapsed for signing.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string payload_sha256;  // lowercase hex, or "UNSIGNED-PAYLOAD"
};

struct SigV4Signature {
  std::string canonical_request;
  std::string string_to_sign;
  std::string signed_headers;  // "host;range;x-amz-content-sha256;x-amz-date"
  std::string signature;       // 64 lowercase hex digits
  std::string authorization;   // the Authorization header's value
};

// Signs `request` for `region` and `service` ("s3") at `amz_date` ("20130524T000000Z").
// REQUIRES: amz_date is 16 characters in that form and equals the x-amz-date header sent.
SigV4Signature SignV4(const SigV4Request& request, const AwsCredentials& credentials,
                      std::string_view region, std::string_view service, std::string_view amz_date);

// "YYYYMMDDTHHMMSSZ" (UTC) for a time in milliseconds since the Unix epoch.
std::string AmzDate(int64_t unix_millis);

// Lowercase hex SHA-256 of `data`.
std::string Sha256Hex(std::string_view data);

// Raw 32-byte HMAC-SHA256 of `data` under `key`.
std::string HmacSha256(std::string_view key, std::string_view data);

// RFC 3986 percent-encoding as S3 wants it: A-Z a-z 0-9 - _ . ~ pass, every other byte becomes
// %XX (uppercase hex); '/' passes unless `encode_slash`.
std::string UriEncode(std::string_view text, bool encode_slash);

}  // namespace cairn::engine
