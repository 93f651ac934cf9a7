#include "engine/s3_file_io.h"

namespace cairn::engine {
namespace {

bool Ok(int status) { return status == 200 || status == 204 || status == 206; }

bool Refused(int status) { return status == 412 || status == 409; }

// A store that does not implement If-None-Match on PUT says so with 501 or 400.
bool HeaderRejected(const S3Response& res) { return res.status == 501 || res.status == 400; }

std::string ProbeKey(const std::string& prefix_key, const std::string& uuid) {
  std::string key = prefix_key;
  while (!key.empty() && key.back() == '/') key.pop_back();
  return (key.empty() ? "" : key + "/") + ".cairn-probe-" + uuid;
}

}  // namespace

Result<S3Location> ParseS3Location(const std::string& location) {
  if (location.rfind("s3://", 0) != 0) {
    return Status::InvalidArgument("not an s3:// location: " + location);
  }
  std::string rest = location.substr(5);
  size_t slash = rest.find('/');
  S3Location out;
  out.bucket = rest.substr(0, slash);
  if (slash != std::string::npos) out.key = rest.substr(slash + 1);
  if (out.bucket.empty()) return Status::InvalidArgument("no bucket in location: " + location);
  return out;
}

Status S3Failure(const S3Response& res, const std::string& op, const std::string& location) {
  std::string tries = res.attempts > 1 ? " after " + std::to_string(res.attempts) + " tries" : "";
  if (res.status == 0) {
    return Status::Unavailable("S3 " + op + " of " + location + ": " + res.transport_error + tries);
  }
  std::string code = S3ErrorCode(res.body);
  std::string message = S3ErrorMessage(res.body);
  std::string what = "S3 " + op + " of " + location + ": HTTP " + std::to_string(res.status) +
                     (code.empty() ? "" : " " + code) + (message.empty() ? "" : ": " + message);
  if (res.status == 404) {
    if (code == "NoSuchBucket") return Status::NotFound(what);
    return Status::NotFound("no such file: " + location);
  }
  if (res.status == 403) return Status::IOError("access denied: " + what);
  if (res.status == 429 || res.status >= 500) return Status::Unavailable(what + tries);
  if (!res.bucket_region.empty()) {
    return Status::IOError(what + " (the bucket is in region " + res.bucket_region + ")");
  }
  return Status::IOError(what);
}

Result<std::unique_ptr<S3FileIO>> S3FileIO::Make(S3Client::Options options) {
  ASSIGN_OR_RETURN(std::unique_ptr<S3Client> client, S3Client::Make(std::move(options)));
  return std::unique_ptr<S3FileIO>(new S3FileIO(std::move(client)));
}

S3Response S3FileIO::Put(const S3Location& loc, std::string_view data, bool conditional) {
  S3Request req{"PUT", loc.bucket, loc.key, {}, {}, data};
  if (conditional) req.headers.emplace_back("If-None-Match", "*");
  return client_->Send(req);
}

Result<std::string> S3FileIO::Read(const std::string& location) {
  ASSIGN_OR_RETURN(S3Location loc, ParseS3Location(location));
  S3Response res = client_->Send({"GET", loc.bucket, loc.key, {}, {}, {}});
  if (res.status != 200) return S3Failure(res, "read", location);
  return std::move(res.body);
}

Status S3FileIO::WriteNew(const std::string& location, std::string_view data) {
  ASSIGN_OR_RETURN(S3Location loc, ParseS3Location(location));
  if (loc.key.empty() || loc.key.back() == '/') {
    return Status::InvalidArgument("not an object location: " + location);
  }
  bool conditional = conditional_.load();
  if (!conditional) {
    ASSIGN_OR_RETURN(bool exists, Exists(location));
    if (exists) return Status::AlreadyExists("file exists: " + location);
  }
  S3Response res = Put(loc, data, conditional);
  if (res.status == 200) return Status::OK();
  if (conditional && Refused(res.status)) {
    if (res.attempts > 1) {
      // An earlier try may have landed before its answer was lost: is the object ours?
      Result<std::string> existing = Read(location);
      if (existing.ok() && *existing == data) return Status::OK();
    }
    return Status::AlreadyExists("file exists: " + location);
  }
  Status failure = S3Failure(res, "write", location);
  if (failure.code() == Status::Code::kUnavailable) {
    // The outcome is unknown: leave nothing behind. Our names are fresh, so this is ours.
    Delete(location);
  }
  return failure;
}

Status S3FileIO::Delete(const std::string& location) {
  ASSIGN_OR_RETURN(S3Location loc, ParseS3Location(location));
  S3Response res = client_->Send({"DELETE", loc.bucket, loc.key, {}, {}, {}});
  if (Ok(res.status) || res.status == 404) return Status::OK();
  return S3Failure(res, "delete", location);
}

Result<bool> S3FileIO::Exists(const std::string& location) {
  ASSIGN_OR_RETURN(S3Location loc, ParseS3Location(location));
  S3Response res = client_->Send({"HEAD", loc.bucket, loc.key, {}, {}, {}});
  if (res.status == 200) return true;
  if (res.status == 404) return false;
  return S3Failure(res, "existence check", location);
}

Result<std::vector<std::string>> S3FileIO::List(const std::string& prefix) {
  ASSIGN_OR_RETURN(S3Location loc, ParseS3Location(prefix));
  std::string key_prefix = loc.key;
  if (!key_prefix.empty() && key_prefix.back() != '/') key_prefix += '/';
  std::vector<std::string> out;
  std::string token;
  for (;;) {
    S3Request req{"GET", loc.bucket, "", {{"list-type", "2"}, {"prefix", key_prefix}}, {}, {}};
    if (!token.empty()) req.query.emplace_back("continuation-token", token);
    S3Response res = client_->Send(req);
    if (res.status != 200) return S3Failure(res, "list", prefix);
    for (const std::string& key : XmlElements(res.body, "Key")) {
      out.push_back("s3://" + loc.bucket + "/" + key);
    }
    std::vector<std::string> truncated = XmlElements(res.body, "IsTruncated");
    std::vector<std::string> next = XmlElements(res.body, "NextContinuationToken");
    if (truncated.empty() || truncated[0] != "true" || next.empty() || next[0].empty()) break;
    token = next[0];
  }
  return out;
}

Result<ConditionalWriteProbe> S3FileIO::ProbeConditionalWrites(const std::string& prefix) {
  ASSIGN_OR_RETURN(S3Location dir, ParseS3Location(prefix));
  S3Location loc{dir.bucket, ProbeKey(dir.key, ids_.NewUuid())};
  std::string location = "s3://" + loc.bucket + "/" + loc.key;
  ConditionalWriteProbe probe;

  S3Response first = Put(loc, "cairn conditional-write probe 1", true);
  if (HeaderRejected(first)) {
    std::string code = S3ErrorCode(first.body);
    probe.detail = "rejected (first PUT answered " + std::to_string(first.status) +
                   (code.empty() ? "" : " " + code) + ")";
    S3Response plain = Put(loc, "cairn conditional-write probe 1", false);
    if (plain.status != 200) return S3Failure(plain, "probe write", location);
  } else if (first.status != 200) {
    return S3Failure(first, "probe write", location);
  } else {
    S3Response second = Put(loc, "cairn conditional-write probe 2", true);
    if (Refused(second.status)) {
      probe.honoured = true;
      probe.detail = "honoured (second PUT answered " + std::to_string(second.status) + ")";
    } else if (second.status == 200) {
      probe.detail = "ignored (second PUT overwrote the object)";
    } else {
      Delete(location);
      return S3Failure(second, "probe write", location);
    }
  }
  RETURN_IF_ERROR(Delete(location));
  conditional_ = probe.honoured;
  return probe;
}

}  // namespace cairn::engine
