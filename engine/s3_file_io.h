#pragma once

// S3FileIO: FileIO over S3 or an S3-compatible store, for "s3://bucket/key" locations.
//
// Read is a GET, Exists a HEAD, Delete a DELETE, List a paginated ListObjectsV2 of
// "<key>/" (every object below, at any depth). All four are idempotent and retried on transient
// failures (S3Client). WriteNew is one PUT of the whole object, and is durable when S3
// answers 200: S3 has stored the bytes, whose SHA-256 it checked against the signed
// x-amz-content-sha256.
//
// WriteNew and put-if-absent. With conditional writes on, the PUT carries If-None-Match: *,
// and a store that honours it answers 412 (or 409) when the key exists: AlreadyExists, and
// the first object stays. A PUT retried after a transient failure that then meets 412 reads
// the object back: if it holds our bytes, the earlier try landed and WriteNew is OK. With
// conditional writes off (a store that ignores or rejects the header), WriteNew checks with a
// HEAD that the key is free and then sends a plain PUT: the check is racy, so two writers of
// the same new key could both succeed, the later one winning. cairn only ever writes fresh,
// uuid-named files and commits through the metastore's compare-and-swap, so its correctness
// does not depend on put-if-absent; SupportsPutIfAbsent() tells callers which case holds.
//
// Conditional writes start on (AWS S3 has honoured If-None-Match: * since 2024); call
// ProbeConditionalWrites() once at startup to learn what the store really does, or
// SetConditionalWrites() to state it.
//
// Errors: NotFound for a missing object (404); AlreadyExists as above; Unavailable when the
// store stays unreachable, times out or answers 429/5xx after every retry; IOError for access
// denied (403), a wrong region (301/400) and anything else, with S3's error code and message;
// InvalidArgument for a location that is not s3://bucket/key. After a failed WriteNew whose
// outcome is unknown, the object is deleted (best effort) so nothing is left at the location.
//
// Thread-safe.

#include <atomic>
#include <memory>

#include "engine/clock.h"
#include "engine/file_io.h"
#include "engine/s3_client.h"

namespace cairn::engine {

struct S3Location {
  std::string bucket;
  std::string key;  // "" for the bucket itself
};

// Splits "s3://bucket/key"; InvalidArgument for another scheme or an empty bucket.
Result<S3Location> ParseS3Location(const std::string& location);

// What a probe of If-None-Match: * found.
struct ConditionalWriteProbe {
  // True when a second PUT with If-None-Match: * of the same key was refused (412/409).
  bool honoured = false;
  // "honoured (second PUT answered 412)", "ignored (second PUT overwrote the object)",
  // "rejected (first PUT answered 501 NotImplemented)".
  std::string detail;
};

class S3FileIO final : public FileIO {
 public:
  // InvalidArgument for bad client options (see S3Client::Make).
  static Result<std::unique_ptr<S3FileIO>> Make(S3Client::Options options);

  Result<std::string> Read(const std::string& location) override;
  Status WriteNew(const std::string& location, std::string_view data) override;
  Status Delete(const std::string& location) override;
  Result<bool> Exists(const std::string& location) override;
  Result<std::vector<std::string>> List(const std::string& prefix) override;
  bool SupportsPutIfAbsent() const override { return conditional_.load(); }

  // Writes a fresh object below `prefix` twice with If-None-Match: *, deletes it, and turns
  // conditional writes on if the store refused the second write, off otherwise. Errors when
  // the store cannot be written at all (IOError for 403, Unavailable, ...).
  Result<ConditionalWriteProbe> ProbeConditionalWrites(const std::string& prefix);

  // States whether the store honours If-None-Match: * (skips the probe).
  void SetConditionalWrites(bool on) { conditional_ = on; }

  S3Client& client() { return *client_; }

 private:
  explicit S3FileIO(std::unique_ptr<S3Client> client) : client_(std::move(client)) {}

  // One PUT of `data` at `loc`, with If-None-Match: * when `conditional`.
  S3Response Put(const S3Location& loc, std::string_view data, bool conditional);

  std::unique_ptr<S3Client> client_;
  std::atomic<bool> conditional_{true};
  RandomIdGenerator ids_;
};

// The Status for a failed S3 response to `op` ("read", "write", ...) on `location`.
Status S3Failure(const S3Response& response, const std::string& op, const std::string& location);

}  // namespace cairn::engine
