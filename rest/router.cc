#include "rest/router.h"

#include "rest/error_mapping.h"

namespace cairn::rest {
namespace {

std::vector<std::string> Split(const std::string& path) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    if (slash > start) out.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

}  // namespace

void Router::Add(const std::string& method, const std::string& path_template,
                 RouteHandler handler, bool advertise) {
  std::vector<std::string> segments;
  for (std::string& s : Split(path_template)) {
    if (s != "{prefix}") segments.push_back(std::move(s));
  }
  routes_.push_back(Route{method, path_template, std::move(segments), std::move(handler),
                          advertise});
}

bool Router::Match(const Route& route, const std::vector<std::string>& segments,
                   PathParams* params) {
  if (route.segments.size() != segments.size()) return false;
  PathParams found;
  for (size_t i = 0; i < segments.size(); ++i) {
    const std::string& t = route.segments[i];
    if (t.size() > 2 && t.front() == '{' && t.back() == '}') {
      found[t.substr(1, t.size() - 2)] = PercentDecode(segments[i], /*plus_is_space=*/true);
    } else if (t != segments[i]) {
      return false;
    }
  }
  *params = std::move(found);
  return true;
}

HttpResponse Router::Dispatch(const HttpRequest& request) const {
  std::vector<std::string> segments = Split(request.raw_path);
  bool path_known = false;
  for (const Route& route : routes_) {
    PathParams params;
    if (!Match(route, segments, &params)) continue;
    path_known = true;
    if (route.method == request.method) return route.handler(request, params);
  }
  if (path_known) {
    return ErrorResponse(405, "MethodNotAllowedException",
                         "method " + request.method + " is not allowed on " + request.raw_path);
  }
  return ErrorResponse(404, "NotFoundException", "no route for " + request.method + " " +
                                                     request.raw_path);
}

std::vector<std::string> Router::Endpoints() const {
  std::vector<std::string> out;
  for (const Route& r : routes_) {
    if (r.advertise) out.push_back(r.method + " " + r.path_template);
  }
  return out;
}

}  // namespace cairn::rest
