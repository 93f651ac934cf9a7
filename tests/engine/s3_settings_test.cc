// S3Settings: precedence of the AWS_* variables, validation, and the config clients receive.

#include "engine/s3_settings.h"

#include <doctest/doctest.h>

#include <map>
#include <string>

#include "tests/engine/table_fixtures.h"

namespace cairn::engine {
namespace {

// A fake environment for ApplyAwsEnvironment.
struct FakeEnv {
  std::map<std::string, std::string> vars;
  const char* operator()(const char* name) const {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  }
};

TEST_CASE("AWS variables fill only what the operator left unset") {
  FakeEnv env{{{"AWS_ENDPOINT_URL", "http://generic:1"},
               {"AWS_ENDPOINT_URL_S3", "http://s3-specific:2"},
               {"AWS_DEFAULT_REGION", "eu-west-1"},
               {"AWS_ACCESS_KEY_ID", "AKID"},
               {"AWS_SECRET_ACCESS_KEY", "SECRET"},
               {"AWS_SESSION_TOKEN", "TOKEN"}}};
  S3Settings s;
  ApplyAwsEnvironment(&s, env);
  CHECK(s.endpoint == "http://s3-specific:2");
  CHECK(s.region == "eu-west-1");
  CHECK(s.access_key_id == "AKID");
  CHECK(s.secret_access_key == "SECRET");
  CHECK(s.session_token == "TOKEN");

  env.vars["AWS_REGION"] = "ap-south-1";
  S3Settings given;
  given.endpoint = "http://flag:3";
  given.access_key_id = "FLAGKEY";
  given.secret_access_key = "FLAGSECRET";
  ApplyAwsEnvironment(&given, env);
  CHECK(given.endpoint == "http://flag:3");
  CHECK(given.region == "ap-south-1");
  CHECK(given.access_key_id == "FLAGKEY");
  CHECK(given.secret_access_key == "FLAGSECRET");
  CHECK(given.session_token.empty());  // a key pair and its token come from one place
}

TEST_CASE("client options default the region and refuse half a key pair") {
  S3Settings s;
  Result<S3Client::Options> o = ClientOptions(s);
  REQUIRE_OK(o);
  CHECK(o->region == "us-east-1");
  CHECK(o->credentials.access_key_id.empty());
  s.access_key_id = "AKID";
  CHECK_STATUS(ClientOptions(s), kInvalidArgument, "both an access key id and a secret");
  s.secret_access_key = "SECRET";
  s.conditional_writes = "maybe";
  CHECK_STATUS(ClientOptions(s), kInvalidArgument, "probe, on or off");
}

TEST_CASE("clients get the endpoint they reach, region, addressing style and vended keys") {
  S3Settings s;
  s.endpoint = "http://s3:8333";
  s.region = "eu-central-1";
  s.path_style = true;
  s.access_key_id = "AKID";
  s.secret_access_key = "SECRET";
  CHECK(ClientProperties(s) == Properties{{"s3.endpoint", "http://s3:8333"},
                                          {"s3.region", "eu-central-1"},
                                          {"s3.path-style-access", "true"},
                                          {"s3.force-virtual-addressing", "false"}});
  s.client_endpoint = "http://localhost:8333";
  s.vend_credentials = true;
  s.session_token = "TOKEN";
  CHECK(ClientProperties(s) == Properties{{"s3.endpoint", "http://localhost:8333"},
                                          {"s3.region", "eu-central-1"},
                                          {"s3.path-style-access", "true"},
                                          {"s3.force-virtual-addressing", "false"},
                                          {"s3.access-key-id", "AKID"},
                                          {"s3.secret-access-key", "SECRET"},
                                          {"s3.session-token", "TOKEN"}});
  S3Settings aws;
  CHECK(ClientProperties(aws) == Properties{{"s3.region", "us-east-1"},
                                            {"s3.path-style-access", "false"},
                                            {"s3.force-virtual-addressing", "true"}});
}

TEST_CASE("an s3 warehouse needs an s3:// location and valid settings") {
  S3Settings s;
  CHECK_STATUS(OpenS3Warehouse(s, "file:///w"), kInvalidArgument, "not an s3:// location");
  s.endpoint = "ftp://x";
  CHECK_STATUS(OpenS3Warehouse(s, "s3://b/w"), kInvalidArgument, "http:// or https://");
  s.endpoint = "http://127.0.0.1:1";
  s.conditional_writes = "off";
  Result<S3Warehouse> w = OpenS3Warehouse(s, "s3://b/w");  // not probed: no request sent
  REQUIRE_OK(w);
  CHECK(w->conditional_writes == "off (not probed)");
  CHECK_FALSE(w->file_io->SupportsPutIfAbsent());
}

TEST_CASE("boolean settings accept the usual spellings") {
  CHECK(ParseBoolSetting("f", "true").value());
  CHECK(ParseBoolSetting("f", "on").value());
  CHECK_FALSE(ParseBoolSetting("f", "0").value());
  CHECK_FALSE(ParseBoolSetting("f", "").value());
  CHECK_STATUS(ParseBoolSetting("s3-path-style", "sometimes"), kInvalidArgument,
               "--s3-path-style must be true or false");
}

}  // namespace
}  // namespace cairn::engine
