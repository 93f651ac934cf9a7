#include "engine/s3_settings.h"

#include <initializer_list>

#include "engine/s3_file_io.h"

namespace cairn::engine {
namespace {

constexpr const char* kDefaultRegion = "us-east-1";

void Fill(std::string* field, const std::function<const char*(const char*)>& getenv,
          std::initializer_list<const char*> names) {
  if (!field->empty()) return;
  for (const char* name : names) {
    const char* v = getenv(name);
    if (v != nullptr && *v != '\0') {
      *field = v;
      return;
    }
  }
}

}  // namespace

void ApplyAwsEnvironment(S3Settings* s, const std::function<const char*(const char*)>& getenv) {
  Fill(&s->endpoint, getenv, {"AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"});
  Fill(&s->region, getenv, {"AWS_REGION", "AWS_DEFAULT_REGION"});
  // A key pair comes from one place: take AWS's only when neither half was given.
  if (s->access_key_id.empty() && s->secret_access_key.empty()) {
    Fill(&s->access_key_id, getenv, {"AWS_ACCESS_KEY_ID"});
    Fill(&s->secret_access_key, getenv, {"AWS_SECRET_ACCESS_KEY"});
    Fill(&s->session_token, getenv, {"AWS_SESSION_TOKEN"});
  }
}

Result<S3Client::Options> ClientOptions(const S3Settings& s) {
  if (s.conditional_writes != "probe" && s.conditional_writes != "on" &&
      s.conditional_writes != "off") {
    return Status::InvalidArgument("--s3-conditional-writes must be probe, on or off, got '" +
                                   s.conditional_writes + "'");
  }
  if (s.access_key_id.empty() != s.secret_access_key.empty()) {
    return Status::InvalidArgument(
        "S3 credentials need both an access key id and a secret access key");
  }
  S3Client::Options o;
  o.endpoint = s.endpoint;
  o.region = s.region.empty() ? kDefaultRegion : s.region;
  o.path_style = s.path_style;
  o.credentials = {s.access_key_id, s.secret_access_key, s.session_token};
  return o;
}

Properties ClientProperties(const S3Settings& s) {
  Properties p;
  const std::string& endpoint = s.client_endpoint.empty() ? s.endpoint : s.client_endpoint;
  if (!endpoint.empty()) p["s3.endpoint"] = endpoint;
  p["s3.region"] = s.region.empty() ? kDefaultRegion : s.region;
  p["s3.path-style-access"] = s.path_style ? "true" : "false";
  p["s3.force-virtual-addressing"] = s.path_style ? "false" : "true";
  if (s.vend_credentials && !s.access_key_id.empty()) {
    p["s3.access-key-id"] = s.access_key_id;
    p["s3.secret-access-key"] = s.secret_access_key;
    if (!s.session_token.empty()) p["s3.session-token"] = s.session_token;
  }
  return p;
}

Result<bool> ParseBoolSetting(const std::string& flag, const std::string& text) {
  if (text == "true" || text == "1" || text == "yes" || text == "on") return true;
  if (text == "false" || text == "0" || text == "no" || text == "off" || text.empty()) {
    return false;
  }
  return Status::InvalidArgument("--" + flag + " must be true or false, got '" + text + "'");
}

Result<S3Warehouse> OpenS3Warehouse(const S3Settings& settings, const std::string& warehouse) {
  RETURN_IF_ERROR(ParseS3Location(warehouse).status());
  ASSIGN_OR_RETURN(S3Client::Options options, ClientOptions(settings));
  ASSIGN_OR_RETURN(std::unique_ptr<S3FileIO> io, S3FileIO::Make(std::move(options)));
  S3Warehouse out;
  out.client_config = ClientProperties(settings);
  if (settings.conditional_writes == "probe") {
    ASSIGN_OR_RETURN(ConditionalWriteProbe probe, io->ProbeConditionalWrites(warehouse));
    out.conditional_writes = probe.detail;
  } else {
    io->SetConditionalWrites(settings.conditional_writes == "on");
    out.conditional_writes = settings.conditional_writes + " (not probed)";
  }
  out.file_io = std::move(io);
  return out;
}

}  // namespace cairn::engine
