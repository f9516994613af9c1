// The renderings of `dnnplace compare`: an aligned text table, JSON and CSV.

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dnnplace/report.hpp"
#include "report/text.hpp"

namespace dnnplace {
namespace {

using report::printed;

/// Whether the method proved a lower bound: a positive one, or 0 with the
/// plan proven optimal (methods without a bound report 0).
bool hasBound(const SolveOutcome& o) { return o.lowerBound > 0 || o.status == SolveStatus::Optimal; }

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
  const std::vector<std::string> header = {"workload", "method",  "objective", "ratio", "lower bound",
                                           "gap",      "seconds", "devices",   "status"};
  std::vector<std::vector<std::string>> cells;
  for (const auto& row : rows) {
    const SolveOutcome& o = row.outcome;
    const bool ok = hasPlan(o);
    cells.push_back({row.workload, o.method, ok ? printed("%.4f", o.objective) : kMissing,
                     ok ? printed("%.3f", row.ratioToBest) : kMissing,
                     hasBound(o) ? printed("%.4f", o.lowerBound) : kMissing,
                     ok && hasBound(o) ? printed("%.2f%%", 100 * o.gap) : kMissing,
                     printed("%.2f", o.seconds), ok ? std::to_string(row.devicesUsed) : kMissing,
                     resultName(o)});
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
  // A bound over only some placements, said under the table: dp's optimum
  // may sit above a non-contiguous plan of milp's.
  std::vector<std::string> scoped;
  bool others = false;
  for (const auto& row : rows) {
    const SolveOutcome& o = row.outcome;
    if (!hasBound(o)) continue;
    others = others || o.boundScope == BoundScope::Every;
    if (o.boundScope == BoundScope::Every) continue;
    const std::string note = o.method + ": the lower bound and status hold over " +
                             boundScopeName(o.boundScope) + " placements only";
    if (std::find(scoped.begin(), scoped.end(), note) == scoped.end()) scoped.push_back(note);
  }
  if (!scoped.empty()) {
    out += "\n";
    for (const std::string& note : scoped) out += note + " (docs/model.md §4)\n";
    if (others) out += "the other lower bounds hold for every placement\n";
  }
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
                            {"status", resultName(o)},
                            {"stopReason", stopReasonName(o.stop)},
                            {"objective", ok ? nlohmann::json(o.objective) : nlohmann::json()},
                            // JSON has no infinity: "inf" against a best of 0 (null is no plan).
                            {"ratioToBest", !ok ? nlohmann::json()
                                            : std::isinf(row.ratioToBest)
                                                ? nlohmann::json("inf")
                                                : nlohmann::json(row.ratioToBest)},
                            {"lowerBound",
                             hasBound(o) ? nlohmann::json(o.lowerBound) : nlohmann::json()},
                            {"gap", ok && hasBound(o) ? nlohmann::json(o.gap) : nlohmann::json()},
                            {"boundScope", boundScopeName(o.boundScope)},
                            {"seconds", o.seconds},
                            {"devicesUsed", row.devicesUsed},
                            {"message", o.message}};
    list.push_back(std::move(entry));
  }
  return list.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string csvTable(const std::vector<CompareRow>& rows) {
  std::string out =
      "workload,method,status,objective,ratio_to_best,lower_bound,gap,bound_scope,seconds,devices,"
      "message\n";
  for (const auto& row : rows) {
    const SolveOutcome& o = row.outcome;
    const bool ok = hasPlan(o);
    out += csvField(row.workload) + "," + csvField(o.method) + "," + resultName(o) + "," +
           (ok ? printed("%.17g", o.objective) : "") + "," +
           (ok ? printed("%.17g", row.ratioToBest) : "") + "," +
           (hasBound(o) ? printed("%.17g", o.lowerBound) : "") + "," +
           (ok && hasBound(o) ? printed("%.17g", o.gap) : "") + "," + boundScopeName(o.boundScope) +
           "," + printed("%.6f", o.seconds) + "," + std::to_string(row.devicesUsed) + "," +
           csvField(o.message) + "\n";
  }
  return out;
}

}  // namespace

std::string formatComparison(const std::vector<CompareRow>& rows, const std::string& format) {
  if (format == "json") return jsonTable(rows);
  if (format == "csv") return csvTable(rows);
  return textTable(rows);
}

}  // namespace dnnplace
