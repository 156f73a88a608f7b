#include "lithify/io/http/retry.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

namespace lithify::io::http {

uint64_t Random64() {
  thread_local std::mt19937_64 rng(std::random_device{}() ^
                                   static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  return rng();
}

void Backoff(int attempt) {
  double base = std::min(2000.0, 50.0 * (1 << std::min(attempt - 1, 10)));
  double factor = 0.5 + 0.5 * static_cast<double>(Random64() % 1000) / 1000.0;
  std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<int64_t>(base * factor)));
}

Result<HttpResponse> SendWithRetries(int max_attempts, const std::function<HttpRequest()>& build,
                                     const std::function<bool(const HttpResponse&)>& retryable, bool* uncertain) {
  Status last;
  for (int attempt = 0; attempt < max_attempts; ++attempt) {
    if (attempt > 0) Backoff(attempt);
    HttpRequest req = build();
    bool sent = false, maybe_resent = false;
    auto r = Perform(req, &sent, &maybe_resent);
    if (r.ok() && maybe_resent && uncertain != nullptr) *uncertain = true;
    if (!r.ok()) {
      if (sent && uncertain != nullptr) *uncertain = true;
      last = r.status();
      continue;
    }
    if (retryable(*r) && attempt + 1 < max_attempts) {
      if (uncertain != nullptr) *uncertain = true;
      continue;
    }
    return r;
  }
  return Status::IOError("{} (after {} attempts)", last.message(), max_attempts);
}

bool SameContent(FileSystem* fs, std::string_view path, ByteView data) {
  auto existing = fs->ReadFile(path);
  return existing.ok() && existing->size() == data.size() && std::equal(data.begin(), data.end(), existing->data());
}

}  // namespace lithify::io::http
