#include "dnnplace/plan.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "io/json_reader.hpp"

namespace dnnplace {

namespace {

using json_reader::Field;
using json_reader::Value;

enum DeviceList : int { kFpgas, kCpus, kLists };
constexpr const char* kListNames[kLists] = {"fpgas", "cpus"};
constexpr int kNone = -1;
constexpr std::int64_t kMaxPlanDevices = std::numeric_limits<std::int32_t>::max() / 2;

/// The plan format as the parser meets it (the levels of json_reader.hpp):
/// the device lists at level 1, their devices at level 2, a device's
/// "nodes" at level 3 and its ids at level 4. A key given twice counts with
/// its last value, as in a tree: a repeated list or "nodes" starts over.
/// Only the first fault of each list is kept.
class PlanSchema {
 public:
  explicit PlanSchema(const std::string& file) : file_(file) {}

  void value(const Value& value, int level) {
    if (level == 0) {
      top_.set(value);
    } else if (level == 1) {
      if (member_ != kNone) lists_[member_].field.set(value);
    } else if (level == 2) {
      if (streaming_ != kNone) notAnObject(value);
    } else if (level == 3) {
      if (inDevice_ && nodesKey_) nodes_.set(value);
      if (inDevice_ && replicasKey_) replicas_.set(value);
    } else if (level == 4 && inNodes_) {
      id(value);
    }
  }
  void open(Value::Kind kind, int level) {
    Value value;
    value.kind = kind;
    if (level == 1) {
      if (member_ == kNone) return;
      lists_[member_].field.set(value);
      if (kind == Value::Kind::Array) {
        streaming_ = member_;
        List& list = lists_[member_];
        list.devices.clear();
        list.error.clear();
      }
    } else if (level == 2) {
      if (streaming_ == kNone) return;
      if (kind != Value::Kind::Object) return notAnObject(value);
      inDevice_ = true;
      nodes_.clear();
      replicas_.clear();
      ids_.clear();
      idError_.clear();
    } else if (level == 3) {
      if (inDevice_ && replicasKey_) replicas_.set(value);
      if (!inDevice_ || !nodesKey_) return;
      nodes_.set(value);
      if (kind == Value::Kind::Array) {
        inNodes_ = true;
        ids_.clear();
        idError_.clear();
      }
    } else if (level == 4 && inNodes_) {
      id(value);
    } else if (level == 0) {
      top_.set(value);
    }
  }
  void close(int level) {
    if (level == 1) {
      streaming_ = kNone;
    } else if (level == 2 && inDevice_) {
      inDevice_ = false;
      finishDevice();
    } else if (level == 3) {
      inNodes_ = false;
    }
  }
  void key(std::string_view name, int level) {
    if (level == 1) {
      member_ = kNone;
      for (int l = 0; l < kLists; ++l)
        if (name == kListNames[l]) member_ = l;
    } else if (level == 3 && inDevice_) {
      nodesKey_ = name == "nodes";
      replicasKey_ = name == "replicas";
    }
  }

  /// After the parse: the plan, checked in the order a walk over the whole
  /// document would find its faults.
  std::optional<PlanFile> plan(std::string* error) {
    if (!json_reader::requireObject(
            top_.value(), [this] { return file_ + ": top level"; }, error))
      return std::nullopt;
    if (!lists_[kFpgas].field.present() && !lists_[kCpus].field.present()) {
      *error = file_ + ": a plan needs \"fpgas\" and/or \"cpus\" (lists of {\"nodes\": [ids]})";
      return std::nullopt;
    }
    const auto where = [this] { return file_; };
    PlanFile plan;
    for (int l = 0; l < kLists; ++l) {
      List& list = lists_[l];
      if (!list.field.present()) continue;
      if (!json_reader::requireArray(list.field, kListNames[l], where, error)) return std::nullopt;
      if (!list.error.empty()) {
        *error = list.error;
        return std::nullopt;
      }
      (l == kFpgas ? plan.fpgas : plan.cpus) = std::move(list.devices);
      if (l == kFpgas) plan.fpgaReplicas = std::move(list.replicas);
    }
    // Placement numbers devices with an int.
    if (plan.fpgas.size() + plan.cpus.size() > static_cast<std::size_t>(kMaxPlanDevices)) {
      *error = file_ + ": the plan lists " + std::to_string(plan.fpgas.size() + plan.cpus.size()) +
               " devices, more than " + std::to_string(kMaxPlanDevices);
      return std::nullopt;
    }
    return plan;
  }

 private:
  struct List {
    Field field;
    std::vector<std::vector<std::int64_t>> devices;
    std::vector<std::int64_t> replicas;  ///< per device (fpgas): 1 when not given
    std::string error;                   ///< its first fault
  };

  /// "fpgas[3]": the device being read.
  std::string device() const {
    return std::string(kListNames[streaming_]) + "[" +
           std::to_string(lists_[streaming_].devices.size()) + "]";
  }
  void notAnObject(const Value& value) {
    List& list = lists_[streaming_];
    if (!list.error.empty()) return;
    json_reader::requireObject(
        value, [this] { return file_ + ": " + device(); }, &list.error);
  }
  void id(const Value& value) {
    const std::size_t i = ids_.size();
    std::int64_t id = 0;
    if (!idError_.empty()) return;
    if (json_reader::toInteger(value, true, &id)) {
      ids_.push_back(id);
      return;
    }
    Field field;
    field.set(value);
    const std::string name = "nodes[" + std::to_string(i) + "]";
    json_reader::readInteger(
        field, name.c_str(), true, &id, [this] { return file_ + ": " + device(); }, &idError_);
  }
  void finishDevice() {
    List& list = lists_[streaming_];
    if (!list.error.empty()) return;
    const auto where = [this] { return file_ + ": " + device(); };
    if (!json_reader::requireArray(nodes_, "nodes", where, &list.error)) return;
    if (!idError_.empty()) {
      list.error = idError_;
      return;
    }
    std::int64_t replicas = 1;
    if (replicas_.present()) {
      if (!json_reader::readInteger(replicas_, "replicas", true, &replicas, where, &list.error)) return;
      if (replicas < 1 || replicas > kMaxPlanDevices) {
        list.error = where() + ": replicas must be at least 1, got " + std::to_string(replicas);
        return;
      }
      if (streaming_ == kCpus && replicas != 1) {
        list.error = where() + ": replicas " + std::to_string(replicas) +
                     " on a CPU core: only accelerator blocks are replicated (docs/model.md §9)";
        return;
      }
    }
    list.replicas.push_back(replicas);
    list.devices.push_back(std::move(ids_));
    ids_.clear();
  }

  const std::string& file_;
  Field top_;
  List lists_[kLists];
  int member_ = kNone;        ///< the list of the last top-level key
  int streaming_ = kNone;     ///< the list whose array is being read
  bool inDevice_ = false;     ///< inside a device's object
  bool nodesKey_ = false;     ///< the device's last key was "nodes"
  bool replicasKey_ = false;  ///< the device's last key was "replicas"
  bool inNodes_ = false;      ///< inside a device's "nodes" array
  Field nodes_;               ///< the device's "nodes", as last given
  Field replicas_;            ///< the device's "replicas" (docs/model.md §9), as last given
  std::vector<std::int64_t> ids_;
  std::string idError_;  ///< the first fault among ids_
};

std::string listIds(const std::vector<std::int64_t>& ids) {
  std::string text;
  const std::size_t shown = std::min<std::size_t>(ids.size(), 10);
  for (std::size_t i = 0; i < shown; ++i) text += (i ? ", " : "") + std::to_string(ids[i]);
  if (ids.size() > shown) text += ", … (" + std::to_string(ids.size()) + " in all)";
  return text;
}

}  // namespace

std::optional<PlanFile> parsePlan(std::string_view text, const std::string& name, std::string* error) {
  PlanSchema schema(name);
  if (!json_reader::readJson(text, name, schema, error)) return std::nullopt;
  return schema.plan(error);
}

std::optional<PlanFile> loadPlan(const std::string& path, std::string* error, std::uint64_t maxBytes) {
  auto text = readFile(path, error, maxBytes);
  if (!text) return std::nullopt;
  return parsePlan(*text, inputName(path), error);
}

bool checkReplicas(const Workload& workload, const PlanFile& plan, const std::string& name,
                   std::string* error) {
  for (std::size_t d = 0; d < plan.fpgaReplicas.size(); ++d)
    if (plan.fpgaReplicas[d] > workload.machine.maxFpgas) {
      *error = name + ": fpgas[" + std::to_string(d) + "]: replicas " +
               std::to_string(plan.fpgaReplicas[d]) + " is more than the workload's maxFPGAs (" +
               std::to_string(workload.machine.maxFpgas) + ")";
      return false;
    }
  return true;
}

Placement resolvePlan(const Workload& workload, const PlanFile& plan,
                      std::vector<std::string>* violations) {
  Placement placement;
  placement.numAccelerators = static_cast<int>(plan.fpgas.size());
  placement.numCpus = static_cast<int>(plan.cpus.size());
  placement.deviceOf.assign(workload.numNodes(), Placement::kUnplaced);
  if (std::any_of(plan.fpgaReplicas.begin(), plan.fpgaReplicas.end(),
                  [](std::int64_t r) { return r != 1; }))
    for (const std::int64_t r : plan.fpgaReplicas)  // parsePlan held them to an int
      placement.replicas.push_back(static_cast<int>(r));

  auto deviceName = [&](int device) {
    return device < placement.numAccelerators
               ? "fpgas[" + std::to_string(device) + "]"
               : "cpus[" + std::to_string(device - placement.numAccelerators) + "]";
  };
  std::vector<std::int64_t> unknown;
  // A node listed more than once gets one line, however often it is listed:
  // how many times, and on which devices (the first few).
  // Devices are walked in increasing order, so a device is new to a node
  // exactly when it differs from the last one that node was listed on.
  constexpr std::size_t kShown = 4;
  struct Repeated {
    NodeIndex node;
    std::int64_t listings;
    std::int64_t distinct;     ///< devices it is listed on
    int lastDevice;            ///< the last of them
    std::vector<int> devices;  ///< the first kShown + 1 of them, in order
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
        const int first = placement.deviceOf[*v];
        repeated.push_back({*v, 1, 1, first, {first}});
      }
      Repeated& r = repeated[repeatedIndex[*v]];
      ++r.listings;
      if (r.lastDevice != device) {
        r.lastDevice = device;
        ++r.distinct;
        if (r.devices.size() <= kShown) r.devices.push_back(device);
      }
    }
  }
  for (const Repeated& r : repeated) {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < r.devices.size() && i < kShown; ++i)
      names.push_back(deviceName(r.devices[i]));
    if (r.distinct > static_cast<std::int64_t>(kShown))
      names.push_back(std::to_string(r.distinct - static_cast<std::int64_t>(kShown)) + " more devices");
    std::string where = names.front();  // "a", "a and b", "a, b and c"
    for (std::size_t i = 1; i < names.size(); ++i)
      where += (i + 1 == names.size() ? " and " : ", ") + names[i];
    violations->push_back(
        "node " + std::to_string(workload.graph().nodes[r.node].id) + " is listed " +
        (r.listings == 2 ? std::string("twice") : std::to_string(r.listings) + " times") +
        (r.distinct == 1 ? " on " + where : " (" + where + ")"));
  }
  if (!unknown.empty())
    violations->push_back("the plan lists node ids that are not in the workload: " + listIds(unknown));

  // Expert splits list forward nodes only: a backward node follows its class.
  std::vector<std::int32_t> classDevice(workload.graph().numClasses, Placement::kUnplaced);
  for (NodeIndex v = 0; v < workload.numNodes(); ++v)
    if (placement.deviceOf[v] != Placement::kUnplaced && !workload.graph().nodes[v].isBackward &&
        classDevice[workload.graph().classOf[v]] == Placement::kUnplaced)
      classDevice[workload.graph().classOf[v]] = placement.deviceOf[v];
  for (NodeIndex v = 0; v < workload.numNodes(); ++v)
    if (placement.deviceOf[v] == Placement::kUnplaced && workload.graph().nodes[v].isBackward)
      placement.deviceOf[v] = classDevice[workload.graph().classOf[v]];
  return placement;
}

}  // namespace dnnplace
