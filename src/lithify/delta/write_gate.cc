#include "lithify/delta/write_gate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "lithify/delta/generated_columns.h"
#include "lithify/delta/identity.h"
#include "lithify/delta/table_features.h"
#include "lithify/delta/table_properties.h"

namespace lithify::delta {
namespace {

using Op = WriteOperation;
using V = FeatureVerdict;

// Metadata values are JSON texts: a JSON string is shown without its quotes.
std::string MetadataText(const std::string& json_text) {
  if (json_text.size() >= 2 && json_text.front() == '"' && json_text.back() == '"') {
    return json_text.substr(1, json_text.size() - 2);
  }
  return json_text;
}

void CollectFieldUses(const DataType& t, const std::string& prefix, std::vector<FeatureUse>* out) {
  for (const StructField& f : t.fields) {
    const std::string path = prefix.empty() ? f.name : prefix + "." + f.name;
    if (f.metadata.count("delta.invariants") != 0) {
      out->push_back({"invariants", fmt::format("column {} invariant {}", path, f.metadata.at("delta.invariants"))});
    }
    if (auto g = f.metadata.find("delta.generationExpression"); g != f.metadata.end()) {
      out->push_back({"generatedColumns", fmt::format("column {} GENERATED ALWAYS AS ({})", path, GenerationExpression(f))});
    }
    if (IsIdentityField(f)) {
      out->push_back({"identityColumns", fmt::format("column {} is an identity column (delta.identity.*)", path)});
    }
    if (auto d = f.metadata.find("CURRENT_DEFAULT"); d != f.metadata.end()) {
      out->push_back({"allowColumnDefaults", fmt::format("column {} DEFAULT {}", path, MetadataText(d->second))});
    }
    if (f.type.kind == DataType::Kind::kStruct) CollectFieldUses(f.type, path, out);
  }
}

Status Refusal(const FeatureUse& use, WriteOperation op) {
  if (use.feature == "appendOnly") {
    return Status::InvalidArgument(
        "DELTA_CANNOT_MODIFY_APPEND_ONLY: the table is append-only (table feature appendOnly, "
        "delta.appendOnly=true): a {} would remove rows; set delta.appendOnly=false to permit it",
        WriteOperationName(op));
  }
  return Status::NotSupported(
      "DELTA_UNSUPPORTED_FEATURES_FOR_WRITE: table feature {} ({}): lithify does not fill column defaults, so it "
      "refuses the {} rather than commit values the feature does not guarantee",
      use.feature, use.detail, WriteOperationName(op));
}

}  // namespace

std::string_view WriteOperationName(WriteOperation op) {
  switch (op) {
    case Op::kAppend: return "append";
    case Op::kDeleteDv: return "delete";
    case Op::kDeleteCopyOnWrite: return "delete (copy-on-write)";
    case Op::kRewrite: return "rewrite";
    case Op::kAlter: return "alter";
    case Op::kCheckpoint: return "checkpoint";
    case Op::kVacuum: return "vacuum";
  }
  return "write";
}

std::string_view FeatureVerdictName(FeatureVerdict v) {
  switch (v) {
    case V::kAllowed: return "allowed";
    case V::kEnforced: return "enforced";
    case V::kRefused: return "refused";
  }
  return "allowed";
}

FeatureVerdict VerdictFor(std::string_view feature, WriteOperation op) {
  const TableFeature* f = FindTableFeature(feature);
  return f != nullptr ? f->verdict(op) : V::kAllowed;
}

std::vector<FeatureUse> FeaturesInUse(const StructType& schema, const std::map<std::string, std::string>& config) {
  std::vector<FeatureUse> out;
  if (IsTrueIgnoringCase(config, prop::kAppendOnly)) out.push_back({"appendOnly", "delta.appendOnly=true"});
  CollectFieldUses(schema, "", &out);
  for (const auto& [k, v] : config) {
    if (k.size() > kConstraintPrefix.size() && k.compare(0, kConstraintPrefix.size(), kConstraintPrefix) == 0) {
      out.push_back({"checkConstraints", fmt::format("constraint {} ({})", k.substr(kConstraintPrefix.size()), v)});
    }
  }
  return out;
}

Status CheckWriteOperation(const StructType& schema, const std::map<std::string, std::string>& config,
                           WriteOperation op) {
  bool generated_checked = false;
  for (const FeatureUse& use : FeaturesInUse(schema, config)) {
    const V verdict = VerdictFor(use.feature, op);
    if (verdict == V::kRefused) return Refusal(use, op);
    // Enforced only where lithify computes every generation expression of the table:
    // otherwise the append is refused naming the first column it cannot compute.
    if (verdict == V::kEnforced && use.feature == "generatedColumns" && !generated_checked) {
      generated_checked = true;
      auto generated = GeneratedColumns::Make(schema);
      if (!generated.ok()) return generated.status();
    }
  }
  return Status::OK();
}

Status CheckWriteOperation(const Snapshot& snapshot, WriteOperation op) {
  return CheckWriteOperation(snapshot.schema(), snapshot.properties(), op);
}

}  // namespace lithify::delta
