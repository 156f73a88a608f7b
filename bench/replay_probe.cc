// Loads a Delta snapshot the way `lithify describe detail` does (StatsMode::kNone) and
// prints {"numFiles":..,"sizeInBytes":..,"version":..}: a profiling aid for the replay
// benchmark that links only the delta library.
//
//   replay_probe TABLE [--stats none|raw|parsed] [--threads N] [--files]
//   (--files also materializes Snapshot::files())
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <malloc.h>

#include "lithify/base/allocator.h"
#include "lithify/delta/snapshot.h"
#include "lithify/io/filesystem.h"

using namespace lithify;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: replay_probe TABLE [--stats none|raw|parsed] [--threads N] [--files]\n");
    return 2;
  }
  TuneAllocatorForStreaming();
  delta::LoadOptions options;
  options.stats = delta::StatsMode::kNone;
  bool files = false;
  for (int i = 2; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--stats") && i + 1 < argc) {
      std::string m = argv[++i];
      options.stats = m == "parsed" ? delta::StatsMode::kParsed : m == "raw" ? delta::StatsMode::kRaw : delta::StatsMode::kNone;
    } else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) {
      options.threads = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--files")) {
      files = true;
    }
  }
  auto fs = io::NewLocalFileSystem();
  auto snap = delta::Snapshot::Load(fs.get(), argv[1], delta::VersionSpec::Latest(), options);
  if (!snap.ok()) {
    std::fprintf(stderr, "replay_probe: %s\n", snap.status().ToString().c_str());
    return 1;
  }
  int64_t bytes = 0;
  for (delta::LiveFileView f : (*snap)->live_files()) bytes += f.size();
  size_t n = (*snap)->live_files().size();
  if (files) n = (*snap)->files().size();
  std::printf("{\"numFiles\":%zu,\"sizeInBytes\":%" PRId64 ",\"version\":%" PRId64 ",\"storeBytes\":%zu}\n", n, bytes,
              (*snap)->version(), (*snap)->live_files().MemoryUsage());
  if (std::getenv("REPLAY_PROBE_MALLOC_STATS") != nullptr) malloc_stats();
  return 0;
}
