// `lithify serve [--port 8080] [--host 127.0.0.1] [--table PATH ...]`: the web panel and
// its JSON API (src/lithify/server). Binds to localhost unless --host says otherwise;
// only the --table paths are ever opened. Ctrl-C (SIGINT) or SIGTERM stops it cleanly.
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "lithify/base/macros.h"
#include "lithify/io/filesystem.h"
#include "lithify/io/registry.h"
#include "lithify/server/access.h"
#include "lithify/server/server.h"
#include "tools/cli/cli.h"
#include "tools/cli/storage.h"

namespace lithify::cli {
namespace {

struct ServeFlags {
  int port = 8080;
  std::string host = "127.0.0.1";
  std::vector<std::string> tables;
  std::vector<std::string> allowed_hosts;
};

// Knobs for tests (not options: nobody should need them): LITHIFY_SERVE_HEADER_TIMEOUT_MS,
// LITHIFY_SERVE_BODY_TIMEOUT_MS, LITHIFY_SERVE_MAX_CONNECTIONS, LITHIFY_SERVE_MAX_BODY_BYTES
// (positive integers; anything else keeps the default).
int64_t EnvKnob(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return 0;
  char* end = nullptr;
  long long n = std::strtoll(v, &end, 10);
  return *end == '\0' && n > 0 ? n : 0;
}

volatile std::sig_atomic_t g_stop = 0;
void OnSignal(int) { g_stop = 1; }

Status RunServe(const ServeFlags& f, const Context& ctx) {
  if (f.port < 0 || f.port > 65535) return UsageError("--port: must be within [0, 65535], got {}", f.port);
  if (f.host.empty()) return UsageError("--host: must not be empty");
  // Tables may live on different stores: each --table is resolved, and one routing
  // FileSystem serves them all by their resolved locations.
  RegisterStorageBackends();
  std::shared_ptr<io::FileSystem> fs = io::NewRoutingFileSystem();
  std::vector<std::string> roots;
  for (const std::string& t : f.tables) {
    LITHIFY_ASSIGN_OR_RETURN(io::OpenedLocation loc, io::OpenFileSystem(t));
    // Refuse a path that is not a Delta table now, not on the first request.
    Result<std::vector<io::FileInfo>> log = fs->ListFrom(io::JoinPath(loc.path, "_delta_log"), "");
    if (!log.ok()) return UsageError("--table {}: {}", t, log.status().message());
    if (log->empty()) return UsageError("--table {}: not a Delta table (no _delta_log)", t);
    roots.push_back(std::move(loc.path));
  }
  for (const std::string& h : f.allowed_hosts) {
    if (h.empty() || (h.find_first_of(" /:@?#") != std::string::npos && h.front() != '[')) {
      return UsageError("--allow-host: '{}' is not a host name (no port, scheme or path)", h);
    }
  }
  server::ServerConfig config;
  config.fs = fs.get();
  config.tables = roots;
  if (int64_t n = EnvKnob("LITHIFY_SERVE_MAX_BODY_BYTES")) config.max_body_bytes = static_cast<size_t>(n);
  server::ServeOptions opts;
  opts.host = f.host;
  opts.port = f.port;
  opts.allowed_hosts = f.allowed_hosts;
  opts.header_timeout = std::chrono::milliseconds(EnvKnob("LITHIFY_SERVE_HEADER_TIMEOUT_MS"));
  opts.body_timeout = std::chrono::milliseconds(EnvKnob("LITHIFY_SERVE_BODY_TIMEOUT_MS"));
  opts.max_connections = static_cast<size_t>(EnvKnob("LITHIFY_SERVE_MAX_CONNECTIONS"));
  if (!server::IsLoopbackBindHost(f.host)) {
    std::fprintf(stderr,
                 "lithify serve: warning: --host %s is reachable from other machines, and the panel has no "
                 "authentication: anyone who can reach this port can read the served tables' paths, schemas "
                 "and history and run the simulator. Use the default (127.0.0.1) unless this network is trusted.\n",
                 f.host.c_str());
  }
  opts.on_listening = [&](int port) {
    std::string host = f.host.find(':') != std::string::npos ? "[" + f.host + "]" : f.host;
    if (ctx.json) {
      std::printf("{\"url\":\"http://%s:%d/\",\"port\":%d}\n", host.c_str(), port, port);
    } else {
      std::printf("lithify panel: http://%s:%d/  (%zu table(s); Ctrl-C to stop)\n", host.c_str(), port,
                  f.tables.size());
    }
    std::fflush(stdout);
  };
  opts.should_stop = [] { return g_stop != 0; };
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  Status st = server::Serve(config, opts);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  if (st.ok() && !ctx.json) std::fprintf(stderr, "lithify serve: stopped\n");
  return st;
}

}  // namespace

void RegisterServeCommand(CLI::App& app, Runner* selected) {
  auto f = std::make_shared<ServeFlags>();
  CLI::App* cmd = app.add_subcommand("serve", "Serve the web panel and its JSON API on a local port");
  cmd->add_option("--port", f->port, "TCP port (default 8080; 0 = any free port, printed)");
  cmd->add_option("--host", f->host,
                  "Address to bind (default 127.0.0.1: this machine only; any other prints a warning: "
                  "the panel has no authentication)");
  cmd->add_option("--allow-host", f->allowed_hosts,
                  "Another Host name to answer to (repeatable), e.g. a DNS name for this machine")
      ->allow_extra_args(false);
  PathOption(cmd->add_option("--table", f->tables, "A Delta table the panel may open (repeatable)")->allow_extra_args(false));
  cmd->footer(
      "Prints the URL to open. Endpoints: /api/tables, /api/describe, /api/files, /api/optimize "
      "(dry run), /api/diagnose, POST /api/simulate. Only the --table paths are served.\n"
      "Requests are accepted only with a Host naming this server (localhost, 127.0.0.1, [::1] with the "
      "bound port; with another --host, that name; plus --allow-host names): a web page on another site "
      "cannot reach the panel through DNS rebinding (403). POST bodies must be Content-Type: "
      "application/json (415) and come from the panel's own origin (Origin, Sec-Fetch-Site; 403).\n"
      "Limits: request headers within 10 s of connecting and 16 KiB (408, 431), a body within 10 s "
      "more and 64 KiB (408, 413, counted as it arrives, chunked too), 512 connections (the longest "
      "unfinished request is dropped to admit a new one).");
  cmd->callback([selected, f] { *selected = [f](const Context& ctx) { return RunServe(*f, ctx); }; });
}

}  // namespace lithify::cli
