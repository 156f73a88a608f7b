// Retries of object-store requests, and the read-back that settles a write whose reply
// was lost. Shared by the S3 and Azure backends.
//
// Thread-safety: every function may be called from many threads.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "lithify/base/buffer.h"
#include "lithify/base/result.h"
#include "lithify/io/filesystem.h"
#include "lithify/io/http/http.h"

namespace lithify::io::http {

// A random 64-bit number (per-thread generator seeded from random_device and the clock).
uint64_t Random64();

// Sleeps before retry number `attempt` (>= 1): 50 ms * 2^(attempt-1), capped at 2 s,
// scaled by a random factor in [0.5, 1) so that racing clients spread out.
void Backoff(int attempt);

// Sends the request `build()` makes (called again for every attempt, so that a signature
// carries a fresh date) up to `max_attempts` times, with Backoff between attempts: again
// after a connection error (no reply) and after a reply `retryable` accepts, except on the
// last attempt, whose reply is returned as it is. IOError "<curl's error> (after N
// attempts)" when no attempt got a reply. `*uncertain` (when given) is set when an attempt
// may have been applied by the server without its reply reaching us (a lost reply, a
// retried 5xx, or libcurl's own re-send, see http.h): a conditional write that then meets
// an existing object may be meeting its own first copy (SameContent settles it).
Result<HttpResponse> SendWithRetries(int max_attempts, const std::function<HttpRequest()>& build,
                                     const std::function<bool(const HttpResponse&)>& retryable,
                                     bool* uncertain = nullptr);

// Whether the object at `path` holds exactly `data` (false when it cannot be read). For
// an uncertain conditional write that was refused: the same bytes mean our own earlier
// copy won and only its reply was lost (a Delta commit's bytes name its own files and
// time, so another writer's never match).
bool SameContent(FileSystem* fs, std::string_view path, ByteView data);

}  // namespace lithify::io::http
