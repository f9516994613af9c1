#pragma once
// The text of data/devices.json, compiled into the library by CMake (a
// generated source in the build folder), so the binary needs no data file.

namespace dnnplace::detail {

extern const char kDevicesJson[];

}  // namespace dnnplace::detail
