// S3FileIO against a real S3-compatible server: the FileIO contract suite (file_io_contract.h),
// the conditional-write probe, and what only S3 has (key encoding, signing, addressing).
//
// The server is the one tests/support/s3.sh starts (./run.sh test does), named by
// CAIRN_TEST_S3_ENDPOINT, _REGION, _BUCKET, _ACCESS_KEY_ID and _SECRET_ACCESS_KEY. Without them
// every case fails: these tests never skip.

#include "engine/s3_file_io.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "engine/clock.h"
#include "tests/engine/file_io_contract.h"
#include "tests/engine/table_fixtures.h"

namespace cairn::engine {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  REQUIRE_MESSAGE(v != nullptr, std::string(name)
                                    << " is not set: run ./run.sh test, or start a server with "
                                       "eval \"$(tests/support/s3.sh start DIR)\"");
  return v;
}

S3Client::Options TestOptions() {
  S3Client::Options o;
  o.endpoint = Env("CAIRN_TEST_S3_ENDPOINT");
  o.region = Env("CAIRN_TEST_S3_REGION");
  o.credentials.access_key_id = Env("CAIRN_TEST_S3_ACCESS_KEY_ID");
  o.credentials.secret_access_key = Env("CAIRN_TEST_S3_SECRET_ACCESS_KEY");
  o.path_style = true;
  o.backoff_ms = 5;
  return o;
}

std::unique_ptr<S3FileIO> MakeIO(S3Client::Options options) {
  auto io = S3FileIO::Make(std::move(options));
  REQUIRE_OK(io);
  return std::move(io).value();
}

std::string Bucket() { return Env("CAIRN_TEST_S3_BUCKET"); }

// A fresh prefix of the test bucket for one case; everything below it is deleted after.
struct S3Backend {
  S3Backend() : owned(MakeIO(TestOptions())), io(*owned) {
    static RandomIdGenerator ids;
    root = "s3://" + Bucket() + "/contract-" + ids.NewUuid();
    Result<ConditionalWriteProbe> probe = io.ProbeConditionalWrites(root);
    REQUIRE_OK(probe);
  }
  ~S3Backend() {
    Result<std::vector<std::string>> left = io.List(root);
    if (!left.ok()) return;
    for (const std::string& loc : *left) io.Delete(loc);
  }
  S3Backend(const S3Backend&) = delete;
  S3Backend& operator=(const S3Backend&) = delete;

  std::unique_ptr<S3FileIO> owned;
  S3FileIO& io;
  std::string root;
};

}  // namespace

CAIRN_FILE_IO_CONTRACT(S3Backend);

namespace {

TEST_CASE("the probe finds that the test server refuses a second If-None-Match: * write") {
  S3Backend b;
  b.io.SetConditionalWrites(false);
  Result<ConditionalWriteProbe> probe = b.io.ProbeConditionalWrites(b.root);
  REQUIRE_OK(probe);
  CHECK(probe->honoured);
  CHECK(probe->detail == "honoured (second PUT answered 412)");
  CHECK(b.io.SupportsPutIfAbsent());
  CHECK(b.io.List(b.root).value().empty());  // the probe object is gone

  // The same, by hand: the server really keeps the first object and answers 412.
  S3Client& c = b.io.client();
  std::string key = b.root.substr(b.root.find('/', 5) + 1) + "/twice";
  S3Request put{"PUT", Bucket(), key, {}, {{"If-None-Match", "*"}}, "first"};
  CHECK(c.Send(put).status == 200);
  put.body = "second";
  S3Response again = c.Send(put);
  CHECK(again.status == 412);
  CHECK(S3ErrorCode(again.body) == "PreconditionFailed");
  CHECK(b.io.Read(b.root + "/twice").value() == "first");
}

TEST_CASE("without conditional writes WriteNew still refuses a key it can see") {
  S3Backend b;
  b.io.SetConditionalWrites(false);
  CHECK_FALSE(b.io.SupportsPutIfAbsent());
  REQUIRE_OK(b.io.WriteNew(b.root + "/a.json", "first"));
  CHECK_STATUS(b.io.WriteNew(b.root + "/a.json", "second"), kAlreadyExists, "a.json");
  CHECK(b.io.Read(b.root + "/a.json").value() == "first");
}

TEST_CASE("keys with spaces, reserved and non-ASCII characters round-trip") {
  S3Backend b;
  const std::vector<std::string> names = {
      "a b.json",    "plus+sign", "dollar$amp&eq=",    "per%cent",          "tilde~star*",
      "caf\xc3\xa9", "q?hash#",   "semi;comma,colon:", "p=1/deep/f.parquet"};
  for (const std::string& name : names) {
    CAPTURE(name);
    const std::string loc = b.root + "/" + name;
    REQUIRE_OK(b.io.WriteNew(loc, "content of " + name));
    CHECK(b.io.Read(loc).value() == "content of " + name);
    CHECK(b.io.Exists(loc).value());
  }
  std::vector<std::string> expected;
  for (const std::string& name : names) expected.push_back(b.root + "/" + name);
  std::vector<std::string> listed = b.io.List(b.root).value();
  std::sort(listed.begin(), listed.end());
  std::sort(expected.begin(), expected.end());
  CHECK(listed == expected);
}

TEST_CASE("List follows continuation tokens past the first page of 1000 keys") {
  S3Backend b;
  constexpr int kFiles = 1010, kThreads = 8;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = t; i < kFiles; i += kThreads) {
        CHECK(b.io.WriteNew(b.root + "/many/" + std::to_string(i), "x").ok());
      }
    });
  }
  for (std::thread& t : threads) t.join();
  Result<std::vector<std::string>> listed = b.io.List(b.root + "/many");
  REQUIRE_OK(listed);
  CHECK(listed->size() == kFiles);
}

TEST_CASE("a wrong secret is refused by the server as access denied") {
  S3Backend b;
  REQUIRE_OK(b.io.WriteNew(b.root + "/secret.json", "x"));
  S3Client::Options o = TestOptions();
  o.credentials.secret_access_key = "not-the-secret";
  std::unique_ptr<S3FileIO> wrong = MakeIO(o);
  CHECK_STATUS(wrong->Read(b.root + "/secret.json"), kIOError, "access denied");
  CHECK_STATUS(wrong->Read(b.root + "/secret.json"), kIOError, "SignatureDoesNotMatch");
  CHECK_STATUS(wrong->WriteNew(b.root + "/other.json", "x"), kIOError, "403");
  CHECK_FALSE(b.io.Exists(b.root + "/other.json").value());
}

TEST_CASE("a missing bucket is NotFound, named as a bucket") {
  std::unique_ptr<S3FileIO> io = MakeIO(TestOptions());
  CHECK_STATUS(io->Read("s3://no-such-bucket-for-cairn/k"), kNotFound, "NoSuchBucket");
  CHECK_FALSE(io->Exists("s3://no-such-bucket-for-cairn/k").value());
}

// Needs a server that takes the bucket from a Host of <bucket>.s3.cairn.test: moto does by
// default, SeaweedFS with -s3.domainName=s3.cairn.test.
TEST_CASE("virtual-host addressing reaches the same objects as path style") {
  S3Backend b;
  REQUIRE_OK(b.io.WriteNew(b.root + "/vhost.json", "via path style"));
  S3Client::Options o = TestOptions();
  // http://s3.cairn.test:PORT, with <bucket>.s3.cairn.test resolved to the server's address.
  std::string endpoint = o.endpoint;
  std::string port = endpoint.substr(endpoint.rfind(':') + 1);
  o.endpoint = "http://s3.cairn.test:" + port;
  o.resolve = {{Bucket() + ".s3.cairn.test", "127.0.0.1"}};
  o.path_style = false;
  std::unique_ptr<S3FileIO> vhost = MakeIO(o);
  CHECK(vhost->client().TargetOf(Bucket(), "k").host == Bucket() + ".s3.cairn.test:" + port);
  CHECK(vhost->Read(b.root + "/vhost.json").value() == "via path style");
  REQUIRE_OK(vhost->WriteNew(b.root + "/vhost2.json", "via virtual host"));
  CHECK(b.io.Read(b.root + "/vhost2.json").value() == "via virtual host");
  CHECK(vhost->List(b.root).value().size() == 2);
}

TEST_CASE("S3FileIO refuses locations that are not s3://bucket/key") {
  std::unique_ptr<S3FileIO> io = MakeIO(TestOptions());
  CHECK_STATUS(io->Read("file:///etc/passwd"), kInvalidArgument, "file:///etc/passwd");
  CHECK_STATUS(io->WriteNew("s3:///key", "x"), kInvalidArgument, "no bucket");
  CHECK_STATUS(io->WriteNew("s3://" + Bucket(), "x"), kInvalidArgument, "not an object");
  CHECK_STATUS(io->WriteNew("s3://" + Bucket() + "/dir/", "x"), kInvalidArgument, "not an object");
}

}  // namespace
}  // namespace cairn::engine
