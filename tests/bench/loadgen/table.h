#pragma once

// What the workloads need to know about one table, and the request bodies they send: pyiceberg-
// style appends (add-snapshot + set-snapshot-ref main, asserting the table's UUID and main's
// current snapshot) whose manifest lists are fake paths under the table's location.

#include <cstdint>
#include <optional>
#include <random>
#include <string>

#include "http.h"

namespace cairn::bench {

struct TableRef {
  std::string ns;
  std::string name;
  std::string Path() const { return "namespaces/" + Encode(ns) + "/tables/" + Encode(name); }
};

struct TableState {
  std::string uuid;
  std::string location;
  std::optional<int64_t> main;  // main's snapshot id; empty = no main branch yet
  int64_t last_sequence = 0;
};

// Snapshot ids: random positive 62-bit numbers (unique in practice), one generator per thread.
class Ids {
 public:
  Ids();
  int64_t Next() { return static_cast<int64_t>(rng_() >> 2) + 1; }

 private:
  std::mt19937_64 rng_;
};

// The table schema every benchmark table uses (three columns).
std::string SchemaJson();

// A commit body appending `count` snapshots in a chain on top of `state`, then pointing main at
// the last one. On return `*next` is the state after the commit if it succeeds.
std::string AppendBody(const TableState& state, int count, Ids& ids, TableState* next);

// Loads `table` with snapshots=refs and fills `*state`. Returns "" or what went wrong.
std::string LoadState(Http& http, const TableRef& table, TableState* state);

// POST /v1/namespaces; a 409 (exists) counts as success. Returns "" or what went wrong.
std::string CreateNamespace(Http& http, const std::string& ns);
// POST .../tables. Fills *state from the response when given. Returns "" or the error.
std::string CreateTable(Http& http, const TableRef& table, TableState* state);

}  // namespace cairn::bench
