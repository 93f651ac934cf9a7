#pragma once

// Status and Result<T>: the one error type of cairn.
//
// A Status is either OK or carries a Code and a human-readable message. Codes follow the
// Iceberg REST error model so that rest/ can map them to HTTP in one place; callers branch on
// the code, never on the message text. Result<T> holds either a T or a non-OK Status.
//
// Thread-safety: values; safe to copy between threads.

#include <string>
#include <utility>
#include <variant>

namespace cairn::engine {

class Status {
 public:
  enum class Code {
    kOk,
    kInvalidArgument,      // bad input: 400
    kNotFound,             // generic missing thing: 404
    kNoSuchNamespace,      // 404
    kNoSuchTable,          // 404
    kNoSuchView,           // 404
    kAlreadyExists,        // 409
    kNamespaceNotEmpty,    // 409
    kCommitFailed,         // 409: definitely not applied
    kCommitStateUnknown,   // 500: may or may not have been applied
    kUnprocessable,        // 422
    kPayloadTooLarge,      // 413
    kUnavailable,          // 503: nothing applied, try again later
    kIOError,              // 500: storage failed, nothing applied
    kInternal,             // 500
    kNotImplemented,       // 501 (for operations the server does not serve)
  };

  Status() = default;
  Status(Code code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string m) { return {Code::kInvalidArgument, std::move(m)}; }
  static Status NotFound(std::string m) { return {Code::kNotFound, std::move(m)}; }
  static Status NoSuchNamespace(std::string m) { return {Code::kNoSuchNamespace, std::move(m)}; }
  static Status NoSuchTable(std::string m) { return {Code::kNoSuchTable, std::move(m)}; }
  static Status NoSuchView(std::string m) { return {Code::kNoSuchView, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {Code::kAlreadyExists, std::move(m)}; }
  static Status NamespaceNotEmpty(std::string m) {
    return {Code::kNamespaceNotEmpty, std::move(m)};
  }
  static Status CommitFailed(std::string m) { return {Code::kCommitFailed, std::move(m)}; }
  static Status CommitStateUnknown(std::string m) {
    return {Code::kCommitStateUnknown, std::move(m)};
  }
  static Status Unprocessable(std::string m) { return {Code::kUnprocessable, std::move(m)}; }
  static Status PayloadTooLarge(std::string m) { return {Code::kPayloadTooLarge, std::move(m)}; }
  static Status Unavailable(std::string m) { return {Code::kUnavailable, std::move(m)}; }
  static Status IOError(std::string m) { return {Code::kIOError, std::move(m)}; }
  static Status Internal(std::string m) { return {Code::kInternal, std::move(m)}; }
  static Status NotImplemented(std::string m) { return {Code::kNotImplemented, std::move(m)}; }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns a copy whose message is "<prefix>: <message>", same code.
  Status WithPrefix(const std::string& prefix) const {
    return ok() ? *this : Status(code_, prefix + ": " + message_);
  }

  // "<CodeName>: <message>", for logs and test failure output.
  std::string ToString() const;

 private:
  Code code_ = Code::kOk;
  std::string message_;
};

const char* CodeName(Status::Code code);

// Result<T>: a T, or the Status explaining why there is none.
// REQUIRES: a Result is never built from an OK Status.
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}  // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace cairn::engine

#define CAIRN_CONCAT_INNER(a, b) a##b
#define CAIRN_CONCAT(a, b) CAIRN_CONCAT_INNER(a, b)

// Returns from the enclosing function if `expr` (a Status) is not OK.
#define RETURN_IF_ERROR(expr)                              \
  do {                                                     \
    ::cairn::engine::Status _st = (expr);                  \
    if (!_st.ok()) return _st;                             \
  } while (0)

// Evaluates `rexpr` (a Result<T>); on error returns its Status, else moves the value into `lhs`.
#define ASSIGN_OR_RETURN(lhs, rexpr) \
  ASSIGN_OR_RETURN_IMPL(CAIRN_CONCAT(_result_, __LINE__), lhs, rexpr)
#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                          \
  if (!tmp.ok()) return tmp.status();          \
  lhs = std::move(tmp).value()
