// The `lithify serve` back end: JSON endpoints over the simulator, diagnose, describe,
// files and OPTIMIZE --dry-run, and the embedded web panel (web/, built by npm at build
// time and compiled into the binary, so nothing is read from disk or a CDN at run time).
//
// Handlers are plain functions from an ApiRequest (method, path, query parameters, body)
// to an ApiResponse (HTTP status + JSON), so they are tested without sockets
// (server_test.cc); Serve() only adapts the transport (http.h: our own poll() loop with
// deadlines and limits, see there for why not cpp-httplib) and the access rules
// (access.h: Host, Origin, Sec-Fetch-Site, Content-Type) to them.
//
// Endpoints (every one validates all of its input; a bad value is a 400 naming the
// parameter, never a crash or a hang):
//   GET  /api/tables                          the tables given at start
//   GET  /api/describe?table=T[&limit=N]      DESCRIBE DETAIL + HISTORY (N in 1..1000, 50)
//   GET  /api/files?table=T[&limit=N]         live files (first N in 0..10000, 200), files
//                                             per partition and a file-size histogram
//   GET  /api/optimize?table=T[&target_file_size=S][&min_file_size=S]
//        [&max_deleted_rows_ratio=R][&reorg=0|1]   OPTIMIZE / REORG PURGE dry run: plan,
//                                             metrics and the decision log; writes nothing
//   GET  /api/diagnose?table=T                the diagnose findings
//   POST /api/simulate   (JSON body)          the maintenance simulator
// Before any endpoint: 403 a Host that is not this server's or a cross-origin POST, 415 a
// body that is not application/json, 408 a request not received within its deadline,
// 431 headers over 16 KiB, 503 every connection slot busy.
// Status codes: 400 malformed/out-of-range input, 404 unknown endpoint or a table that was
// not given at start (arbitrary paths are never served), 405 wrong method, 413 body over
// ServerConfig::max_body_bytes, 503 a component this build lacks, 422 a served table that
// cannot be processed as it is (corrupt, a table property lithify refuses, a feature it
// does not implement), 500 an I/O or internal failure; the message is the table's error,
// naming the file. Error bodies are {"error":{"status","message"}}.
//
// Thread safety: HandleApi is reentrant (the config is read-only); Serve runs handlers on
// a small worker pool that only ever sees complete requests. Memory: one request's result at a time per worker; file
// listings are capped by `limit`, aggregates are computed while streaming the list.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/status.h"
#include "lithify/io/filesystem.h"

namespace lithify::server {

struct ServerConfig {
  std::vector<std::string> tables;  // the only table roots the API will open
  io::FileSystem* fs = nullptr;     // not owned; must outlive the server
  size_t max_body_bytes = 64 * 1024;
};

struct ApiRequest {
  std::string method = "GET";
  std::string path;                           // "/api/describe"
  std::multimap<std::string, std::string> params;  // decoded query parameters
  std::string body;
};

struct ApiResponse {
  int status = 200;
  nlohmann::ordered_json body;
};

// Routes one /api/ request. Never throws (exceptions become a 500).
ApiResponse HandleApi(const ServerConfig& config, const ApiRequest& request);

// True when this build has the endpoint's component (simulate, diagnose); false means the
// endpoint answers 503.
bool HasSimulator();
bool HasDiagnose();

// One embedded file of the web panel. FindAsset("/") is index.html; nullptr when unknown.
struct Asset {
  std::string_view path;          // "/index.html"
  std::string_view content_type;  // "text/html; charset=utf-8"
  std::string_view data;
};
const Asset* FindAsset(std::string_view path);
std::vector<std::string_view> AssetPaths();

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8080;  // 0 = any free port
  // Called once the socket is bound, with the bound port (the URL is printed from here).
  std::function<void(int port)> on_listening;
  // Serve() returns once this returns true (polled every 100 ms), e.g. after SIGINT.
  std::function<bool()> should_stop;
  // Host names accepted besides those of the bound address (access.h).
  std::vector<std::string> allowed_hosts;
  // Deadlines and the connection bound; 0 = the transport's defaults (http.h: 10 s for
  // the headers from accept, 10 s for the body after them, 512 connections).
  std::chrono::milliseconds header_timeout{0};
  std::chrono::milliseconds body_timeout{0};
  size_t max_connections = 0;
};

// Binds, serves until should_stop() is true, then shuts down cleanly. IOError naming the
// address when it cannot bind.
Status Serve(const ServerConfig& config, const ServeOptions& options);

}  // namespace lithify::server
