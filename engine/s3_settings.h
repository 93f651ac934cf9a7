#pragma once

// S3Settings: how `cairn serve` reaches an s3:// warehouse, as the operator gave it (flags,
// CAIRN_S3_* variables, or the standard AWS_* variables), and what it tells clients.
//
// Precedence for each field: command-line flag, then CAIRN_S3_*, then the AWS variable
// (ApplyAwsEnvironment), then the default. Thread-safety: values.

#include <functional>
#include <memory>
#include <string>

#include "engine/file_io.h"
#include "engine/json_util.h"
#include "engine/s3_client.h"

namespace cairn::engine {

struct S3Settings {
  std::string endpoint;  // "" = AWS's regional endpoint
  // The endpoint as clients reach it, when that differs (another host name or port).
  std::string client_endpoint;  // "" = endpoint
  std::string region;           // "" = us-east-1
  bool path_style = false;
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;
  // "probe": learn at startup whether the store honours If-None-Match: *; "on" / "off":
  // trust the operator and skip the probe.
  std::string conditional_writes = "probe";
  // Hand the static keys to clients in /v1/config and LoadTableResult config.
  bool vend_credentials = false;
};

// Fills the fields still empty from AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL, AWS_REGION /
// AWS_DEFAULT_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, looked
// up with `getenv` (std::getenv in production).
void ApplyAwsEnvironment(S3Settings* settings,
                         const std::function<const char*(const char*)>& getenv);

// InvalidArgument for a bad conditional_writes value, a secret without a key id or the
// reverse. Region defaults to us-east-1.
Result<S3Client::Options> ClientOptions(const S3Settings& settings);

// What a client needs to reach the same store, in Iceberg's FileIO property names:
// s3.endpoint (client_endpoint, else endpoint, when set), s3.region, s3.path-style-access and its
// pyiceberg twin s3.force-virtual-addressing, and with vend_credentials s3.access-key-id,
// s3.secret-access-key and s3.session-token.
Properties ClientProperties(const S3Settings& settings);

// Parses "true"/"false" (also 1/0, yes/no, on/off); InvalidArgument naming `flag` otherwise.
Result<bool> ParseBoolSetting(const std::string& flag, const std::string& text);

// An s3:// warehouse, opened.
struct S3Warehouse {
  std::shared_ptr<FileIO> file_io;  // an S3FileIO
  Properties client_config;         // ClientProperties(settings)
  // What is known of If-None-Match: *, for the startup log: the probe's finding
  // ("honoured (second PUT answered 412)", ...) or "on (not probed)" / "off (not probed)".
  std::string conditional_writes;
};

// Opens the FileIO of `warehouse` ("s3://bucket/prefix"). With conditional_writes "probe",
// writes, rewrites and deletes one object below the warehouse, which also proves the store
// reachable and writable. InvalidArgument for bad settings or warehouse; else the probe's
// errors (IOError for access denied, Unavailable when unreachable, NotFound for no bucket).
Result<S3Warehouse> OpenS3Warehouse(const S3Settings& settings, const std::string& warehouse);

}  // namespace cairn::engine
