// libFuzzer target: simulator scenarios, as `lithify simulate FILE` and the panel read
// them. Each input is parsed with ParseScenarioJson (the file path, with its nesting
// limit) and, separately, with nlohmann's own parser as the panel does before
// ScenarioFromJson (which must never recurse into a value, whatever its depth). A
// scenario that validates must serialize (ScenarioToJson) to keys that validate again to
// the same scenario text. Simulate itself is not run: a valid scenario may ask for years
// of batches. Every key's ScenarioValueFromText sees the input as flag text too.
// Seeds: tests/fuzz/seeds/scenario. Any status is fine; a crash, sanitizer report or
// broken invariant (abort) is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "lithify/sim/simulate.h"

namespace {

using lithify::sim::Scenario;
using nlohmann::json;

void Check(bool ok) {
  if (!ok) std::abort();
}

void Validate(const json& j) {
  lithify::Result<Scenario> s = lithify::sim::ScenarioFromJson(j);
  if (!s.ok()) return;
  const std::string text = lithify::sim::ScenarioToJson(*s).dump();
  lithify::Result<Scenario> again = lithify::sim::ScenarioFromJson(json::parse(text));
  Check(again.ok());
  Check(lithify::sim::ScenarioToJson(*again).dump() == text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (lithify::Result<json> j = lithify::sim::ParseScenarioJson(text); j.ok()) Validate(*j);
  json raw = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (raw.is_object()) Validate(raw);
  for (const char* key : {"days", "cluster_by", "maintenance", "optimize_write", "size_jitter", "start_date"}) {
    lithify::Result<json> v = lithify::sim::ScenarioValueFromText(key, text);
    if (v.ok()) (void)lithify::sim::ScenarioFromJson(json{{key, *v}});
  }
  return 0;
}
