// delta_validate TABLE: runs the Delta log validator (validator.h) on a table directory
// or an object-store URI (s3://, abfss://, ... through the io registry) and prints every violation, one per line ("[rule] message"). Exit 0 when the table
// violates no rule, 1 on violations or when the table cannot be read, 2 on usage errors.
#include <cstdio>
#include <string>

#include "lithify/io/azure/azure_filesystem.h"
#include "lithify/io/filesystem.h"
#include "lithify/io/registry.h"
#include "lithify/io/s3/s3_filesystem.h"
#include "tests/delta_write/validator.h"

int main(int argc, char** argv) {
  if (argc != 2 || std::string(argv[1]).empty() || std::string(argv[1])[0] == '-') {
    std::fprintf(stderr, "usage: delta_validate TABLE\n");
    return 2;
  }
  lithify::io::s3::RegisterS3FileSystem();
  lithify::io::azure::RegisterAzureFileSystem();
  auto opened = lithify::io::OpenFileSystem(argv[1]);
  if (!opened.ok()) {
    std::fprintf(stderr, "delta_validate: %s\n", opened.status().ToString().c_str());
    return 1;
  }
  auto violations = lithify::delta_write::CheckDeltaTable(opened->fs.get(), opened->path);
  if (!violations.ok()) {
    std::fprintf(stderr, "delta_validate: %s\n", violations.status().ToString().c_str());
    return 1;
  }
  for (const auto& v : *violations) std::printf("[%s] %s\n", v.rule.c_str(), v.message.c_str());
  if (!violations->empty()) {
    std::fprintf(stderr, "delta_validate: %s: %zu violation(s)\n", argv[1], violations->size());
    return 1;
  }
  std::printf("ok: %s\n", argv[1]);
  return 0;
}
