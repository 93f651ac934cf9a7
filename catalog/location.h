#pragma once

// Locations of tables and files: normalizing and confining them.

#include <string>

namespace cairn::catalog {

// One spelling per location: "file:/a/b/", "file:///a/b" and "/a/b" all give "file:///a/b";
// other schemes lose trailing slashes only.
std::string NormalizeLocation(const std::string& location);

// True if `location` is `root` or lies below it (after normalizing both) and contains no
// "." or ".." segment.
bool IsWithin(const std::string& location, const std::string& root);

// `location` without trailing slashes, otherwise exactly as given (clients compare it).
std::string TrimLocation(const std::string& location);

// "<location>/<relative>" without doubled slashes.
std::string JoinLocation(const std::string& location, const std::string& relative);

}  // namespace cairn::catalog
