#include "engine/avro_reader.h"

#include <zlib.h>

#include <cstring>
#include <map>

namespace cairn::engine {
namespace {

Status Malformed(const std::string& what) {
  return Status::InvalidArgument("malformed Avro file: " + what);
}

// A cursor over bytes with Avro's primitive encodings.
class Decoder {
 public:
  explicit Decoder(std::string_view data) : data_(data) {}

  bool done() const { return pos_ >= data_.size(); }

  Result<int64_t> Long() {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) return Malformed("truncated integer");
      uint8_t b = static_cast<uint8_t>(data_[pos_++]);
      value |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return static_cast<int64_t>((value >> 1) ^ -(value & 1));
    }
    return Malformed("integer too long");
  }

  Result<std::string_view> Take(size_t n) {
    if (data_.size() - pos_ < n) return Malformed("truncated value");
    std::string_view out = data_.substr(pos_, n);
    pos_ += n;
    return out;
  }

  Result<std::string_view> Bytes() {
    ASSIGN_OR_RETURN(int64_t n, Long());
    if (n < 0) return Malformed("negative length");
    return Take(static_cast<size_t>(n));
  }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

// Named types (records, enums, fixed) seen so far, for references by name.
using Names = std::map<std::string, const Json*>;

void Register(const Json& schema, Names* names) {
  if (!schema.is_object()) {
    if (schema.is_array()) {
      for (const Json& branch : schema) Register(branch, names);
    }
    return;
  }
  std::string type = schema.value("type", "");
  if (schema.contains("name") && (type == "record" || type == "enum" || type == "fixed")) {
    (*names)[schema["name"].get<std::string>()] = &schema;
    if (schema.contains("namespace")) {
      (*names)[schema["namespace"].get<std::string>() + "." + schema["name"].get<std::string>()] =
          &schema;
    }
  }
  if (type == "record") {
    for (const Json& f : schema["fields"]) Register(f["type"], names);
  } else if (type == "array") {
    Register(schema["items"], names);
  } else if (type == "map") {
    Register(schema["values"], names);
  }
}

Result<Json> Decode(const Json& schema, const Names& names, Decoder* d, int depth);

Result<Json> DecodeBlocks(const Json& element, const Names& names, Decoder* d, int depth,
                          bool is_map) {
  Json out = is_map ? Json::object() : Json::array();
  for (;;) {
    ASSIGN_OR_RETURN(int64_t count, d->Long());
    if (count == 0) return out;
    if (count < 0) {
      count = -count;
      RETURN_IF_ERROR(d->Long().status());  // block size in bytes
    }
    for (int64_t i = 0; i < count; ++i) {
      std::string key;
      if (is_map) {
        ASSIGN_OR_RETURN(std::string_view k, d->Bytes());
        key = std::string(k);
      }
      ASSIGN_OR_RETURN(Json value, Decode(element, names, d, depth + 1));
      if (is_map) {
        out[key] = std::move(value);
      } else {
        out.push_back(std::move(value));
      }
    }
  }
}

Result<Json> DecodePrimitive(const std::string& type, const Names& names, Decoder* d,
                             int depth) {
  if (type == "null") return Json();
  if (type == "boolean") {
    ASSIGN_OR_RETURN(std::string_view b, d->Take(1));
    return Json(b[0] != 0);
  }
  if (type == "int" || type == "long") {
    ASSIGN_OR_RETURN(int64_t v, d->Long());
    return Json(v);
  }
  if (type == "float") {
    ASSIGN_OR_RETURN(std::string_view b, d->Take(4));
    float f;
    std::memcpy(&f, b.data(), 4);
    return Json(f);
  }
  if (type == "double") {
    ASSIGN_OR_RETURN(std::string_view b, d->Take(8));
    double f;
    std::memcpy(&f, b.data(), 8);
    return Json(f);
  }
  if (type == "bytes" || type == "string") {
    ASSIGN_OR_RETURN(std::string_view b, d->Bytes());
    return Json(std::string(b));
  }
  auto named = names.find(type);
  if (named == names.end()) return Malformed("unknown type '" + type + "'");
  return Decode(*named->second, names, d, depth + 1);
}

Result<Json> Decode(const Json& schema, const Names& names, Decoder* d, int depth) {
  if (depth > 64) return Malformed("schema nests too deeply");
  if (schema.is_string()) return DecodePrimitive(schema.get<std::string>(), names, d, depth);
  if (schema.is_array()) {
    ASSIGN_OR_RETURN(int64_t branch, d->Long());
    if (branch < 0 || static_cast<size_t>(branch) >= schema.size()) {
      return Malformed("union branch out of range");
    }
    return Decode(schema[static_cast<size_t>(branch)], names, d, depth + 1);
  }
  if (!schema.is_object()) return Malformed("bad schema");
  const std::string type = schema.value("type", "");
  if (type == "record") {
    Json out = Json::object();
    for (const Json& f : schema["fields"]) {
      ASSIGN_OR_RETURN(Json v, Decode(f["type"], names, d, depth + 1));
      out[f["name"].get<std::string>()] = std::move(v);
    }
    return out;
  }
  if (type == "array") return DecodeBlocks(schema["items"], names, d, depth, false);
  if (type == "map") return DecodeBlocks(schema["values"], names, d, depth, true);
  if (type == "enum") {
    ASSIGN_OR_RETURN(int64_t i, d->Long());
    const Json& symbols = schema["symbols"];
    if (i < 0 || static_cast<size_t>(i) >= symbols.size()) return Malformed("enum out of range");
    return symbols[static_cast<size_t>(i)];
  }
  if (type == "fixed") {
    ASSIGN_OR_RETURN(std::string_view b, d->Take(schema.value("size", size_t{0})));
    return Json(std::string(b));
  }
  return DecodePrimitive(type, names, d, depth);  // {"type": "long", "logicalType": ...}
}

Result<std::string> Inflate(std::string_view in) {
  z_stream zs{};
  if (inflateInit2(&zs, -15) != Z_OK) return Status::Internal("inflateInit2 failed");
  std::string out;
  char buf[1 << 15];
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof(buf);
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&zs);
      return Malformed("bad deflate block");
    }
    out.append(buf, sizeof(buf) - zs.avail_out);
    if (rc == Z_OK && zs.avail_in == 0 && zs.avail_out != 0) break;
  }
  inflateEnd(&zs);
  return out;
}

}  // namespace

Result<std::vector<Json>> ReadAvroFile(std::string_view bytes) {
  Decoder d(bytes);
  ASSIGN_OR_RETURN(std::string_view magic, d.Take(4));
  if (magic != std::string_view("Obj\x01", 4)) return Malformed("bad magic");
  std::map<std::string, std::string> meta;
  for (;;) {
    ASSIGN_OR_RETURN(int64_t count, d.Long());
    if (count == 0) break;
    if (count < 0) {
      count = -count;
      RETURN_IF_ERROR(d.Long().status());
    }
    for (int64_t i = 0; i < count; ++i) {
      ASSIGN_OR_RETURN(std::string_view key, d.Bytes());
      ASSIGN_OR_RETURN(std::string_view value, d.Bytes());
      meta[std::string(key)] = std::string(value);
    }
  }
  ASSIGN_OR_RETURN(std::string_view sync, d.Take(16));
  auto schema = ParseJson(meta["avro.schema"]);
  if (!schema.ok()) return Malformed("bad avro.schema");
  std::string codec = meta.count("avro.codec") ? meta["avro.codec"] : "null";
  if (codec != "null" && codec != "deflate") {
    return Status::InvalidArgument("unsupported Avro codec '" + codec + "'");
  }
  Names names;
  Register(*schema, &names);
  std::vector<Json> records;
  while (!d.done()) {
    ASSIGN_OR_RETURN(int64_t count, d.Long());
    ASSIGN_OR_RETURN(std::string_view block, d.Bytes());
    std::string inflated;
    if (codec == "deflate") {
      ASSIGN_OR_RETURN(inflated, Inflate(block));
      block = inflated;
    }
    Decoder bd(block);
    for (int64_t i = 0; i < count; ++i) {
      ASSIGN_OR_RETURN(Json record, Decode(*schema, names, &bd, 0));
      records.push_back(std::move(record));
    }
    ASSIGN_OR_RETURN(std::string_view marker, d.Take(16));
    if (marker != sync) return Malformed("sync marker mismatch");
  }
  return records;
}

}  // namespace cairn::engine
