// iceberg_scan: prints an Iceberg table's live rows as JSON lines (parquet::RenderRows'
// canonical rendering), or its planned files with --files. A developer tool for the
// Iceberg module until `lithify scan` reads Iceberg through the table seam.
//
//   iceberg_scan TABLE [--location-map FROM=TO]... [--snapshot ID | --ref NAME | --as-of MS]
//                [--where PREDICATE] [--files]
// Exit 0 ok, 1 failure (the error on stderr), 2 usage error.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "lithify/base/macros.h"
#include "lithify/iceberg/reader.h"
#include "lithify/parquet/rows_json.h"

using namespace lithify;
using namespace lithify::iceberg;

namespace {

struct Args {
  std::string table;
  std::vector<std::string> maps;
  SnapshotSelector selector;
  std::string where;
  bool files = false;
};

Status Run(const Args& a) {
  LITHIFY_ASSIGN_OR_RETURN(LocationMap map, LocationMap::Parse(a.maps));
  std::shared_ptr<io::FileSystem> fs = io::NewLocalFileSystem();
  LITHIFY_ASSIGN_OR_RETURN(auto table, IcebergTable::Open(fs, a.table, OpenOptions{map}));
  LITHIFY_ASSIGN_OR_RETURN(const Snapshot* snap, table->Select(a.selector));
  PlanOptions opts;
  if (!a.where.empty()) {
    LITHIFY_ASSIGN_OR_RETURN(expr::Expr e, expr::Parse(a.where));
    opts.where = e;
  }
  LITHIFY_ASSIGN_OR_RETURN(OutputSchema out, OutputSchema::Build(table->metadata().current_schema()));
  PlanStats stats;
  std::string text;
  Status st = table->PlanFiles(snap, opts, [&](PlannedFile&& p) -> Status {
    if (a.files) {
      std::printf("{\"path\":\"%s\",\"records\":%lld,\"data_sequence_number\":%lld,\"deletes\":%zu}\n",
                  p.file.recorded_path.c_str(), static_cast<long long>(p.file.record_count),
                  static_cast<long long>(p.data_sequence_number), p.deletes.size());
      return Status::OK();
    }
    LITHIFY_ASSIGN_OR_RETURN(auto reader, LiveRowsReader::Open(*table, out, p));
    LiveBatch b;
    for (;;) {
      LITHIFY_ASSIGN_OR_RETURN(bool more, reader->Next(&b));
      if (!more) return Status::OK();
      text.clear();
      LITHIFY_RETURN_NOT_OK(parquet::RenderRows(out.schema(), out.top_level_fields(), b.batch,
                                                parquet::RowFormat::kJsonLines, -1, &text));
      std::fwrite(text.data(), 1, text.size(), stdout);
    }
  }, &stats);
  LITHIFY_RETURN_NOT_OK(st);
  std::fprintf(stderr, "%s (%s): %lld manifests, %lld data files (%lld skipped), %lld delete files\n",
               table->metadata_path().c_str(), table->located_by().c_str(), static_cast<long long>(stats.manifests),
               static_cast<long long>(stats.data_files), static_cast<long long>(stats.skipped_files),
               static_cast<long long>(stats.delete_files));
  return Status::OK();
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  auto usage = [] {
    std::fprintf(stderr, "usage: iceberg_scan TABLE [--location-map FROM=TO]... [--snapshot ID | --ref NAME | "
                         "--as-of MS] [--where PREDICATE] [--files]\n");
    return 2;
  };
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (s == "--files") {
      a.files = true;
    } else if (s == "--location-map" || s == "--snapshot" || s == "--ref" || s == "--as-of" || s == "--where") {
      const char* v = value();
      if (v == nullptr) return usage();
      if (s == "--location-map") a.maps.push_back(v);
      else if (s == "--snapshot") a.selector = SnapshotSelector::Id(std::stoll(v));
      else if (s == "--as-of") a.selector = SnapshotSelector::AsOf(std::stoll(v));
      else if (s == "--ref") a.selector = SnapshotSelector::Ref(v);
      else a.where = v;
    } else if (a.table.empty() && s[0] != '-') {
      a.table = s;
    } else {
      return usage();
    }
  }
  if (a.table.empty()) return usage();
  Status st = Run(a);
  if (!st.ok()) {
    std::fprintf(stderr, "iceberg_scan: %s\n", st.ToString().c_str());
    return st.IsInvalidArgument() && st.message().rfind("usage: ", 0) == 0 ? 2 : 1;
  }
  return 0;
}
