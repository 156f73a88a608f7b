// Standard Base64 (RFC 4648 section 4: the alphabet A-Z a-z 0-9 + /, '=' padding): the
// one encoder, used where binary values are printed (scan's canonical JSON and CSV) and
// where HTTP headers carry digests and signatures; and the strict decoder of binary
// values read back (ingest). Pure; thread-safe.
//
// (io/http/crypto.h keeps its own decoder, OpenSSL's, for account keys: it requires
// padding but takes '=' inside the text and non-zero unused bits, which this one
// refuses; see Base64Decode below.)
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace lithify {

// Appends the Base64 of `bytes` to *out, padded to a multiple of 4 characters, no line
// breaks.
void AppendBase64(std::string_view bytes, std::string* out);

// The Base64 of `bytes` (AppendBase64 to an empty string).
std::string Base64Encode(std::string_view bytes);

// The bytes of standard Base64 `text`, or nullopt when it is not canonical Base64:
//   - padding is optional; when present there are one or two '=', only at the end, and
//     the whole text is a multiple of 4 characters long;
//   - without padding, a length of 4k+1 characters is refused (it cannot end a byte);
//   - any character outside the alphabet (whitespace and line breaks included) is refused;
//   - the unused low bits of the last character must be zero (so every byte string has
//     exactly one accepted spelling per padding choice).
// The empty text is the empty byte string.
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace lithify
