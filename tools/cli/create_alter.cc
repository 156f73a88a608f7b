// `lithify create` and `lithify alter`: flags -> delta::NewTableSpec / AlterSpec ->
// commands::CreateTable / AlterTable; prints the committed version and the resulting
// protocol and table features (text, or one JSON object with --json).
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lithify/base/macros.h"
#include "lithify/commands/create_alter.h"
#include "lithify/delta/describe.h"
#include "lithify/delta/ddl.h"
#include "lithify/io/filesystem.h"
#include "tools/cli/cli.h"
#include "tools/cli/storage.h"
#include "tools/cli/output.h"

namespace lithify::cli {
namespace {

using nlohmann::ordered_json;

// "k=v" -> (k, v); a usage error for a missing '=' or an empty key.
Result<std::pair<std::string, std::string>> SplitKeyValue(std::string_view flag, const std::string& text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) return UsageError("{} expects KEY=VALUE, got '{}'", flag, text);
  return std::make_pair(text.substr(0, eq), text.substr(eq + 1));
}

Result<std::map<std::string, std::string>> ParseKeyValues(std::string_view flag, const std::vector<std::string>& items) {
  std::map<std::string, std::string> out;
  for (const auto& item : items) {
    LITHIFY_ASSIGN_OR_RETURN(auto kv, SplitKeyValue(flag, item));
    out[kv.first] = kv.second;
  }
  return out;
}

Status CheckColumnList(std::string_view flag, const std::vector<std::string>& cols) {
  for (const auto& c : cols) {
    if (c.empty()) return UsageError("{}: empty column name", flag);
  }
  return Status::OK();
}

// Reports the committed version with the protocol of that version, as describe shows it.
Status Print(std::string_view verb, const std::string& table, const delta::CommitResult& r, const Context& ctx) {
  LITHIFY_ASSIGN_OR_RETURN(OpenedLocation loc, OpenLocation(table));
  LITHIFY_ASSIGN_OR_RETURN(delta::TableDetail d,
                           delta::DescribeDetail(loc.fs(), loc.path(), delta::VersionSpec::AtVersion(r.version)));
  if (ctx.json) {
    ordered_json j;
    j["table"] = table;
    j["version"] = r.version;
    j["minReaderVersion"] = d.min_reader_version;
    j["minWriterVersion"] = d.min_writer_version;
    j["tableFeatures"] = d.table_features;
    j["partitionColumns"] = d.partition_columns;
    j["clusteringColumns"] = d.clustering_columns;
    LITHIFY_RETURN_NOT_OK(WriteStdout(j.dump() + "\n"));
    return FlushStdout();
  }
  std::string features;
  for (const auto& f : d.table_features) features += (features.empty() ? "" : ", ") + f;
  std::string text = fmt::format("{} {} at version {}\nprotocol: reader {}, writer {}\nfeatures: {}\n", verb, table,
                                 r.version, d.min_reader_version, d.min_writer_version,
                                 features.empty() ? "(none)" : features);
  if (!d.clustering_columns.empty()) {
    std::string cols;
    for (const auto& c : d.clustering_columns) cols += (cols.empty() ? "" : ", ") + c;
    text += "clustering: " + cols + "\n";
  }
  if (r.checkpoint_error) text += "warning: post-commit checkpoint failed: " + *r.checkpoint_error + "\n";
  LITHIFY_RETURN_NOT_OK(WriteStdout(text));
  return FlushStdout();
}

// A failure after the commit (describing or printing it) says what was committed.
Status Report(std::string_view verb, const std::string& table, const delta::CommitResult& r, const Context& ctx) {
  return AfterCommit(fmt::format("version {} of {}", r.version, table), Print(verb, table, r, ctx));
}

// ---- create ----

struct CreateFlags {
  std::string table;
  std::string schema;
  std::vector<std::string> partitioned_by;
  std::vector<std::string> cluster_by;
  std::vector<std::string> properties;
  std::string name;
  std::string description;
  bool name_given = false;
  bool description_given = false;
};

Status RunCreate(const CreateFlags& f, const Context& ctx) {
  delta::NewTableSpec spec;
  Result<delta::StructType> schema = delta::ParseSchemaDdl(f.schema);
  if (!schema.ok()) return UsageError("--schema: {}", schema.status().message());
  spec.schema = std::move(*schema);
  LITHIFY_RETURN_NOT_OK(CheckColumnList("--partitioned-by", f.partitioned_by));
  LITHIFY_RETURN_NOT_OK(CheckColumnList("--cluster-by", f.cluster_by));
  spec.partition_columns = f.partitioned_by;
  spec.clustering_columns = f.cluster_by;
  LITHIFY_ASSIGN_OR_RETURN(spec.properties, ParseKeyValues("--property", f.properties));
  if (f.name_given) spec.name = f.name;
  if (f.description_given) spec.description = f.description;
  LITHIFY_ASSIGN_OR_RETURN(OpenedLocation loc, OpenLocation(f.table));
  LITHIFY_ASSIGN_OR_RETURN(delta::CommitResult r, commands::CreateTable(loc.fs(), loc.path(), spec));
  return Report("created", f.table, r, ctx);
}

// ---- alter ----

struct AlterFlags {
  std::string table;
  std::vector<std::string> set;
  std::vector<std::string> unset;
  std::string cluster_by;
  bool cluster_by_given = false;
  bool if_exists = false;
};

Result<std::vector<std::string>> ParseClusterBy(const std::string& text) {
  std::string lower = text;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "none") return std::vector<std::string>{};
  std::vector<std::string> cols;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = std::min(text.find(',', start), text.size());
    cols.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  LITHIFY_RETURN_NOT_OK(CheckColumnList("--cluster-by", cols));
  return cols;
}

Status RunAlter(const AlterFlags& f, const Context& ctx) {
  delta::AlterSpec spec;
  LITHIFY_ASSIGN_OR_RETURN(spec.set_properties, ParseKeyValues("--set", f.set));
  for (const auto& k : f.unset) {
    if (k.empty()) return UsageError("--unset: empty property name");
  }
  spec.unset_properties = f.unset;
  spec.unset_if_exists = f.if_exists;
  if (f.cluster_by_given) {
    LITHIFY_ASSIGN_OR_RETURN(spec.clustering_columns, ParseClusterBy(f.cluster_by));
  }
  if (spec.empty()) return UsageError("alter needs at least one of --set, --unset or --cluster-by");
  LITHIFY_ASSIGN_OR_RETURN(OpenedLocation loc, OpenLocation(f.table));
  LITHIFY_ASSIGN_OR_RETURN(delta::CommitResult r, commands::AlterTable(loc.fs(), loc.path(), spec));
  return Report("altered", f.table, r, ctx);
}

}  // namespace

void RegisterCreateAlterCommands(CLI::App& app, Runner* selected) {
  {
    auto f = std::make_shared<CreateFlags>();
    CLI::App* cmd = app.add_subcommand("create", "Create an empty Delta table (CREATE TABLE)");
    PathOption(cmd->add_option("table", f->table, "Table directory")->required());
    cmd->add_option("--schema", f->schema, "Columns, e.g. \"id long NOT NULL, ts timestamp, s struct<a: int>\"")
        ->required();
    cmd->add_option("--partitioned-by", f->partitioned_by, "Partition columns, comma-separated")
        ->delimiter(',')
        ->allow_extra_args(false);
    cmd->add_option("--cluster-by", f->cluster_by, "Liquid clustering columns (at most 4), comma-separated")
        ->delimiter(',')
        ->allow_extra_args(false);
    cmd->add_option("--property", f->properties, "Table property KEY=VALUE (repeatable)")->allow_extra_args(false);
    cmd->add_option("--name", f->name, "Table name recorded in the metadata");
    cmd->add_option("--description", f->description, "Table description recorded in the metadata");
    cmd->callback([selected, f, cmd] {
      f->name_given = cmd->count("--name") > 0;
      f->description_given = cmd->count("--description") > 0;
      *selected = [f](const Context& ctx) { return RunCreate(*f, ctx); };
    });
  }
  {
    auto f = std::make_shared<AlterFlags>();
    CLI::App* cmd = app.add_subcommand("alter", "Change table properties or clustering (ALTER TABLE)");
    PathOption(cmd->add_option("table", f->table, "Delta table directory")->required());
    cmd->add_option("--set", f->set, "Set property KEY=VALUE (repeatable)")->allow_extra_args(false);
    cmd->add_option("--unset", f->unset, "Remove property KEY (repeatable)")->allow_extra_args(false);
    cmd->add_flag("--if-exists", f->if_exists, "With --unset: ignore properties the table does not have");
    cmd->add_option("--cluster-by", f->cluster_by, "New clustering columns, comma-separated, or 'none'");
    cmd->callback([selected, f, cmd] {
      f->cluster_by_given = cmd->count("--cluster-by") > 0;
      *selected = [f](const Context& ctx) { return RunAlter(*f, ctx); };
    });
  }
}

}  // namespace lithify::cli
