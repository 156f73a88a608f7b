// Random (version 4) UUIDs for file names, DV files, metaData.id and txnId.
//
// Names of data files and DV files must be unique across concurrent writers on
// different machines without coordination; 122 random bits from a per-thread generator
// seeded by std::random_device make a collision practically impossible. Thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace lithify {

// 16 random bytes with the version (4) and variant (10xx) bits set.
std::array<uint8_t, 16> NewUuidBytes();
// Canonical lowercase text "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx".
std::string NewUuid();
// Text form of 16 bytes.
std::string UuidToString(const std::array<uint8_t, 16>& bytes);

}  // namespace lithify
