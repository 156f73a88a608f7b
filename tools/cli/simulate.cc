// `lithify simulate [SCENARIO.json] [--KEY VALUE ...] [--json]`: a scenario file and/or one
// flag per scenario key (flags win) -> sim::Simulate; renders a concise summary, or with
// --json the whole result (totals, steps with the decision log). The flags are generated
// from sim::ScenarioKeysHelp(), so every key is documented in --help.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "lithify/base/macros.h"
#include "lithify/formats/policy.h"
#include "lithify/sim/simulate.h"
#include "tools/cli/cli.h"
#include "tools/cli/output.h"

namespace lithify::cli {
namespace {

struct SimulateFlags {
  std::string scenario_path;
  std::map<std::string, std::string> values;  // key -> flag text, for the flags given
  bool keys = false;                          // --keys: print the key table
};

// Pairs of keys where giving one on the command line replaces the other from the file.
const std::map<std::string, std::string>& Exclusive() {
  static const std::map<std::string, std::string> m = {{"days", "hours"},
                                                       {"hours", "days"},
                                                       {"mb_per_hour", "gb_per_day"},
                                                       {"gb_per_day", "mb_per_hour"}};
  return m;
}

Result<nlohmann::json> ReadScenarioFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::IOError("{}: cannot open the scenario file", path);
  std::stringstream text;
  text << in.rdbuf();
  Result<nlohmann::json> j = sim::ParseScenarioJson(text.str());
  if (!j.ok()) return Status::InvalidArgument("usage: {}: {}", path, j.status().message());
  return j;
}

// 3650 rather than 3650.0; 0.001 as is.
std::string Number(const nlohmann::ordered_json& v) {
  const double d = v.get<double>();
  if (d == std::floor(d) && std::fabs(d) < 1e15) return fmt::format("{}", static_cast<int64_t>(d));
  return fmt::format("{}", d);
}

std::string TypeName(const std::string& type) {
  if (type == "integer") return "INT";
  if (type == "number") return "NUM";
  if (type == "boolean") return "BOOL";
  if (type == "string_list") return "A,B";
  return "TEXT";
}

std::string KeyTable() {
  std::string out;
  for (const auto& k : sim::ScenarioKeysHelp()) {
    std::string range;
    if (k.contains("min")) range = fmt::format(" [{}..{}]", Number(k["min"]), Number(k["max"]));
    if (k.contains("allowed")) range = fmt::format(" {{{}}}", fmt::join(k["allowed"].get<std::vector<std::string>>(), "|"));
    const std::string unit = k["unit"].get<std::string>();
    out += fmt::format("  {:<32} {}{}{}; default {}: {}\n", k["key"].get<std::string>(),
                       k["type"].get<std::string>(), unit.empty() ? "" : " (" + unit + ")", range,
                       k["default"].is_null() ? std::string("derived") : k["default"].dump(),
                       k["help"].get<std::string>());
  }
  return out;
}

Status RunSimulate(const SimulateFlags& f, const Context& ctx) {
  if (f.keys) {
    if (ctx.json) return WriteStdout(sim::ScenarioKeysHelp().dump(2) + "\n");
    return WriteStdout(KeyTable());
  }
  nlohmann::json j = nlohmann::json::object();
  if (!f.scenario_path.empty()) {
    LITHIFY_ASSIGN_OR_RETURN(j, ReadScenarioFile(f.scenario_path));
  }
  for (const auto& [key, text] : f.values) {
    auto v = sim::ScenarioValueFromText(key, text);
    if (!v.ok()) return UsageError("--{}: {}", key, v.status().message());
    auto other = Exclusive().find(key);
    if (other != Exclusive().end()) j.erase(other->second);
    j[key] = *v;
  }
  auto scenario = sim::ScenarioFromJson(j);
  if (!scenario.ok()) {
    return UsageError("{}{}", f.scenario_path.empty() ? "" : f.scenario_path + ": ",
                      scenario.status().message());
  }
  // The simulator plays Delta's maintenance (the only format lithify maintains yet).
  LITHIFY_ASSIGN_OR_RETURN(const planner::TablePolicy* policy,
                           formats::MaintenancePolicy(formats::TableFormat::kDelta));
  LITHIFY_ASSIGN_OR_RETURN(const sim::SimResult r, sim::Simulate(*scenario, *policy));
  if (ctx.json) return WriteStdout(sim::SimResultToJson(r).dump() + "\n");
  std::string text;
  for (const std::string& line : sim::SimResultToText(r)) text += line + "\n";
  return WriteStdout(text);
}

}  // namespace

void RegisterSimulateCommand(CLI::App& app, Runner* selected) {
  auto flags = std::make_shared<SimulateFlags>();
  CLI::App* cmd = app.add_subcommand(
      "simulate",
      "Simulate an ingest workload and a maintenance policy on synthetic file metadata, "
      "planned by the real OPTIMIZE / auto compaction / Z-order / liquid planners. Every "
      "scenario key is also a flag (--key or --key-with-dashes) and overrides the file. "
      "Sizes are MiB unless the key says gb. See docs/simulator.md.");
  PathOption(cmd->add_option("scenario", flags->scenario_path, "Scenario JSON file (optional)"));
  cmd->add_flag("--keys", flags->keys, "Print the scenario keys (with --json: as JSON) and exit");
  for (const auto& k : sim::ScenarioKeysHelp()) {
    const std::string key = k["key"].get<std::string>();
    std::string dashed = key;
    std::replace(dashed.begin(), dashed.end(), '_', '-');
    std::string names = "--" + key;
    if (dashed != key) names += ",--" + dashed;
    std::string help = k["help"].get<std::string>();
    const std::string unit = k["unit"].get<std::string>();
    if (k.contains("min")) {
      help += fmt::format(" Range {}..{}{}.", Number(k["min"]), Number(k["max"]),
                          unit.empty() ? "" : " " + unit);
    }
    if (k.contains("allowed")) {
      help += fmt::format(" One of: {}.", fmt::join(k["allowed"].get<std::vector<std::string>>(), ", "));
    }
    help += k["default"].is_null() ? std::string(" Default: derived.")
                                   : fmt::format(" Default: {}.", k["default"].dump());
    cmd->add_option_function<std::string>(
           names, [flags, key](const std::string& v) { flags->values[key] = v; }, help)
        ->type_name(TypeName(k["type"].get<std::string>()))
        ->group("Scenario keys (" + k["group"].get<std::string>() + ")");
  }
  cmd->callback([flags, selected]() {
    *selected = [flags](const Context& ctx) { return RunSimulate(*flags, ctx); };
  });
}

}  // namespace lithify::cli
