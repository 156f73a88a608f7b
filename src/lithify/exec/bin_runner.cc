#include "lithify/exec/bin_runner.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "lithify/base/macros.h"

extern char** environ;

namespace lithify::exec {

namespace {

using Json = nlohmann::json;

Json OptInt(const std::optional<int64_t>& v) { return v ? Json(*v) : Json(nullptr); }

// Member readers: InvalidArgument naming `where.key` when missing or mistyped.
Result<const Json*> Member(const Json& j, const char* key, const std::string& where) {
  if (!j.is_object()) return Status::InvalidArgument("bin result: {} must be an object", where);
  auto it = j.find(key);
  if (it == j.end()) return Status::InvalidArgument("bin result: {}.{} is missing", where, key);
  return &*it;
}

Result<int64_t> Int(const Json& j, const char* key, const std::string& where) {
  LITHIFY_ASSIGN_OR_RETURN(const Json* v, Member(j, key, where));
  if (v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
    return Status::InvalidArgument("bin result: {}.{} is out of range", where, key);
  }
  if (!v->is_number_integer()) return Status::InvalidArgument("bin result: {}.{} must be an integer", where, key);
  return v->get<int64_t>();
}

Result<std::optional<int64_t>> OptIntOf(const Json& j, const char* key, const std::string& where) {
  LITHIFY_ASSIGN_OR_RETURN(const Json* v, Member(j, key, where));
  if (v->is_null()) return std::optional<int64_t>();
  LITHIFY_ASSIGN_OR_RETURN(int64_t i, Int(j, key, where));
  return std::optional<int64_t>(i);
}

Result<std::string> Str(const Json& j, const char* key, const std::string& where) {
  LITHIFY_ASSIGN_OR_RETURN(const Json* v, Member(j, key, where));
  if (!v->is_string()) return Status::InvalidArgument("bin result: {}.{} must be a string", where, key);
  return v->get<std::string>();
}

Result<bool> Bool(const Json& j, const char* key, const std::string& where) {
  LITHIFY_ASSIGN_OR_RETURN(const Json* v, Member(j, key, where));
  if (!v->is_boolean()) return Status::InvalidArgument("bin result: {}.{} must be a boolean", where, key);
  return v->get<bool>();
}

Result<const Json*> Array(const Json& j, const char* key, const std::string& where) {
  LITHIFY_ASSIGN_OR_RETURN(const Json* v, Member(j, key, where));
  if (!v->is_array()) return Status::InvalidArgument("bin result: {}.{} must be an array", where, key);
  return v;
}

Json InputToJson(const planner::FileRef& f) {
  return Json{{"path", f.path},
              {"dvUniqueId", f.dv_unique_id},
              {"size", f.size},
              {"numRecords", OptInt(f.num_records)},
              {"deletedRows", f.deleted_rows}};
}

Result<planner::FileRef> InputFromJson(const Json& j, const std::string& where) {
  planner::FileRef f;
  LITHIFY_ASSIGN_OR_RETURN(f.path, Str(j, "path", where));
  LITHIFY_ASSIGN_OR_RETURN(f.dv_unique_id, Str(j, "dvUniqueId", where));
  LITHIFY_ASSIGN_OR_RETURN(f.size, Int(j, "size", where));
  LITHIFY_ASSIGN_OR_RETURN(f.num_records, OptIntOf(j, "numRecords", where));
  LITHIFY_ASSIGN_OR_RETURN(f.deleted_rows, Int(j, "deletedRows", where));
  return f;
}

Json OutputToJson(const OutputFile& o) {
  Json pv = Json::object();
  for (const auto& [k, v] : o.partition_values) pv[k] = v ? Json(*v) : Json(nullptr);
  Json tags = Json::object();
  for (const auto& [k, v] : o.tags) tags[k] = v;
  return Json{{"path", o.path},
              {"size", o.size},
              {"numRecords", o.num_records},
              {"partitionValues", std::move(pv)},
              {"modificationTime", o.modification_time},
              {"stats", o.stats ? Json(*o.stats) : Json(nullptr)},
              {"tags", std::move(tags)},
              {"baseRowId", OptInt(o.base_row_id)},
              {"defaultRowCommitVersion", OptInt(o.default_row_commit_version)},
              {"rowGroupsCopied", o.row_groups_copied},
              {"pagesCopied", o.pages_copied}};
}

Result<OutputFile> OutputFromJson(const Json& j, const std::string& where) {
  OutputFile o;
  LITHIFY_ASSIGN_OR_RETURN(o.path, Str(j, "path", where));
  LITHIFY_ASSIGN_OR_RETURN(o.size, Int(j, "size", where));
  LITHIFY_ASSIGN_OR_RETURN(o.num_records, Int(j, "numRecords", where));
  LITHIFY_ASSIGN_OR_RETURN(const Json* pv, Member(j, "partitionValues", where));
  if (!pv->is_object()) return Status::InvalidArgument("bin result: {}.partitionValues must be an object", where);
  for (const auto& [k, v] : pv->items()) {
    if (v.is_null()) {
      o.partition_values[k] = std::nullopt;
    } else if (v.is_string()) {
      o.partition_values[k] = v.get<std::string>();
    } else {
      return Status::InvalidArgument("bin result: {}.partitionValues.{} must be a string or null", where, k);
    }
  }
  LITHIFY_ASSIGN_OR_RETURN(o.modification_time, Int(j, "modificationTime", where));
  LITHIFY_ASSIGN_OR_RETURN(const Json* stats, Member(j, "stats", where));
  if (stats->is_string()) {
    o.stats = stats->get<std::string>();
  } else if (!stats->is_null()) {
    return Status::InvalidArgument("bin result: {}.stats must be a string or null", where);
  }
  LITHIFY_ASSIGN_OR_RETURN(const Json* tags, Member(j, "tags", where));
  if (!tags->is_object()) return Status::InvalidArgument("bin result: {}.tags must be an object", where);
  for (const auto& [k, v] : tags->items()) {
    if (!v.is_string()) return Status::InvalidArgument("bin result: {}.tags.{} must be a string", where, k);
    o.tags[k] = v.get<std::string>();
  }
  LITHIFY_ASSIGN_OR_RETURN(o.base_row_id, OptIntOf(j, "baseRowId", where));
  LITHIFY_ASSIGN_OR_RETURN(o.default_row_commit_version, OptIntOf(j, "defaultRowCommitVersion", where));
  LITHIFY_ASSIGN_OR_RETURN(o.row_groups_copied, Int(j, "rowGroupsCopied", where));
  LITHIFY_ASSIGN_OR_RETURN(o.pages_copied, Int(j, "pagesCopied", where));
  return o;
}

// The JSON error object the child printed, else its stdout quoted briefly.
std::string ChildError(const std::string& out) {
  Json j = Json::parse(out, nullptr, false);
  if (j.is_object() && j.contains("error")) {
    const Json& e = j["error"];
    if (e.is_object() && e.contains("message") && e["message"].is_string()) return e["message"].get<std::string>();
    if (e.is_string()) return e.get<std::string>();
  }
  std::string s = out.substr(0, 300);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s.empty() ? "no output" : "output: " + s;
}

}  // namespace

table::AddedFile AddedFileOf(const OutputFile& o) {
  table::AddedFile a;
  a.path = o.path;
  a.size = o.size;
  a.num_records = o.num_records;
  a.partition_values = o.partition_values;
  a.modification_time_ms = o.modification_time;
  a.stats = o.stats;
  a.tags = o.tags;
  a.base_row_id = o.base_row_id;
  a.default_row_commit_version = o.default_row_commit_version;
  return a;
}

nlohmann::json BinResultToJson(const BinResult& r) {
  Json inputs = Json::array();
  for (const planner::FileRef& f : r.inputs) inputs.push_back(InputToJson(f));
  Json outputs = Json::array();
  for (const OutputFile& o : r.outputs) outputs.push_back(OutputToJson(o));
  return Json{{"binId", r.bin_id},
              {"inputs", std::move(inputs)},
              {"outputs", std::move(outputs)},
              {"filesRead", r.files_read},
              {"bytesRead", r.bytes_read},
              {"rowsWritten", r.rows_written},
              {"bytesWritten", r.bytes_written},
              {"rewrittenWhole", r.rewritten_whole}};
}

Result<BinResult> BinResultFromJson(const nlohmann::json& j) {
  BinResult r;
  const std::string top = "result";
  LITHIFY_ASSIGN_OR_RETURN(int64_t id, Int(j, "binId", top));
  if (id < 0 || id > INT32_MAX) return Status::InvalidArgument("bin result: binId {} is out of range", id);
  r.bin_id = static_cast<int>(id);
  LITHIFY_ASSIGN_OR_RETURN(const Json* inputs, Array(j, "inputs", top));
  for (size_t i = 0; i < inputs->size(); ++i) {
    LITHIFY_ASSIGN_OR_RETURN(planner::FileRef f, InputFromJson((*inputs)[i], fmt::format("inputs[{}]", i)));
    r.inputs.push_back(std::move(f));
  }
  LITHIFY_ASSIGN_OR_RETURN(const Json* outputs, Array(j, "outputs", top));
  for (size_t i = 0; i < outputs->size(); ++i) {
    LITHIFY_ASSIGN_OR_RETURN(OutputFile o, OutputFromJson((*outputs)[i], fmt::format("outputs[{}]", i)));
    r.outputs.push_back(std::move(o));
  }
  LITHIFY_ASSIGN_OR_RETURN(r.files_read, Int(j, "filesRead", top));
  LITHIFY_ASSIGN_OR_RETURN(r.bytes_read, Int(j, "bytesRead", top));
  LITHIFY_ASSIGN_OR_RETURN(r.rows_written, Int(j, "rowsWritten", top));
  LITHIFY_ASSIGN_OR_RETURN(r.bytes_written, Int(j, "bytesWritten", top));
  LITHIFY_ASSIGN_OR_RETURN(r.rewritten_whole, Bool(j, "rewrittenWhole", top));
  r.status = Status::OK();
  return r;
}

Result<ChildOutput> RunChild(const std::vector<std::string>& argv) {
  if (argv.empty()) return Status::InvalidArgument("RunChild: no program");
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return Status::IOError("{}: pipe: {}", argv[0], std::strerror(errno));
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, argv[0].c_str(), &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return Status::IOError("{}: cannot start: {}", argv[0], std::strerror(rc));
  }
  ChildOutput out;
  char buf[65536];
  for (;;) {
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n > 0) {
      out.out.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return Status::IOError("{}: waitpid: {}", argv[0], std::strerror(errno));
  }
  if (WIFSIGNALED(status)) return Status::IOError("{}: killed by signal {}", argv[0], WTERMSIG(status));
  out.exit_code = WEXITSTATUS(status);
  return out;
}

Result<std::vector<BinResult>> ProcessBinRunner::Run(const planner::Plan& plan, const std::vector<int>& bin_ids,
                                                     const ExecOptions& options) {
  // The plan travels as a file: a large plan would not fit in an argument.
  const char* tmp = std::getenv("TMPDIR");
  std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/lithify-plan-XXXXXX";
  const int fd = mkstemp(path.data());
  if (fd < 0) return Status::IOError("{}: cannot create the plan file: {}", path, std::strerror(errno));
  const std::string text = planner::PlanToJson(plan).dump();
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      close(fd);
      unlink(path.c_str());
      return Status::IOError("{}: cannot write the plan: {}", path, std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  close(fd);
  auto run_one = [&](const planner::Bin& bin, const std::function<void(int64_t)>&) -> Result<BinResult> {
    std::vector<std::string> argv{program_};
    argv.insert(argv.end(), args_.begin(), args_.end());
    argv.insert(argv.end(), {"--plan", path, "--bin", std::to_string(bin.id)});
    LITHIFY_ASSIGN_OR_RETURN(ChildOutput child, RunChild(argv));
    if (child.exit_code != 0) {
      return Status::IOError("{} (bin {}, exit {}): {}", program_, bin.id, child.exit_code, ChildError(child.out));
    }
    Json j = Json::parse(child.out, nullptr, false);
    if (j.is_discarded()) return Status::Internal("{} (bin {}): stdout is not JSON: {}", program_, bin.id, ChildError(child.out));
    Result<BinResult> r = BinResultFromJson(j);
    if (!r.ok()) return r.status().WithContextF("{} (bin {})", program_, bin.id);
    if (r->bin_id != bin.id || r->inputs != bin.files) {
      return Status::Internal("{}: the result of bin {} names bin {} or other inputs", program_, bin.id, r->bin_id);
    }
    return r;
  };
  Result<std::vector<BinResult>> results = ScheduleBins(plan, bin_ids, options, run_one);
  unlink(path.c_str());
  return results;
}

}  // namespace lithify::exec
