// Which requests `lithify serve` accepts, checked on the headers before a body is read.
//
// The panel has no authentication: it relies on being reachable from this machine only.
// A browser is the way around that -- any page the user opens can make it send requests
// to localhost -- so:
//   - Host must name this server (DNS rebinding: a page on evil.example whose name is
//     re-pointed at 127.0.0.1 sends "Host: evil.example"). Bound to a loopback address:
//     localhost, 127.0.0.1, [::1] (and the --host name itself); bound to another
//     interface: only that name; bound to every interface (0.0.0.0, ::): the loopback
//     names, this machine's host name and its interfaces' addresses. A port, when
//     given, must be the bound one. --allow-host adds names (a reverse proxy's, a DNS
//     name for the machine).
//   - A state-changing request (any method but GET, HEAD, OPTIONS) from another origin is
//     refused: an Origin that is not this server's, or Sec-Fetch-Site: cross-site.
//   - A request body must be JSON (Content-Type: application/json): an HTML form can send
//     text/plain, urlencoded or multipart to any origin without a CORS preflight, never
//     application/json.
// Refusals are 403 (400 for a missing or repeated Host, 415 for the content type).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lithify/server/http.h"

namespace lithify::server {

struct AccessPolicy {
  int port = 0;                    // the bound port
  std::vector<std::string> hosts;  // accepted Host names, lower-case, IPv6 in brackets
  bool loopback = true;            // bound to loopback addresses only
};

// The policy for a server bound to `bind_host`:`port` (the bound port, not 0), with
// `extra_hosts` accepted as well.
AccessPolicy MakeAccessPolicy(const std::string& bind_host, int port,
                              const std::vector<std::string>& extra_hosts = {});

// True when `bind_host` (an address or a name) binds to loopback addresses only.
bool IsLoopbackBindHost(const std::string& bind_host);

struct AccessRefusal {
  int status;
  std::string message;
};

// nullopt when the request may proceed.
std::optional<AccessRefusal> CheckAccess(const AccessPolicy& policy, const HttpRequest& request);

}  // namespace lithify::server
