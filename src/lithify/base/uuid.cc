#include "lithify/base/uuid.h"

#include <unistd.h>

#include <random>

namespace lithify {

std::array<uint8_t, 16> NewUuidBytes() {
  // One generator per thread (no locking), reseeded whenever the process id changes: a
  // fork()ed child inherits its parent's generator state and would otherwise produce the
  // parent's next UUIDs -- the same file names and txnIds in every child.
  thread_local std::mt19937_64 gen;
  thread_local pid_t seeded_pid = 0;
  if (pid_t pid = getpid(); pid != seeded_pid) {
    std::random_device rd;
    std::seed_seq seq{rd(), rd(), rd(), rd(), static_cast<unsigned>(pid)};
    gen.seed(seq);
    seeded_pid = pid;
  }
  std::array<uint8_t, 16> b;
  uint64_t hi = gen(), lo = gen();
  for (int i = 0; i < 8; ++i) {
    b[i] = static_cast<uint8_t>(hi >> (56 - 8 * i));
    b[8 + i] = static_cast<uint8_t>(lo >> (56 - 8 * i));
  }
  b[6] = static_cast<uint8_t>((b[6] & 0x0F) | 0x40);  // version 4
  b[8] = static_cast<uint8_t>((b[8] & 0x3F) | 0x80);  // RFC 4122 variant
  return b;
}

std::string UuidToString(const std::array<uint8_t, 16>& bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  s.reserve(36);
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s.push_back('-');
    s.push_back(kHex[bytes[i] >> 4]);
    s.push_back(kHex[bytes[i] & 0xF]);
  }
  return s;
}

std::string NewUuid() { return UuidToString(NewUuidBytes()); }

}  // namespace lithify
