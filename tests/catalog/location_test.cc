// NormalizeLocation, IsWithin, TrimLocation and JoinLocation: one spelling per location, and
// confinement of client-supplied locations to a root.

#include <string>

#include "catalog/location.h"
#include "tests/catalog/test_support.h"

namespace cairn::catalog {
namespace {

TEST_CASE("every spelling of a local location normalizes to file:///") {
  CHECK(NormalizeLocation("file:///a/b") == "file:///a/b");
  CHECK(NormalizeLocation("file:/a/b") == "file:///a/b");
  CHECK(NormalizeLocation("/a/b") == "file:///a/b");
  CHECK(NormalizeLocation("file:/a/b/") == "file:///a/b");
  CHECK(NormalizeLocation("file:///a/b///") == "file:///a/b");
  CHECK(NormalizeLocation("file:///a//b") == "file:///a/b");
  CHECK(NormalizeLocation("//a/b") == "file:///a/b");
}

TEST_CASE("the local root keeps its slashes") {
  CHECK(NormalizeLocation("/") == "file:///");
  CHECK(NormalizeLocation("file:/") == "file:///");
  CHECK(NormalizeLocation("file:///") == "file:///");
}

TEST_CASE("other schemes only lose trailing slashes") {
  CHECK(NormalizeLocation("s3://bucket/warehouse/") == "s3://bucket/warehouse");
  CHECK(NormalizeLocation("s3://bucket/warehouse") == "s3://bucket/warehouse");
  CHECK(NormalizeLocation("s3://bucket//key") == "s3://bucket//key");
  CHECK(NormalizeLocation("gs://bucket/a/b//") == "gs://bucket/a/b");
}

TEST_CASE("normalizing is idempotent") {
  for (const char* location : {"file:/a/b/", "/a//b", "file:///", "s3://bucket/k/", "/"}) {
    const std::string once = NormalizeLocation(location);
    CHECK_MESSAGE(NormalizeLocation(once) == once, location);
  }
}

TEST_CASE("a location is within its root and below it") {
  CHECK(IsWithin("file:///w", "file:///w"));
  CHECK(IsWithin("file:///w/t", "file:///w"));
  CHECK(IsWithin("file:///w/db/t/metadata/00001-x.metadata.json", "file:///w"));
  CHECK(IsWithin("file:///w/t/", "file:///w/"));
  CHECK(IsWithin("s3://bucket/w/t", "s3://bucket/w"));
  CHECK(IsWithin("s3://bucket/w/t", "s3://bucket/w/"));
  CHECK(IsWithin("file:///anything", "file:///"));
}

TEST_CASE("local spellings are compared after normalizing") {
  CHECK(IsWithin("file:/w/t", "file:///w"));
  CHECK(IsWithin("/w/t", "file:///w"));
  CHECK(IsWithin("file:///w/t", "file:/w"));
  CHECK(IsWithin("file:///w/t", "/w"));
  CHECK(IsWithin("file:/w//t", "file:///w/"));
}

TEST_CASE("a sibling sharing the root's prefix is not within it") {
  CHECK_FALSE(IsWithin("file:///w2", "file:///w"));
  CHECK_FALSE(IsWithin("file:///w2/t", "file:///w"));
  CHECK_FALSE(IsWithin("/w2/t", "/w"));
  CHECK_FALSE(IsWithin("file:///warehouse-other/t", "file:///warehouse"));
  CHECK_FALSE(IsWithin("s3://bucket/w2/t", "s3://bucket/w"));
  CHECK_FALSE(IsWithin("s3://bucket-2/w/t", "s3://bucket"));
}

TEST_CASE("a location above or beside the root is not within it") {
  CHECK_FALSE(IsWithin("file:///", "file:///w"));
  CHECK_FALSE(IsWithin("file:///other/t", "file:///w"));
  CHECK_FALSE(IsWithin("file:///w", "file:///w/t"));
}

TEST_CASE("a location with a dot or dot-dot segment is never within a root") {
  CHECK_FALSE(IsWithin("file:///w/../etc/passwd", "file:///w"));
  CHECK_FALSE(IsWithin("file:///w/t/../../etc", "file:///w"));
  CHECK_FALSE(IsWithin("file:///w/..", "file:///w"));
  CHECK_FALSE(IsWithin("file:///w/../w/t", "file:///w"));
  CHECK_FALSE(IsWithin("/w/t/../../x", "/w"));
  CHECK_FALSE(IsWithin("file:///w/./t", "file:///w"));
  CHECK_FALSE(IsWithin("file:///w/t/.", "file:///w"));
  CHECK_FALSE(IsWithin("s3://bucket/w/../x", "s3://bucket/w"));
  CHECK_FALSE(IsWithin("file:///w/t/..", "file:///"));
}

TEST_CASE("names that merely start with dots are allowed") {
  CHECK(IsWithin("file:///w/.hidden", "file:///w"));
  CHECK(IsWithin("file:///w/..data/t", "file:///w"));
  CHECK(IsWithin("file:///w/t/...", "file:///w"));
  CHECK(IsWithin("file:///w/t.v2/x", "file:///w"));
}

TEST_CASE("a location of another scheme is not within a root") {
  CHECK_FALSE(IsWithin("s3://bucket/w/t", "file:///w"));
  CHECK_FALSE(IsWithin("file:///w/t", "s3://bucket/w"));
  CHECK_FALSE(IsWithin("s3a://bucket/w/t", "s3://bucket/w"));
}

TEST_CASE("trimming keeps a location as spelled but for trailing slashes") {
  CHECK(TrimLocation("file:///w/t/") == "file:///w/t");
  CHECK(TrimLocation("file:/w/t//") == "file:/w/t");
  CHECK(TrimLocation("/w/t") == "/w/t");
  CHECK(TrimLocation("s3://bucket/w/") == "s3://bucket/w");
  CHECK(TrimLocation("/") == "/");
}

TEST_CASE("joining adds exactly one slash") {
  CHECK(JoinLocation("file:///w", "t") == "file:///w/t");
  CHECK(JoinLocation("file:///w/", "t") == "file:///w/t");
  CHECK(JoinLocation("file:///w//", "db/t") == "file:///w/db/t");
  CHECK(JoinLocation("s3://bucket", "t") == "s3://bucket/t");
}

}  // namespace
}  // namespace cairn::catalog
