// SigV4 against the examples AWS publishes in "Signature Calculations for the Authorization
// Header: Transferring Payload in a Single Chunk" (Amazon S3 API reference): the canonical
// request, string to sign and signature must match the documented text byte for byte.

#include "engine/sigv4.h"

#include <doctest/doctest.h>

#include <memory>

#include "engine/clock.h"
#include "engine/s3_client.h"

namespace cairn::engine {
namespace {

// The documentation's credentials and request time (Fri, 24 May 2013 00:00:00 GMT).
const AwsCredentials kExampleCredentials{"AKIAIOSFODNN7EXAMPLE",
                                         "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""};
constexpr const char* kExampleDate = "20130524T000000Z";
constexpr int64_t kExampleMillis = 1369353600000;
constexpr const char* kHost = "examplebucket.s3.amazonaws.com";
constexpr const char* kEmptyHash =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

SigV4Request ExampleRequest(std::string method, std::string uri, std::string payload_hash) {
  SigV4Request r;
  r.method = std::move(method);
  r.canonical_uri = std::move(uri);
  r.payload_sha256 = payload_hash;
  r.headers = {
      {"Host", kHost}, {"x-amz-content-sha256", payload_hash}, {"x-amz-date", kExampleDate}};
  return r;
}

TEST_CASE("the GET Object example signs byte for byte as documented") {
  SigV4Request r = ExampleRequest("GET", "/test.txt", kEmptyHash);
  r.headers.emplace_back("Range", "bytes=0-9");
  SigV4Signature s = SignV4(r, kExampleCredentials, "us-east-1", "s3", kExampleDate);
  CHECK(s.canonical_request ==
        "GET\n"
        "/test.txt\n"
        "\n"
        "host:examplebucket.s3.amazonaws.com\n"
        "range:bytes=0-9\n"
        "x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
        "x-amz-date:20130524T000000Z\n"
        "\n"
        "host;range;x-amz-content-sha256;x-amz-date\n"
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(s.string_to_sign ==
        "AWS4-HMAC-SHA256\n"
        "20130524T000000Z\n"
        "20130524/us-east-1/s3/aws4_request\n"
        "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  CHECK(s.signature == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  CHECK(s.authorization ==
        "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
        "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
        "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
}

TEST_CASE("the PUT Object example signs byte for byte, with the key's $ encoded once") {
  const std::string body = "Welcome to Amazon S3.";
  const std::string hash = Sha256Hex(body);
  CHECK(hash == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  SigV4Request r = ExampleRequest("PUT", "/" + UriEncode("test$file.text", false), hash);
  r.headers.emplace_back("Date", "Fri, 24 May 2013 00:00:00 GMT");
  r.headers.emplace_back("x-amz-storage-class", "REDUCED_REDUNDANCY");
  SigV4Signature s = SignV4(r, kExampleCredentials, "us-east-1", "s3", kExampleDate);
  CHECK(s.canonical_request ==
        "PUT\n"
        "/test%24file.text\n"
        "\n"
        "date:Fri, 24 May 2013 00:00:00 GMT\n"
        "host:examplebucket.s3.amazonaws.com\n"
        "x-amz-content-sha256:44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072\n"
        "x-amz-date:20130524T000000Z\n"
        "x-amz-storage-class:REDUCED_REDUNDANCY\n"
        "\n"
        "date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class\n"
        "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  CHECK(s.string_to_sign ==
        "AWS4-HMAC-SHA256\n"
        "20130524T000000Z\n"
        "20130524/us-east-1/s3/aws4_request\n"
        "9e0e90d9c76de8fa5b200d8c849cd5b8dc7a3be3951ddb7f6a76b4158342019d");
  CHECK(s.signature == "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

TEST_CASE("the GET Bucket Lifecycle example signs a bare query name as name=") {
  SigV4Request r = ExampleRequest("GET", "/", kEmptyHash);
  r.query = {{"lifecycle", ""}};
  SigV4Signature s = SignV4(r, kExampleCredentials, "us-east-1", "s3", kExampleDate);
  CHECK(s.canonical_request ==
        "GET\n"
        "/\n"
        "lifecycle=\n"
        "host:examplebucket.s3.amazonaws.com\n"
        "x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
        "x-amz-date:20130524T000000Z\n"
        "\n"
        "host;x-amz-content-sha256;x-amz-date\n"
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(s.string_to_sign ==
        "AWS4-HMAC-SHA256\n"
        "20130524T000000Z\n"
        "20130524/us-east-1/s3/aws4_request\n"
        "9766c798316ff2757b517bc739a67f6213b4ab36dd5da2f94eaebf79c77395ca");
  CHECK(s.signature == "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543");
}

TEST_CASE("the List Objects example sorts its query parameters") {
  SigV4Request r = ExampleRequest("GET", "/", kEmptyHash);
  r.query = {{"prefix", "J"}, {"max-keys", "2"}};
  SigV4Signature s = SignV4(r, kExampleCredentials, "us-east-1", "s3", kExampleDate);
  CHECK(s.canonical_request ==
        "GET\n"
        "/\n"
        "max-keys=2&prefix=J\n"
        "host:examplebucket.s3.amazonaws.com\n"
        "x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n"
        "x-amz-date:20130524T000000Z\n"
        "\n"
        "host;x-amz-content-sha256;x-amz-date\n"
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(s.string_to_sign ==
        "AWS4-HMAC-SHA256\n"
        "20130524T000000Z\n"
        "20130524/us-east-1/s3/aws4_request\n"
        "df57d21db20da04d7fa30298dd4488ba3a2b47ca3a489c74750e0f1e7df1b9b7");
  CHECK(s.signature == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7");
}

TEST_CASE("AmzDate formats a Clock's milliseconds in UTC") {
  CHECK(AmzDate(kExampleMillis) == kExampleDate);
  CHECK(AmzDate(kExampleMillis + 999) == kExampleDate);
  CHECK(AmzDate(0) == "19700101T000000Z");
  CHECK(AmzDate(1767225599000) == "20251231T235959Z");
}

TEST_CASE("UriEncode keeps unreserved characters and encodes the rest in uppercase hex") {
  CHECK(UriEncode("A-z_0.9~", true) == "A-z_0.9~");
  CHECK(UriEncode("a b+c", false) == "a%20b%2Bc");
  CHECK(UriEncode("100%", false) == "100%25");
  CHECK(UriEncode("a/b", false) == "a/b");
  CHECK(UriEncode("a/b", true) == "a%2Fb");
  CHECK(UriEncode("=&?#*", true) == "%3D%26%3F%23%2A");
  CHECK(UriEncode("\xd0\xba", true) == "%D0%BA");
}

TEST_CASE("header values are trimmed and inner runs of spaces collapsed before signing") {
  SigV4Request a = ExampleRequest("GET", "/k", kEmptyHash);
  a.headers.emplace_back("X-Amz-Meta-Note", "  one   two ");
  SigV4Request b = ExampleRequest("GET", "/k", kEmptyHash);
  b.headers.emplace_back("x-amz-meta-note", "one two");
  SigV4Signature sa = SignV4(a, kExampleCredentials, "us-east-1", "s3", kExampleDate);
  SigV4Signature sb = SignV4(b, kExampleCredentials, "us-east-1", "s3", kExampleDate);
  CHECK(sa.canonical_request == sb.canonical_request);
  CHECK(sa.signature == sb.signature);
  CHECK(sa.canonical_request.find("x-amz-meta-note:one two\n") != std::string::npos);
}

TEST_CASE("every signed input changes the signature") {
  SigV4Request base = ExampleRequest("PUT", "/k", kEmptyHash);
  const std::string sig =
      SignV4(base, kExampleCredentials, "us-east-1", "s3", kExampleDate).signature;
  SigV4Request other_body = base;
  other_body.payload_sha256 = Sha256Hex("x");
  CHECK(SignV4(other_body, kExampleCredentials, "us-east-1", "s3", kExampleDate).signature != sig);
  SigV4Request conditional = base;
  conditional.headers.emplace_back("If-None-Match", "*");
  SigV4Signature c = SignV4(conditional, kExampleCredentials, "us-east-1", "s3", kExampleDate);
  CHECK(c.signature != sig);
  CHECK(c.signed_headers == "host;if-none-match;x-amz-content-sha256;x-amz-date");
  CHECK(SignV4(base, kExampleCredentials, "eu-west-1", "s3", kExampleDate).signature != sig);
  CHECK(SignV4(base, kExampleCredentials, "us-east-1", "s3", "20130525T000000Z").signature != sig);
}

TEST_CASE("the S3 client addresses buckets virtual-host or path style") {
  S3Client::Options o;
  o.region = "eu-west-1";
  auto aws = S3Client::Make(o);
  REQUIRE(aws.ok());
  S3Target t = (*aws)->TargetOf("my-bucket", "db/t/metadata/00001-x y.json");
  CHECK(t.base_url == "https://my-bucket.s3.eu-west-1.amazonaws.com:443");
  CHECK(t.host == "my-bucket.s3.eu-west-1.amazonaws.com");
  CHECK(t.path == "/db/t/metadata/00001-x%20y.json");

  o.endpoint = "http://127.0.0.1:9000/";
  o.path_style = true;
  auto local = S3Client::Make(o);
  REQUIRE(local.ok());
  t = (*local)->TargetOf("my-bucket", "a/b$c");
  CHECK(t.base_url == "http://127.0.0.1:9000");
  CHECK(t.host == "127.0.0.1:9000");
  CHECK(t.path == "/my-bucket/a/b%24c");

  o.endpoint = "http://store.test";
  o.path_style = false;
  auto named = S3Client::Make(o);
  REQUIRE(named.ok());
  t = (*named)->TargetOf("b", "");
  CHECK(t.base_url == "http://b.store.test:80");
  CHECK(t.host == "b.store.test");
  CHECK(t.path == "/");
}

TEST_CASE("the S3 client refuses endpoints it cannot use") {
  S3Client::Options o;
  for (const char* bad :
       {"127.0.0.1:9000", "ftp://h", "http://", "http://h:0", "http://h:x", "http://h/path"}) {
    CAPTURE(bad);
    o.endpoint = bad;
    CHECK(S3Client::Make(o).status().code() == Status::Code::kInvalidArgument);
  }
  o.endpoint = "";
  o.region = "";
  CHECK(S3Client::Make(o).status().code() == Status::Code::kInvalidArgument);
}

TEST_CASE("S3 error bodies and listings are read from their XML") {
  const std::string error =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>AccessDenied</Code>"
      "<Message>Access &amp; &lt;denied&gt;</Message><RequestId>1</RequestId></Error>";
  CHECK(S3ErrorCode(error) == "AccessDenied");
  CHECK(S3ErrorMessage(error) == "Access & <denied>");
  CHECK(S3ErrorCode("") == "");
  const std::string list =
      "<ListBucketResult><Contents><Key>w/a&amp;b.json</Key></Contents>"
      "<Contents><Key>w/&#233;t&#xE9;</Key></Contents></ListBucketResult>";
  CHECK(XmlElements(list, "Key") == std::vector<std::string>{"w/a&b.json", "w/\xc3\xa9t\xc3\xa9"});
}

}  // namespace
}  // namespace cairn::engine
