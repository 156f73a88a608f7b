// The text forms object-store REST APIs share: percent-encoding of keys and query values,
// the flat XML of their replies, HTTP and ISO-8601 dates.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>
#include <vector>

namespace lithify::io::http {

// RFC 3986 encoding as S3 and Azure sign it: every byte except A-Z a-z 0-9 - . _ ~ becomes
// %XX (upper-case hex); '/' is kept when `keep_slash` (object keys in paths) and encoded
// otherwise (query values).
std::string UriEncode(std::string_view s, bool keep_slash);

// XML text with entities (&amp; &lt; &gt; &quot; &apos; &#N; &#xN;) decoded.
std::string XmlDecode(std::string_view s);
// Text escaped for an XML element (control characters as &#N;).
std::string XmlEncode(std::string_view s);
// The raw contents of every <tag>...</tag> in `xml` (not nested in themselves). The
// replies read with it are flat and well known (S3, Azure Blob); no general XML parser.
std::vector<std::string_view> XmlAll(std::string_view xml, std::string_view tag);
// The decoded contents of the first <tag>, or "".
std::string XmlFirst(std::string_view xml, std::string_view tag);

// "2026-12-02T01:01:20.002Z" -> milliseconds since the epoch (0 when unparsable).
int64_t ParseIso8601Ms(const std::string& s);
// "Wed, 02 Dec 2026 01:01:20 GMT" (RFC 1123) -> milliseconds since the epoch (0 when
// unparsable).
int64_t ParseHttpDateMs(const std::string& s);
// `t` as an RFC 1123 date, "Wed, 02 Dec 2026 01:01:20 GMT".
std::string HttpDate(std::time_t t);

}  // namespace lithify::io::http
