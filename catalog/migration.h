#pragma once

// Migration: one numbered SQL file of migrations/<dialect>/, embedded at build time.

#include <string>
#include <vector>

namespace cairn::catalog {

struct Migration {
  int version;       // 1, 2, ... without gaps
  const char* name;  // the file name's description part
  const char* sql;   // one or more statements
};

// The migrations of migrations/sqlite/, in version order.
const std::vector<Migration>& SqliteMigrations();
// The migrations of migrations/postgres/, in version order.
const std::vector<Migration>& PostgresMigrations();

}  // namespace cairn::catalog
