#pragma once

// ReadAvroFile: decodes an Avro object container file (the format of Iceberg manifest lists
// and manifests) into one JSON value per record, following the writer's schema.
//
// Supports every Avro type and the "null" and "deflate" codecs. Bytes and fixed values come
// out as strings of the raw bytes. InvalidArgument for a malformed file or an unsupported
// codec, naming which.

#include <string_view>
#include <vector>

#include "engine/json_util.h"

namespace cairn::engine {

Result<std::vector<Json>> ReadAvroFile(std::string_view bytes);

}  // namespace cairn::engine
