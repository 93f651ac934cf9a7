#pragma once

// Mutant metastores: deliberately broken wrappers of a Metastore, used only to prove that the
// exactly-once checker (tests/harness) notices broken commits. Never use them to serve data.
//
//   kCasWithoutPredicate  every swap overwrites the pointer, whatever it was (lost updates)
//   kFalseConflict        every fifth successful commit is reported as CommitFailed (409)

#include <memory>
#include <string>

#include "catalog/metastore.h"

namespace cairn::catalog {

enum class Mutant { kNone, kCasWithoutPredicate, kFalseConflict };

// "cas-without-predicate", "false-conflict" or "" (kNone); InvalidArgument otherwise.
Result<Mutant> ParseMutant(const std::string& name);

// `store` itself for kNone, else the broken wrapper.
std::shared_ptr<Metastore> WithMutant(std::shared_ptr<Metastore> store, Mutant mutant);

}  // namespace cairn::catalog
