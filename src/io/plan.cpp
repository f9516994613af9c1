#include "dnnplace/plan.hpp"

#include <algorithm>

#include "io/json_input.hpp"

namespace dnnplace {

using json_input::InputJson;

namespace {

bool readDeviceList(json_input::Fields& top, const char* field, const std::string& name,
                    std::vector<std::vector<std::int64_t>>* devices, std::string* error) {
  if (!top.has(field)) return true;
  const InputJson* list = top.array(field);
  if (!list) return false;
  for (std::size_t d = 0; d < list->size(); ++d) {
    const std::string element = std::string(field) + "[" + std::to_string(d) + "]";
    json_input::Fields entry((*list)[d], name, element, error);
    if (!entry.isObject()) return false;
    const InputJson* nodes = entry.array("nodes");
    if (!nodes) return false;
    std::vector<std::int64_t> ids;
    ids.reserve(nodes->size());
    for (std::size_t i = 0; i < nodes->size(); ++i) {
      // Wrap the element so Fields can name it "fpgas[2]: nodes[5] …".
      InputJson holder = InputJson::object({{"nodes[" + std::to_string(i) + "]", (*nodes)[i]}});
      json_input::Fields idField(holder, name, element, error);
      std::int64_t id = 0;
      if (!idField.integer(("nodes[" + std::to_string(i) + "]").c_str(), &id, true)) return false;
      ids.push_back(id);
    }
    devices->push_back(std::move(ids));
  }
  return true;
}

std::string listIds(const std::vector<std::int64_t>& ids) {
  std::string text;
  const std::size_t shown = std::min<std::size_t>(ids.size(), 10);
  for (std::size_t i = 0; i < shown; ++i) text += (i ? ", " : "") + std::to_string(ids[i]);
  if (ids.size() > shown) text += ", … (" + std::to_string(ids.size()) + " in all)";
  return text;
}

}  // namespace

std::optional<PlanFile> parsePlan(std::string_view text, const std::string& name,
                                  std::string* error) {
  auto document = json_input::parseDocument(text, name, error);
  if (!document) return std::nullopt;
  json_input::Fields top(*document, name, "", error);
  if (!top.isObject()) return std::nullopt;
  if (!top.has("fpgas") && !top.has("cpus")) {
    *error = name + ": a plan needs \"fpgas\" and/or \"cpus\" (lists of {\"nodes\": [ids]})";
    return std::nullopt;
  }
  PlanFile plan;
  if (!readDeviceList(top, "fpgas", name, &plan.fpgas, error) ||
      !readDeviceList(top, "cpus", name, &plan.cpus, error))
    return std::nullopt;
  return plan;
}

std::optional<PlanFile> loadPlan(const std::string& path, std::string* error) {
  auto text = readFile(path, error);
  if (!text) return std::nullopt;
  return parsePlan(*text, inputName(path), error);
}

Placement resolvePlan(const Workload& workload, const PlanFile& plan,
                      std::vector<std::string>* violations) {
  Placement placement;
  placement.numAccelerators = static_cast<int>(plan.fpgas.size());
  placement.numCpus = static_cast<int>(plan.cpus.size());
  placement.deviceOf.assign(workload.numNodes(), Placement::kUnplaced);

  auto deviceName = [&](int device) {
    return device < placement.numAccelerators
               ? "fpgas[" + std::to_string(device) + "]"
               : "cpus[" + std::to_string(device - placement.numAccelerators) + "]";
  };
  std::vector<std::int64_t> unknown;
  // A node listed more than once gets one line, however often it is listed:
  // how many times, and on which devices (the first few).
  struct Repeated {
    NodeIndex node;
    int listings;
    std::vector<int> devices;  ///< distinct, in the order listed
  };
  std::vector<Repeated> repeated;
  std::vector<std::int32_t> repeatedIndex(workload.numNodes(), -1);
  for (int device = 0; device < placement.numDevices(); ++device) {
    const auto& ids = device < placement.numAccelerators
                          ? plan.fpgas[device]
                          : plan.cpus[device - placement.numAccelerators];
    for (std::int64_t id : ids) {
      auto v = workload.indexOf(id);
      if (!v) {
        unknown.push_back(id);
        continue;
      }
      if (placement.deviceOf[*v] == Placement::kUnplaced) {
        placement.deviceOf[*v] = device;
        continue;
      }
      if (repeatedIndex[*v] < 0) {
        repeatedIndex[*v] = static_cast<std::int32_t>(repeated.size());
        repeated.push_back({*v, 1, {placement.deviceOf[*v]}});
      }
      Repeated& r = repeated[repeatedIndex[*v]];
      ++r.listings;
      if (std::find(r.devices.begin(), r.devices.end(), device) == r.devices.end()) r.devices.push_back(device);
    }
  }
  for (const Repeated& r : repeated) {
    constexpr std::size_t kShown = 4;
    std::vector<std::string> names;
    for (std::size_t i = 0; i < r.devices.size() && i < kShown; ++i) names.push_back(deviceName(r.devices[i]));
    if (r.devices.size() > kShown) names.push_back(std::to_string(r.devices.size() - kShown) + " more devices");
    std::string where = names.front();  // "a", "a and b", "a, b and c"
    for (std::size_t i = 1; i < names.size(); ++i) where += (i + 1 == names.size() ? " and " : ", ") + names[i];
    violations->push_back("node " + std::to_string(workload.nodes[r.node].id) + " is listed " +
                          (r.listings == 2 ? std::string("twice") : std::to_string(r.listings) + " times") +
                          (r.devices.size() == 1 ? " on " + where : " (" + where + ")"));
  }
  if (!unknown.empty())
    violations->push_back("the plan lists node ids that are not in the workload: " +
                          listIds(unknown));

  // Expert splits list forward nodes only: a backward node follows its class.
  std::vector<std::int32_t> classDevice(workload.numClasses, Placement::kUnplaced);
  for (NodeIndex v = 0; v < workload.numNodes(); ++v)
    if (placement.deviceOf[v] != Placement::kUnplaced && !workload.nodes[v].isBackward &&
        classDevice[workload.classOf[v]] == Placement::kUnplaced)
      classDevice[workload.classOf[v]] = placement.deviceOf[v];
  for (NodeIndex v = 0; v < workload.numNodes(); ++v)
    if (placement.deviceOf[v] == Placement::kUnplaced && workload.nodes[v].isBackward)
      placement.deviceOf[v] = classDevice[workload.classOf[v]];
  return placement;
}

}  // namespace dnnplace
