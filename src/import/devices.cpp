// Device specs: the shipped catalog and user files (docs/cost-model.md).

#include "dnnplace/import.hpp"

namespace dnnplace {

const std::vector<std::pair<DeviceKind, DeviceSpec>>& deviceCatalog() {
  static const std::vector<std::pair<DeviceKind, DeviceSpec>> catalog;
  return catalog;
}

std::string deviceCatalogText() { return ""; }

std::optional<DeviceSpec> loadDeviceSpec(const std::string& nameOrPath, DeviceKind, std::string* error) {
  *error = nameOrPath + ": device specs are not implemented yet";
  return std::nullopt;
}

}  // namespace dnnplace
