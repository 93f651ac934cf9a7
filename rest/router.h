#pragma once

// Router: matches a request's method and raw path against the spec's route templates.
//
// Templates are written as in the OpenAPI spec ("/v1/{prefix}/namespaces/{namespace}");
// cairn serves no prefix, so "{prefix}/" is dropped when matching. Each path segment is
// percent-decoded after splitting, so an encoded '/' ("%2F") inside a name stays in the name.
// Unknown paths give 404, known paths with another method 405 (both as ErrorModel).

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "rest/http.h"

namespace cairn::rest {

using PathParams = std::map<std::string, std::string>;
using RouteHandler = std::function<HttpResponse(const HttpRequest&, const PathParams&)>;

class Router {
 public:
  // `advertise`: list the route in /v1/config "endpoints".
  void Add(const std::string& method, const std::string& path_template, RouteHandler handler,
           bool advertise = true);

  HttpResponse Dispatch(const HttpRequest& request) const;

  // "<METHOD> <template>" for every advertised route, in registration order.
  std::vector<std::string> Endpoints() const;

 private:
  struct Route {
    std::string method;
    std::string path_template;
    std::vector<std::string> segments;  // of the template, "{prefix}" removed
    RouteHandler handler;
    bool advertise;
  };
  static bool Match(const Route& route, const std::vector<std::string>& segments,
                    PathParams* params);

  std::vector<Route> routes_;
};

}  // namespace cairn::rest
