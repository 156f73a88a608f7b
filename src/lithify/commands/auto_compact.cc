#include "lithify/commands/auto_compact.h"

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>

#include "lithify/base/macros.h"
#include "lithify/base/text.h"

namespace lithify::commands {

namespace {

// 'text' with quotes doubled, as a SQL string literal.
std::string Quoted(const std::string& v) {
  std::string out = "'";
  for (char c : v) {
    out.push_back(c);
    if (c == '\'') out.push_back('\'');
  }
  return out + "'";
}

}  // namespace

std::string AutoCompactPredicateText(const std::vector<planner::PartitionValues>& partitions) {
  std::vector<std::string> terms;
  for (const planner::PartitionValues& pv : partitions) {
    std::string term;
    for (const auto& [col, value] : pv) {
      if (!term.empty()) term += " AND ";
      term += value ? fmt::format("{} = {}", col, Quoted(*value)) : fmt::format("{} IS NULL", col);
    }
    if (term.empty()) return "";  // unpartitioned: the whole table
    terms.push_back(partitions.size() > 1 && pv.size() > 1 ? "(" + term + ")" : term);
  }
  std::string out;
  for (const std::string& t : terms) out += (out.empty() ? "" : " OR ") + t;
  return out;
}

Result<std::optional<OptimizeResult>> MaybeAutoCompact(io::FileSystem* fs, const std::string& root,
                                                       const std::map<std::string, std::string>& table_properties,
                                                       const std::vector<planner::PartitionValues>& touched,
                                                       const AutoCompactOptions& options) {
  if (!options.allowed || touched.empty()) return std::optional<OptimizeResult>();
  LITHIFY_ASSIGN_OR_RETURN(bool enabled, AutoCompactEnabled(table_properties));
  if (!enabled) return std::optional<OptimizeResult>();
  // Distinct partitions in a stable order: the plan and the recorded predicate are reproducible.
  std::set<planner::PartitionValues> distinct(touched.begin(), touched.end());
  OptimizeSpec spec;
  spec.auto_compact_partitions = std::vector<planner::PartitionValues>(distinct.begin(), distinct.end());
  spec.auto_compact = options.planner;
  spec.auto_compact_predicate = AutoCompactPredicateText(*spec.auto_compact_partitions);
  spec.threads = options.threads;
  spec.transaction = options.transaction;
  Result<OptimizeResult> r = Optimize(fs, root, spec);
  if (!r.ok()) return r.status().WithContext("auto compaction");
  return std::optional<OptimizeResult>(std::move(*r));
}

AutoCompactOutcome RunAutoCompactHook(io::FileSystem* fs, const std::string& root,
                                      const std::map<std::string, std::string>& table_properties,
                                      const std::vector<planner::PartitionValues>& touched,
                                      const AutoCompactOptions& options) {
  AutoCompactOutcome out;
  Result<std::optional<OptimizeResult>> r = MaybeAutoCompact(fs, root, table_properties, touched, options);
  if (r.ok()) {
    out.result = std::move(*r);
  } else {
    out.warning = r.status().ToString();
  }
  return out;
}

}  // namespace lithify::commands
