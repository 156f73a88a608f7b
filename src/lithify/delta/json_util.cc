#include "lithify/delta/json_util.h"

#include <limits>

#include "lithify/base/macros.h"
#include "lithify/base/nesting.h"

namespace lithify::delta::json {


Result<Json> Parse(std::string_view text) {
  // nlohmann's parser and destructor are iterative, but its dump, copy and comparison
  // recurse, as do the walks over parsed actions: deep documents are refused up front.
  if (JsonNestedDeeper(text)) return Status::Corruption("JSON nested deeper than {} levels", kMaxJsonNesting);
  Json j = Json::parse(text.begin(), text.end(), /*cb=*/nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Corruption("malformed JSON");
  return j;
}

std::string Dump(const Json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string Dump(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string QuotedString(std::string_view s) { return Dump(Json(std::string(s))); }

namespace {

// Swallows parse errors so that nlohmann reports them as a false return, never by throwing.
class NoThrowSax : public Json::json_sax_t {
 public:
  explicit NoThrowSax(Json::json_sax_t* inner) : inner_(inner) {}
  bool null() override { return inner_->null(); }
  bool boolean(bool v) override { return inner_->boolean(v); }
  bool number_integer(number_integer_t v) override { return inner_->number_integer(v); }
  bool number_unsigned(number_unsigned_t v) override { return inner_->number_unsigned(v); }
  bool number_float(number_float_t v, const string_t& s) override { return inner_->number_float(v, s); }
  bool string(string_t& v) override { return inner_->string(v); }
  bool binary(binary_t& v) override { return inner_->binary(v); }
  bool start_object(std::size_t n) override { return inner_->start_object(n); }
  bool key(string_t& k) override { return inner_->key(k); }
  bool end_object() override { return inner_->end_object(); }
  bool start_array(std::size_t n) override { return inner_->start_array(n); }
  bool end_array() override { return inner_->end_array(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    malformed_ = true;
    return false;
  }
  bool malformed() const { return malformed_; }

 private:
  Json::json_sax_t* inner_;
  bool malformed_ = false;
};

// Writes the events it receives back as compact JSON text, numbers as written; the
// root object's member `key` gets the text `value` instead of its own value.
class Echo : public Json::json_sax_t {
 public:
  Echo(std::string_view key, std::string_view value) : key_(key), value_(value) {}

  bool null() override { return Scalar("null"); }
  bool boolean(bool v) override { return Scalar(v ? "true" : "false"); }
  bool number_integer(number_integer_t v) override { return Scalar(std::to_string(v)); }
  bool number_unsigned(number_unsigned_t v) override { return Scalar(std::to_string(v)); }
  bool number_float(number_float_t, const string_t& s) override { return Scalar(s); }
  bool string(string_t& v) override { return Scalar(Dump(Json(v))); }
  bool binary(binary_t&) override { return false; }  // not produced by the JSON parser
  bool start_object(std::size_t) override { return Open('{'); }
  bool start_array(std::size_t) override { return Open('['); }
  bool end_array() override { return Close(']'); }
  bool end_object() override {
    if (skip_ == 0 && open_.size() == 1 && !replaced_) {
      if (!open_.back()) out_.push_back(',');
      out_ += Dump(Json(key_)) + ":" + std::string(value_);
      replaced_ = true;
    }
    return Close('}');
  }
  bool key(string_t& k) override {
    if (skip_ > 0) return true;
    Separate();
    out_ += Dump(Json(k));
    out_.push_back(':');
    after_key_ = true;
    if (open_.size() == 1 && k == key_) {
      // (A duplicated member gets the value at each occurrence.)
      out_ += value_;
      replaced_ = true;
      after_key_ = false;
      skip_ = 1;  // the member's own value, however deep
      skip_depth_ = 0;
    }
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

  bool root_is_object() const { return root_object_; }
  std::string& text() { return out_; }

 private:
  // Writes the separator a value or key needs in its container.
  void Separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!open_.empty()) {
      if (!open_.back()) out_.push_back(',');
      open_.back() = false;
    }
  }
  bool Scalar(std::string_view text) {
    if (skip_ > 0) {
      if (skip_depth_ == 0) skip_ = 0;
      return true;
    }
    Separate();
    out_ += text;
    return true;
  }
  bool Open(char c) {
    if (skip_ > 0) {
      ++skip_depth_;
      return true;
    }
    if (open_.empty()) root_object_ = c == '{';
    Separate();
    out_.push_back(c);
    open_.push_back(true);  // the next element is the first
    return true;
  }
  bool Close(char c) {
    if (skip_ > 0) {
      if (--skip_depth_ == 0) skip_ = 0;
      return true;
    }
    out_.push_back(c);
    open_.pop_back();
    return true;
  }

  std::string_view key_, value_;
  std::string out_;
  std::vector<bool> open_;  // per open container: no element written yet
  bool after_key_ = false;
  bool replaced_ = false;
  bool root_object_ = false;
  int skip_ = 0;             // > 0: inside the value of a replaced member
  int skip_depth_ = 0;
};

}  // namespace

Status SaxParse(std::string_view text, Json::json_sax_t* sax, std::string_view stopped) {
  if (JsonNestedDeeper(text)) return Status::Corruption("JSON nested deeper than {} levels", kMaxJsonNesting);
  NoThrowSax guard(sax);
  if (!Json::sax_parse(text.begin(), text.end(), &guard)) {
    return Status::Corruption("{}", guard.malformed() ? std::string_view("malformed JSON") : stopped);
  }
  return Status::OK();
}

Result<std::string> SetMember(std::string_view object, std::string_view key, std::string_view value) {
  Echo echo(key, value);
  LITHIFY_RETURN_NOT_OK(SaxParse(object, &echo));
  if (!echo.root_is_object()) return Status::Corruption("not a JSON object");
  return std::move(echo.text());
}

const Json* Field(const Json& o, std::string_view field) {
  if (!o.is_object()) return nullptr;
  auto it = o.find(field);
  if (it == o.end() || it->is_null()) return nullptr;
  return &*it;
}

Result<std::optional<std::string>> OptString(const Json& o, std::string_view field) {
  const Json* f = Field(o, field);
  if (f == nullptr) return std::optional<std::string>();
  if (!f->is_string()) return Status::Corruption("field '{}' is not a string", field);
  return std::optional<std::string>(f->get_ref<const std::string&>());
}

Result<std::optional<int64_t>> OptInt(const Json& o, std::string_view field) {
  const Json* f = Field(o, field);
  if (f == nullptr) return std::optional<int64_t>();
  if (f->is_number_unsigned()) {
    uint64_t u = f->get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Status::Corruption("field '{}' is out of the 64-bit range", field);
    }
    return std::optional<int64_t>(static_cast<int64_t>(u));
  }
  if (f->is_number_integer()) return std::optional<int64_t>(f->get<int64_t>());
  return Status::Corruption("field '{}' is not an integer", field);
}

Result<std::optional<bool>> OptBool(const Json& o, std::string_view field) {
  const Json* f = Field(o, field);
  if (f == nullptr) return std::optional<bool>();
  if (!f->is_boolean()) return Status::Corruption("field '{}' is not a boolean", field);
  return std::optional<bool>(f->get<bool>());
}

Result<std::string> ReqString(const Json& o, std::string_view field) {
  LITHIFY_ASSIGN_OR_RETURN(auto v, OptString(o, field));
  if (!v) return Status::Corruption("missing field '{}'", field);
  return std::move(*v);
}

Result<int64_t> ReqInt(const Json& o, std::string_view field) {
  LITHIFY_ASSIGN_OR_RETURN(auto v, OptInt(o, field));
  if (!v) return Status::Corruption("missing field '{}'", field);
  return *v;
}

Result<std::map<std::string, std::optional<std::string>>> OptStringMap(const Json& o,
                                                                       std::string_view field) {
  std::map<std::string, std::optional<std::string>> out;
  const Json* f = Field(o, field);
  if (f == nullptr) return out;
  auto value_of = [&](const Json& v) -> Result<std::optional<std::string>> {
    if (v.is_null()) return std::optional<std::string>();
    if (!v.is_string()) return Status::Corruption("map '{}' has a non-string value", field);
    return std::optional<std::string>(v.get_ref<const std::string&>());
  };
  if (f->is_object()) {
    for (auto it = f->begin(); it != f->end(); ++it) {
      LITHIFY_ASSIGN_OR_RETURN(out[it.key()], value_of(it.value()));
    }
    return out;
  }
  if (f->is_array()) {  // canonical JSON of a Parquet MAP: [{"key":k,"value":v}, ...]
    for (const Json& e : *f) {
      const Json* k = Field(e, "key");
      if (k == nullptr || !k->is_string()) {
        return Status::Corruption("map '{}' has an entry without a string key", field);
      }
      auto vit = e.find("value");
      LITHIFY_ASSIGN_OR_RETURN(out[k->get<std::string>()],
                               vit == e.end() ? Result<std::optional<std::string>>(std::nullopt)
                                              : value_of(*vit));
    }
    return out;
  }
  return Status::Corruption("field '{}' is not a map", field);
}

Result<std::map<std::string, std::string>> OptStringMapNoNulls(const Json& o,
                                                              std::string_view field) {
  LITHIFY_ASSIGN_OR_RETURN(auto m, OptStringMap(o, field));
  std::map<std::string, std::string> out;
  for (auto& [k, v] : m) {
    if (v) out.emplace(k, std::move(*v));
  }
  return out;
}

Result<std::vector<std::string>> OptStringArray(const Json& o, std::string_view field) {
  std::vector<std::string> out;
  const Json* f = Field(o, field);
  if (f == nullptr) return out;
  if (!f->is_array()) return Status::Corruption("field '{}' is not an array", field);
  for (const Json& e : *f) {
    if (!e.is_string()) return Status::Corruption("field '{}' has a non-string element", field);
    out.push_back(e.get<std::string>());
  }
  return out;
}

}  // namespace lithify::delta::json
