#include "dnnplace/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dnnplace {
namespace {

bool hasPlan(const SolveOutcome& outcome) {
  return outcome.placement &&
         (outcome.status == SolveStatus::Optimal || outcome.status == SolveStatus::Feasible);
}

/// Whether the method proved a lower bound: a positive one, or 0 with the
/// plan proven optimal (methods without a bound report 0).
bool hasBound(const SolveOutcome& o) { return o.lowerBound > 0 || o.status == SolveStatus::Optimal; }

std::string format(const char* pattern, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, pattern, value);
  return buffer;
}

/// Terminal columns taken by UTF-8 text (every code point counts as one).
std::size_t displayWidth(const std::string& text) {
  std::size_t width = 0;
  for (unsigned char c : text)
    if ((c & 0xC0) != 0x80) ++width;
  return width;
}

const char* kMissing = "\xE2\x80\x94";  // an em dash: no value

std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string textTable(const std::vector<CompareRow>& rows) {
  const std::vector<std::string> header = {"workload", "method", "objective", "ratio", "lower bound",
                                           "gap", "seconds", "devices", "status"};
  std::vector<std::vector<std::string>> cells;
  for (const auto& row : rows) {
    const SolveOutcome& o = row.outcome;
    const bool ok = hasPlan(o);
    cells.push_back({row.workload, o.method, ok ? format("%.4f", o.objective) : kMissing,
                     ok ? format("%.3f", row.ratioToBest) : kMissing,
                     hasBound(o) ? format("%.4f", o.lowerBound) : kMissing,
                     ok && hasBound(o) ? format("%.2f%%", 100 * o.gap) : kMissing,
                     format("%.2f", o.seconds), ok ? std::to_string(row.devicesUsed) : kMissing,
                     statusName(o.status)});
  }
  std::vector<std::size_t> width(header.size());
  for (std::size_t i = 0; i < header.size(); ++i) width[i] = displayWidth(header[i]);
  for (const auto& line : cells)
    for (std::size_t i = 0; i < line.size(); ++i) width[i] = std::max(width[i], displayWidth(line[i]));
  // Text columns left-aligned, numbers right-aligned.
  auto render = [&](const std::vector<std::string>& line) {
    std::string out;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const std::string pad(width[i] - displayWidth(line[i]), ' ');
      const bool left = i < 2 || i + 1 == line.size();
      if (i > 0) out += "  ";
      out += left ? line[i] + (i + 1 == line.size() ? "" : pad) : pad + line[i];
    }
    return out + "\n";
  };
  std::string out = render(header);
  for (const auto& line : cells) out += render(line);
  // Why a method gave no plan, under the table.
  bool first = true;
  for (const auto& row : rows) {
    if (hasPlan(row.outcome) || row.outcome.message.empty()) continue;
    if (first) out += "\n";
    first = false;
    out += row.workload + " / " + row.outcome.method + ": " + row.outcome.message + "\n";
  }
  return out;
}

std::string jsonTable(const std::vector<CompareRow>& rows) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& row : rows) {
    const SolveOutcome& o = row.outcome;
    const bool ok = hasPlan(o);
    nlohmann::json entry = {{"workload", row.workload},
                            {"method", o.method},
                            {"status", statusName(o.status)},
                            {"objective", ok ? nlohmann::json(o.objective) : nlohmann::json()},
                            // JSON has no infinity: "inf" against a best of 0 (null is no plan).
                            {"ratioToBest", !ok ? nlohmann::json()
                                            : std::isinf(row.ratioToBest) ? nlohmann::json("inf")
                                                                          : nlohmann::json(row.ratioToBest)},
                            {"lowerBound", hasBound(o) ? nlohmann::json(o.lowerBound) : nlohmann::json()},
                            {"gap", ok && hasBound(o) ? nlohmann::json(o.gap) : nlohmann::json()},
                            {"seconds", o.seconds},
                            {"devicesUsed", row.devicesUsed},
                            {"message", o.message}};
    list.push_back(std::move(entry));
  }
  return list.dump(1) + "\n";
}

std::string csvTable(const std::vector<CompareRow>& rows) {
  std::string out = "workload,method,status,objective,ratio_to_best,lower_bound,gap,seconds,devices,message\n";
  for (const auto& row : rows) {
    const SolveOutcome& o = row.outcome;
    const bool ok = hasPlan(o);
    out += csvField(row.workload) + "," + csvField(o.method) + "," + statusName(o.status) + "," +
           (ok ? format("%.17g", o.objective) : "") + "," +
           (ok ? format("%.17g", row.ratioToBest) : "") + "," + (hasBound(o) ? format("%.17g", o.lowerBound) : "") +
           "," + (ok && hasBound(o) ? format("%.17g", o.gap) : "") + "," + format("%.6f", o.seconds) + "," +
           std::to_string(row.devicesUsed) + "," + csvField(o.message) + "\n";
  }
  return out;
}

}  // namespace

std::vector<std::string> defaultMethods(Objective objective) {
  std::vector<std::string> names;
  for (const auto& method : methods()) {
    if (method.name == "expert") continue;  // needs a plan file
    if (objective == Objective::Throughput ? method.throughput : method.latency)
      names.push_back(method.name);
  }
  return names;
}

std::vector<CompareRow> compareMethods(const std::vector<const Workload*>& workloads,
                                       const std::vector<std::string>& methodNames,
                                       const SolveOptions& options) {
  std::vector<CompareRow> rows;
  const std::size_t total = workloads.size() * methodNames.size();
  for (const Workload* workload : workloads) {
    const std::size_t firstRow = rows.size();
    for (const auto& name : methodNames) {
      if (options.interrupt && options.interrupt->load()) return rows;
      if (options.progress)
        options.progress("compare " + std::to_string(rows.size() + 1) + "/" +
                         std::to_string(total) + ": " + name + " on " + workload->name);
      CompareRow row;
      row.workload = workload->name;
      row.outcome = solve(*workload, name, options);
      if (hasPlan(row.outcome)) row.devicesUsed = static_cast<int>(row.outcome.evaluation.devices.size());
      rows.push_back(std::move(row));
    }
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t i = firstRow; i < rows.size(); ++i)
      if (hasPlan(rows[i].outcome)) best = std::min(best, rows[i].outcome.objective);
    for (std::size_t i = firstRow; i < rows.size(); ++i) {
      if (!hasPlan(rows[i].outcome)) continue;
      const double objective = rows[i].outcome.objective;
      // Against a best of 0, any positive objective is infinitely worse.
      rows[i].ratioToBest = best > 0 ? objective / best : (objective == 0 ? 1.0 : std::numeric_limits<double>::infinity());
    }
  }
  return rows;
}

std::string formatComparison(const std::vector<CompareRow>& rows, const std::string& format) {
  if (format == "json") return jsonTable(rows);
  if (format == "csv") return csvTable(rows);
  return textTable(rows);
}

}  // namespace dnnplace
