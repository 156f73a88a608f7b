#include "lithify/table/live_rows.h"

#include <algorithm>

namespace lithify::table {

namespace {

std::string PathText(const std::vector<std::string>& path) {
  std::string s;
  for (const std::string& p : path) s += (s.empty() ? "" : ".") + p;
  return s;
}

}  // namespace

Result<std::vector<int>> LiveRows::LeavesByFieldId(const std::vector<int32_t>& ids) const {
  const std::vector<TableColumn>& cols = columns();
  std::vector<int> out;
  for (int32_t id : ids) {
    auto it = std::find_if(cols.begin(), cols.end(), [&](const TableColumn& c) { return c.field_id == id; });
    if (it == cols.end()) return Status::NotFound("no column with field id {} in {}", id, version().location);
    out.push_back(static_cast<int>(it - cols.begin()));
  }
  return out;
}

Result<std::vector<int>> LiveRows::LeavesByPhysicalPath(const std::vector<std::vector<std::string>>& paths) const {
  const std::vector<TableColumn>& cols = columns();
  std::vector<int> out;
  for (const std::vector<std::string>& p : paths) {
    bool any = false;
    for (size_t i = 0; i < cols.size(); ++i) {
      const std::vector<std::string>& c = cols[i].physical_path;
      if (!p.empty() && c.size() >= p.size() && std::equal(p.begin(), p.end(), c.begin())) {
        out.push_back(static_cast<int>(i));
        any = true;
      }
    }
    if (!any) return Status::NotFound("no column '{}' in {}", PathText(p), version().location);
  }
  return out;
}

}  // namespace lithify::table
