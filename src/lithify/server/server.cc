// The `lithify serve` back end: request validation, the JSON endpoints and the
// adapter to the transport (http.h) and the access rules (access.h). See server.h for
// the contract.
#include "lithify/server/server.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "lithify/base/civil_time.h"
#include "lithify/commands/describe.h"
#include "lithify/commands/files.h"
#include "lithify/commands/optimize.h"
#include "lithify/planner/decision_log.h"
#include "lithify/planner/target_size.h"
#include "lithify/server/access.h"
#include "lithify/server/http.h"
#ifdef LITHIFY_SERVER_HAVE_SIM
#include "lithify/formats/policy.h"
#include "lithify/sim/simulate.h"
#endif
#ifdef LITHIFY_SERVER_HAVE_DIAGNOSE
#include "lithify/commands/diagnose.h"
#endif

namespace lithify::server {

// Generated from web/ at build time (web/build.mjs): the panel's files.
extern const Asset kWebAssets[];
extern const size_t kWebAssetCount;

namespace {

using nlohmann::ordered_json;

// Thrown by the validation helpers and caught in HandleApi: an HTTP error with a message
// for the user. Exceptions keep every handler a straight line of checks.
struct HttpError {
  int status;
  std::string message;
};

[[noreturn]] void Fail(int status, std::string message) { throw HttpError{status, std::move(message)}; }

ordered_json ErrorBody(int status, const std::string& message) {
  return ordered_json{{"error", {{"status", status}, {"message", message}}}};
}

// A library Status as an HTTP error: bad input 400, missing 404, unimplemented 422.
[[noreturn]] void FailStatus(const Status& st) {
  if (st.IsInvalidArgument()) Fail(400, st.message());
  if (st.IsNotFound()) Fail(404, st.message());
  if (st.IsNotSupported()) Fail(422, st.message());
  Fail(500, st.message());
}

template <typename T>
T Unwrap(Result<T> r) {
  if (!r.ok()) FailStatus(r.status());
  return std::move(*r);
}

// Unwrap for work on a served table. Its own problems -- corrupt (Corruption), or a value
// lithify refuses such as a malformed table property (InvalidArgument) -- are the table's,
// not the request's (400) nor a server bug (500): 422 with the table's message. Only a
// bad `where` predicate is the request's.
template <typename T>
T UnwrapTable(Result<T> r) {
  if (r.ok()) return std::move(*r);
  const Status& st = r.status();
  const bool request = st.IsInvalidArgument() && (st.message().rfind("predicate: ", 0) == 0 ||
                                                  st.message().find("--where") != std::string::npos);
  if (!request && (st.IsCorruption() || st.IsInvalidArgument())) Fail(422, st.message());
  FailStatus(st);
}

// The query parameters of one request, checked against the names an endpoint accepts
// (an unknown or repeated name is a 400: a typo must not be silently ignored).
class Params {
 public:
  Params(const ApiRequest& req, std::initializer_list<std::string_view> known) : req_(req) {
    for (const auto& [k, v] : req.params) {
      if (std::find(known.begin(), known.end(), k) == known.end()) {
        std::string names;
        for (std::string_view n : known) names += (names.empty() ? "" : ", ") + std::string(n);
        Fail(400, fmt::format("unknown parameter '{}' (this endpoint takes: {})", Clip(k),
                              names.empty() ? "none" : names));
      }
      if (req.params.count(k) > 1) Fail(400, fmt::format("parameter '{}' is given more than once", k));
    }
  }

  std::optional<std::string> Get(const std::string& name, size_t max_len = 4096) const {
    auto it = req_.params.find(name);
    if (it == req_.params.end()) return std::nullopt;
    if (it->second.size() > max_len) Fail(400, fmt::format("parameter '{}' is longer than {} characters", name, max_len));
    return it->second;
  }

  int64_t Int(const std::string& name, int64_t lo, int64_t hi, int64_t dflt) const {
    std::optional<std::string> v = Get(name, 32);
    if (!v) return dflt;
    int64_t out = 0;
    const char* end = v->data() + v->size();
    auto [p, ec] = std::from_chars(v->data(), end, out);
    if (v->empty() || ec != std::errc() || p != end) {
      Fail(400, fmt::format("parameter '{}': '{}' is not an integer", name, Clip(*v)));
    }
    if (out < lo || out > hi) Fail(400, fmt::format("parameter '{}': {} is out of range [{}, {}]", name, out, lo, hi));
    return out;
  }

  std::optional<double> Double(const std::string& name, double lo, double hi) const {
    std::optional<std::string> v = Get(name, 32);
    if (!v) return std::nullopt;
    char* end = nullptr;
    double out = v->empty() ? 0 : std::strtod(v->c_str(), &end);
    if (v->empty() || end != v->c_str() + v->size() || !std::isfinite(out)) {
      Fail(400, fmt::format("parameter '{}': '{}' is not a finite number", name, Clip(*v)));
    }
    if (out < lo || out > hi) Fail(400, fmt::format("parameter '{}': {} is out of range [{}, {}]", name, out, lo, hi));
    return out;
  }

  // A byte size such as "128mb" or "1048576" (planner::ParseByteSize), within [lo, hi].
  std::optional<int64_t> Size(const std::string& name, int64_t lo, int64_t hi) const {
    std::optional<std::string> v = Get(name, 32);
    if (!v) return std::nullopt;
    Result<int64_t> n = planner::ParseByteSize(*v);
    if (!n.ok()) Fail(400, fmt::format("parameter '{}': {}", name, n.status().message()));
    if (*n < lo || *n > hi) {
      Fail(400, fmt::format("parameter '{}': {} is out of range [{}, {}]", name, *v, planner::FormatBytes(lo),
                            planner::FormatBytes(hi)));
    }
    return *n;
  }

  bool Bool(const std::string& name) const {
    std::optional<std::string> v = Get(name, 8);
    if (!v || *v == "0" || *v == "false") return false;
    if (*v == "1" || *v == "true") return true;
    Fail(400, fmt::format("parameter '{}': '{}' is not a boolean (0, 1, true, false)", name, Clip(*v)));
  }

  // Echoed input is clipped so an error message never grows with the request.
  static std::string Clip(const std::string& s) { return s.size() <= 64 ? s : s.substr(0, 64) + "..."; }

 private:
  const ApiRequest& req_;
};

// The `table` parameter: must name one of the tables given at start, exactly as given.
const std::string& TableParam(const ServerConfig& config, const Params& p) {
  std::optional<std::string> t = p.Get("table");
  if (!t || t->empty()) Fail(400, "parameter 'table' is required (see /api/tables)");
  for (const std::string& known : config.tables) {
    if (known == *t) return known;
  }
  Fail(404, fmt::format("table '{}' is not served; only the tables given to `lithify serve --table` are",
                        Params::Clip(*t)));
}

// ---- endpoints ----

ordered_json Tables(const ServerConfig& config, const ApiRequest& req) {
  Params p(req, {});
  ordered_json arr = ordered_json::array();
  for (const std::string& t : config.tables) arr.push_back(t);
  return ordered_json{{"tables", arr}, {"simulator", HasSimulator()}, {"diagnose", HasDiagnose()}};
}

ordered_json Describe(const ServerConfig& config, const ApiRequest& req) {
  Params p(req, {"table", "limit"});
  const std::string& table = TableParam(config, p);
  int64_t limit = p.Int("limit", 1, 1000, 50);
  // The format's own documents (commands/describe.h): Delta's DESCRIBE DETAIL fields and
  // commitInfo entries, Iceberg's metadata fields and snapshots.
  commands::DescribeOptions opts;
  commands::Description d = UnwrapTable(commands::DescribeTableDetail(config.fs, table, opts));
  opts.format = d.format;
  opts.limit = limit;
  commands::Description h = UnwrapTable(commands::DescribeTableHistory(config.fs, table, opts));
  return ordered_json{{"table", table}, {"detail", std::move(d.document)}, {"history", std::move(h.document)}};
}

// Log2 size buckets: [2^k, 2^(k+1)), files below 1 KiB share the first one.
int SizeBucket(int64_t size) {
  int k = 10;
  while (k < 61 && size >= (int64_t{1} << (k + 1))) ++k;  // 2^62 bounds every real size; no shift overflow
  return k;
}

// One file of a `files` document in the panel's terms, whatever the format's names.
struct PanelFile {
  std::string path, partition;
  int64_t size = 0;
  ordered_json records;     // null when the format does not record it
  int64_t deleted_rows = 0;  // Delta: the DV's cardinality; Iceberg: rows in its delete files
};

PanelFile PanelFileOf(const ordered_json& f, formats::TableFormat format) {
  PanelFile out;
  const bool ice = format == formats::TableFormat::kIceberg;
  out.path = f[ice ? "file_path" : "path"].get<std::string>();
  out.size = f[ice ? "file_size_in_bytes" : "size"].get<int64_t>();
  out.records = f[ice ? "record_count" : "numRecords"];
  for (const auto& [k, v] : f[ice ? "partition" : "partitionValues"].items()) {
    out.partition += (out.partition.empty() ? "" : "/") + k + "=" + (v.is_null() ? std::string("null") : v.get<std::string>());
  }
  if (ice) {
    for (const auto& d : f["deletes"]) out.deleted_rows += d["record_count"].get<int64_t>();
  } else if (!f["deletionVectorCardinality"].is_null()) {
    out.deleted_rows = f["deletionVectorCardinality"].get<int64_t>();
  }
  return out;
}

ordered_json Files(const ServerConfig& config, const ApiRequest& req) {
  Params p(req, {"table", "limit"});
  const std::string& table = TableParam(config, p);
  int64_t limit = p.Int("limit", 0, 10000, 200);
  commands::FilesListing rep = UnwrapTable(commands::ListTableFiles(config.fs, table, commands::FilesOptions{}));
  struct Agg {
    int64_t files = 0, bytes = 0;
  };
  std::map<std::string, Agg> parts;
  std::map<int, Agg> sizes;
  ordered_json files = ordered_json::array();
  int64_t total_bytes = 0;
  for (const ordered_json& row : rep.document["files"]) {
    PanelFile e = PanelFileOf(row, rep.format);
    Agg& a = parts[e.partition];
    a.files++, a.bytes += e.size;
    Agg& s = sizes[SizeBucket(e.size)];
    s.files++, s.bytes += e.size;
    total_bytes += e.size;
    if (static_cast<int64_t>(files.size()) < limit) {
      files.push_back({{"path", e.path}, {"size", e.size}, {"partition", e.partition}, {"numRecords", e.records},
                       {"deletedRows", e.deleted_rows}});
    }
  }
  // At most 1,000 partitions in the picture; the count says how many there are.
  ordered_json pj = ordered_json::array();
  for (const auto& [k, a] : parts) {
    if (pj.size() >= 1000) break;
    pj.push_back({{"partition", k}, {"files", a.files}, {"bytes", a.bytes}});
  }
  ordered_json hj = ordered_json::array();
  if (!sizes.empty()) {
    for (int k = sizes.begin()->first; k <= sizes.rbegin()->first; ++k) {
      Agg a = sizes.count(k) ? sizes[k] : Agg{};
      hj.push_back({{"lo", k == 10 ? 0 : int64_t{1} << k}, {"hi", int64_t{1} << (k + 1)}, {"files", a.files},
                    {"bytes", a.bytes}});
    }
  }
  const bool ice = rep.format == formats::TableFormat::kIceberg;
  return ordered_json{{"table", table},
                      {"version", rep.document[ice ? "snapshot-id" : "version"]},
                      {"numFiles", rep.document["summary"]["files"]},
                      {"sizeInBytes", total_bytes},
                      {"numPartitions", parts.size()},
                      {"partitions", pj},
                      {"sizeHistogram", hj},
                      {"files", files}};
}

ordered_json OptimizeDryRun(const ServerConfig& config, const ApiRequest& req) {
  Params p(req, {"table", "target_file_size", "min_file_size", "max_deleted_rows_ratio", "reorg", "where"});
  const std::string& table = TableParam(config, p);
  commands::OptimizeSpec spec;
  spec.dry_run = true;
  spec.threads = 1;
  constexpr int64_t kMaxSize = int64_t{1} << 40;
  spec.target_file_size = p.Size("target_file_size", 1024, kMaxSize);
  spec.min_file_size = p.Size("min_file_size", 0, kMaxSize);
  spec.max_deleted_rows_ratio = p.Double("max_deleted_rows_ratio", 0, 1);
  spec.reorg_purge = p.Bool("reorg");
  spec.where = p.Get("where", 1000).value_or("");
  commands::OptimizeResult r = UnwrapTable(commands::Optimize(config.fs, table, spec));
  const planner::DecisionLog& log = r.log;
  ordered_json bins = ordered_json::array();
  for (const planner::BinDecision& b : log.bins) {
    if (bins.size() >= 2000) break;
    bins.push_back({{"id", b.id}, {"partition", b.partition >= 0 ? log.partitions[b.partition].partition : ""},
                    {"files", b.files}, {"bytes", b.bytes}, {"kept", b.kept}, {"reason", b.reason}});
  }
  ordered_json parts = ordered_json::array();
  for (const planner::PartitionDecision& pd : log.partitions) {
    if (parts.size() >= 1000) break;
    parts.push_back({{"partition", pd.partition}, {"files", pd.files}, {"candidates", pd.candidates},
                     {"binsKept", pd.bins_kept}, {"binsDropped", pd.bins_dropped}});
  }
  return ordered_json{{"table", table},
                      {"operation", spec.reorg_purge ? "REORG" : "OPTIMIZE"},
                      {"dryRun", true},
                      {"readVersion", r.read_version},
                      {"targetFileSize", r.plan.max_file_size},
                      {"minFileSize", r.plan.min_file_size},
                      {"targetSizeSource", r.plan.target_size_source},
                      {"binsPlanned", r.plan.bins.size()},
                      {"filesToRewrite", r.plan.total_input_files()},
                      {"bytesToRewrite", r.plan.total_input_bytes()},
                      {"partitionsOptimized", r.plan.partitions_optimized},
                      {"metrics", commands::OptimizeMetricsToJson(r.metrics)},
                      {"summary", log.summary},
                      {"decisionLogText", log.ToText(20)},
                      {"partitions", parts},
                      {"bins", bins}};
}

ordered_json Diagnose(const ServerConfig& config, const ApiRequest& req) {
  Params p(req, {"table"});
  const std::string& table = TableParam(config, p);
#ifdef LITHIFY_SERVER_HAVE_DIAGNOSE
  commands::TableDiagnosis d = UnwrapTable(commands::DiagnoseTable(config.fs, table, commands::DiagnoseOptions{}));
  return ordered_json{{"table", table}, {"diagnosis", std::move(d.document)}};
#else
  Fail(503, fmt::format("diagnose is not part of this build of lithify (table '{}')", table));
#endif
}

#ifdef LITHIFY_SERVER_HAVE_SIM
// The simulator accepts up to 5M files (memory); a request to the panel's server must
// also answer in seconds, so the work -- maintenance runs x files they plan over -- is
// bounded much tighter here. `lithify simulate` has no such bound.
constexpr double kMaxPanelFiles = 1'000'000;
constexpr double kMaxPanelWork = 5e7;       // runs x files
constexpr double kMaxPanelFullLogFiles = 100'000;  // log_detail "full" keeps every file per run

void CheckSimulationSize(const sim::Scenario& s) {
  const double batches = static_cast<double>(s.hours) * s.batches_per_hour;
  const double interval = 3600.0 / s.batches_per_hour;
  const std::map<std::string, double> part_seconds = {{"daily", 86400}, {"hourly", 3600}, {"15min", 900}, {"5min", 300}};
  auto it = part_seconds.find(s.partition_by);
  const double parts_per_batch = it == part_seconds.end() ? 1 : std::ceil(interval / it->second) + 1;
  const double files = batches * static_cast<double>(s.files_per_batch) * parts_per_batch;
  double runs = 0;
  if (s.maintenance == "auto_compact" || s.schedule == "every_batch") {
    runs = batches;
  } else if (s.schedule == "hourly") {
    runs = static_cast<double>(s.hours);
  } else {
    runs = std::ceil(static_cast<double>(s.hours) / 24);
  }
  if (s.maintenance == "none") runs = 0;
  if (files > kMaxPanelFiles) {
    Fail(400, fmt::format("the scenario writes about {:.0f} files; the panel simulates at most {:.0f} "
                          "(use `lithify simulate` for larger runs)", files, kMaxPanelFiles));
  }
  if (runs * files > kMaxPanelWork) {
    Fail(400, fmt::format("the scenario plans {:.0f} maintenance runs over up to {:.0f} files; too much work for "
                          "the panel (fewer days, batches or files, or a nightly schedule)", runs, files));
  }
  if (s.log_detail == "full" && files > kMaxPanelFullLogFiles) {
    Fail(400, fmt::format("log_detail 'full' keeps every file of every run; the panel allows it up to {:.0f} "
                          "files, the scenario writes about {:.0f}", kMaxPanelFullLogFiles, files));
  }
}
#endif

ordered_json Simulate(const ServerConfig& config, const ApiRequest& req) {
  Params p(req, {});
  if (req.body.size() > config.max_body_bytes) {
    Fail(413, fmt::format("request body of {} bytes exceeds the limit of {} bytes", req.body.size(),
                          config.max_body_bytes));
  }
  nlohmann::json scenario = nlohmann::json::parse(req.body, nullptr, false);
  if (scenario.is_discarded()) Fail(400, "request body is not valid JSON (expected a scenario object)");
  if (!scenario.is_object()) Fail(400, "request body must be a JSON object (a scenario)");
#ifdef LITHIFY_SERVER_HAVE_SIM
  sim::Scenario s = Unwrap(sim::ScenarioFromJson(scenario));
  CheckSimulationSize(s);
  // The simulator plays Delta's maintenance (the only format lithify maintains yet).
  const planner::TablePolicy* policy = Unwrap(formats::MaintenancePolicy(formats::TableFormat::kDelta));
  sim::SimResult r = Unwrap(sim::Simulate(s, *policy));
  return sim::SimResultToJson(r);
#else
  Fail(503, "the simulator is not part of this build of lithify");
#endif
}

ApiResponse Route(const ServerConfig& config, const ApiRequest& req) {
  using Handler = ordered_json (*)(const ServerConfig&, const ApiRequest&);
  struct Endpoint {
    std::string_view path;
    std::string_view method;
    Handler handler;
  };
  static constexpr Endpoint kEndpoints[] = {
      {"/api/tables", "GET", Tables},     {"/api/describe", "GET", Describe},
      {"/api/files", "GET", Files},       {"/api/optimize", "GET", OptimizeDryRun},
      {"/api/diagnose", "GET", Diagnose}, {"/api/simulate", "POST", Simulate},
  };
  for (const Endpoint& e : kEndpoints) {
    if (e.path != req.path) continue;
    if (e.method != req.method) {
      Fail(405, fmt::format("{} takes {}, not {}", e.path, e.method, Params::Clip(req.method)));
    }
    return ApiResponse{200, e.handler(config, req)};
  }
  Fail(404, fmt::format("no endpoint '{}'", Params::Clip(req.path)));
}

}  // namespace

bool HasSimulator() {
#ifdef LITHIFY_SERVER_HAVE_SIM
  return true;
#else
  return false;
#endif
}

bool HasDiagnose() {
#ifdef LITHIFY_SERVER_HAVE_DIAGNOSE
  return true;
#else
  return false;
#endif
}

ApiResponse HandleApi(const ServerConfig& config, const ApiRequest& request) {
  try {
    return Route(config, request);
  } catch (const HttpError& e) {
    return ApiResponse{e.status, ErrorBody(e.status, e.message)};
  } catch (const std::bad_alloc&) {
    return ApiResponse{500, ErrorBody(500, "out of memory")};
  } catch (const std::exception& e) {
    return ApiResponse{500, ErrorBody(500, fmt::format("internal error: {}", e.what()))};
  }
}

const Asset* FindAsset(std::string_view path) {
  if (path == "/") path = "/index.html";
  for (size_t i = 0; i < kWebAssetCount; ++i) {
    if (kWebAssets[i].path == path) return &kWebAssets[i];
  }
  return nullptr;
}

std::vector<std::string_view> AssetPaths() {
  std::vector<std::string_view> out;
  for (size_t i = 0; i < kWebAssetCount; ++i) out.push_back(kWebAssets[i].path);
  return out;
}

namespace {

// Sent with every answer: nothing is cached, types are not sniffed, the panel loads only
// its own files and may not be framed by another page (clickjacking).
void AddDefaultHeaders(HttpResponse& res) {
  res.headers.emplace_back("Cache-Control", "no-store");
  res.headers.emplace_back("X-Content-Type-Options", "nosniff");
  res.headers.emplace_back("Content-Security-Policy",
                           "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
                           "frame-ancestors 'none'");
}

HttpResponse JsonResponse(int status, const ordered_json& body) {
  HttpResponse res;
  res.status = status;
  res.body = body.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
  AddDefaultHeaders(res);
  return res;
}

HttpResponse ErrorResponse(int status, const std::string& message) {
  return JsonResponse(status, ErrorBody(status, message));
}

HttpResponse ServeApi(const ServerConfig& config, const HttpRequest& req) {
  ApiRequest api;
  api.method = req.method;
  api.path = req.path;
  auto query = ParseQuery(req.query);
  if (!query) return ErrorResponse(400, "malformed query string (bad percent escape)");
  for (auto& [k, v] : *query) api.params.emplace(std::move(k), std::move(v));
  api.body = req.body;
  ApiResponse r = HandleApi(config, api);
  return JsonResponse(r.status, r.body);
}

HttpResponse ServeAsset(const HttpRequest& req) {
  if (req.method != "GET" && req.method != "HEAD") {
    return ErrorResponse(405, fmt::format("{} takes GET, not {}", Params::Clip(req.path), Params::Clip(req.method)));
  }
  const Asset* a = FindAsset(req.path);
  if (!a) return ErrorResponse(404, fmt::format("no file '{}'", Params::Clip(req.path)));
  HttpResponse res;
  res.content_type = std::string(a->content_type);
  res.body = std::string(a->data);
  AddDefaultHeaders(res);
  return res;
}

std::chrono::milliseconds OrDefault(std::chrono::milliseconds v, std::chrono::milliseconds dflt) {
  return v.count() > 0 ? v : dflt;
}

}  // namespace

Status Serve(const ServerConfig& config, const ServeOptions& options) {
  TransportOptions t;
  t.host = options.host;
  t.port = options.port;
  t.limits.max_body_bytes = config.max_body_bytes;
  t.header_timeout = OrDefault(options.header_timeout, t.header_timeout);
  t.body_timeout = OrDefault(options.body_timeout, t.body_timeout);
  if (options.max_connections > 0) t.max_connections = options.max_connections;
  // The policy needs the bound port (with --port 0 it is known only after the bind); it is
  // set before the first connection is accepted, and read-only afterwards.
  auto policy = std::make_shared<AccessPolicy>();
  t.check_headers = [policy](const HttpRequest& req) -> std::optional<HttpResponse> {
    std::optional<AccessRefusal> refused = CheckAccess(*policy, req);
    if (!refused) return std::nullopt;
    return ErrorResponse(refused->status, refused->message);
  };
  t.handle = [&config](const HttpRequest& req) {
    if (req.path.rfind("/api/", 0) == 0) return ServeApi(config, req);
    return ServeAsset(req);
  };
  t.error_response = [](int status, const std::string& message) { return ErrorResponse(status, message); };
  t.on_listening = [&](int port) {
    *policy = MakeAccessPolicy(options.host, port, options.allowed_hosts);
    if (options.on_listening) options.on_listening(port);
  };
  t.should_stop = options.should_stop;
  return RunHttpServer(t);
}

}  // namespace lithify::server
