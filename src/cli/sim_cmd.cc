// `ssdlab sim presets` and `ssdlab sim describe TARGET`: the simulator's presets and the
// figures derived from a (possibly overridden) preset.
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>

#include "base/units.h"
#include "cli/commands.h"
#include "sim/sim.h"

namespace ssdlab {
namespace {

// A capacity in bytes as drives are sold ("1.6 TB", "512 MiB" for a power of two).
std::string HumanCapacity(const std::string& bytes_text) {
  const double bytes = std::strtod(bytes_text.c_str(), nullptr);
  if (bytes >= 1e12) return fmt::format("{:.3g} TB", bytes / 1e12);
  if (bytes >= 1e9 && std::fmod(bytes, 1 << 30) != 0) return fmt::format("{:.3g} GB", bytes / 1e9);
  return FormatBytes(static_cast<uint64_t>(bytes));
}

// A derived figure's value as JSON: a number when its whole text is one (an integer exactly,
// as an unsigned 64-bit number where it fits), else the text ("greedy (lazy)", a preset name).
nlohmann::json FigureValueJson(const std::string& text) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  uint64_t u = 0;
  if (auto [p, ec] = std::from_chars(begin, end, u); ec == std::errc() && p == end && !text.empty())
    return u;
  double d = 0;
  if (auto [p, ec] = std::from_chars(begin, end, d);
      ec == std::errc() && p == end && !text.empty() && std::isfinite(d))
    return d;
  return text;
}

}  // namespace

void AddSimCommand(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand("sim", "The simulated SSD: presets and derived figures");
  cmd->require_subcommand(1);
  auto json_out = std::make_shared<bool>(false);
  auto long_out = std::make_shared<bool>(false);
  CLI::App* presets = cmd->add_subcommand(
      "presets", "List the presets, one line each (--long: every parameter and its source)");
  presets->add_flag("--long", *long_out, "Every parameter of each preset, with its source");
  presets->add_flag("--json", *json_out, "Print JSON (every parameter and its source)");
  presets->callback([exit_code, json_out, long_out] {
    auto list = ListPresets();
    if (*json_out) {
      nlohmann::json doc = nlohmann::json::array();
      for (const auto& p : list) {
        nlohmann::json params = nlohmann::json::object(), sources = nlohmann::json::object();
        for (const auto& [k, v] : p.params) params[k] = v;
        for (const auto& [k, v] : p.sources) sources[k] = v;
        doc.push_back({{"name", p.name},
                       {"description", p.description},
                       {"params", params},
                       {"sources", sources}});
      }
      std::cout << doc.dump(1) << "\n";
    } else if (!*long_out) {
      for (const auto& p : list) {
        auto param = [&](const std::string& key) -> std::string {
          for (const auto& [k, v] : p.params)
            if (k == key) return v;
          return "?";
        };
        std::cout << fmt::format("sim:{:<24} {:>8}  OP {:>5}%  {}\n", p.name,
                                 HumanCapacity(param("capacity")), param("op"), p.description);
      }
    } else {
      for (const auto& p : list) {
        std::cout << fmt::format("sim:{}\n  {}\n", p.name, p.description);
        for (const auto& [k, v] : p.params) {
          auto [unit, help] = SimParamDoc(k);
          std::cout << fmt::format("    {:<24} {:>16} {:<8} {}\n", k, v, unit, help);
        }
        for (const auto& [k, v] : p.sources)
          std::cout << fmt::format("    source of {}: {}\n", k, v);
        std::cout << "\n";
      }
    }
    *exit_code = kExitOk;
  });
  auto target = std::make_shared<std::string>();
  auto djson = std::make_shared<bool>(false);
  CLI::App* describe = cmd->add_subcommand(
      "describe", "A preset (with overrides) as a preset file, and its derived figures");
  describe->add_option("target", *target, "PRESET, FILE.toml or sim:PRESET[?key=value&...]")
      ->required();
  describe->add_flag("--json", *djson, "Print JSON");
  describe->callback([exit_code, target, djson] {
    std::string t = target->rfind("sim:", 0) == 0 ? *target : "sim:" + *target;
    auto figures = DescribeSim(t);
    auto toml = SimPresetToml(t);
    if (!figures.ok() || !toml.ok()) {
      *exit_code = Fail(figures.ok() ? toml.status() : figures.status());
      return;
    }
    if (*djson) {
      nlohmann::json doc = nlohmann::json::array();
      for (const auto& f : *figures)
        doc.push_back({{"key", f.key}, {"value", FigureValueJson(f.value)}, {"unit", f.unit}});
      std::cout << doc.dump(1) << "\n";
    } else {
      // A preset file (sim:FILE.toml loads it back), the derived figures as comments.
      std::cout << "# " << t << "\n" << *toml << "\n# Derived figures (not parameters):\n";
      for (const auto& f : *figures)
        std::cout << fmt::format("#   {:<34} {:>18} {}\n", f.key, f.value, f.unit);
    }
    *exit_code = kExitOk;
  });
  AddSimTwinCommands(*cmd, exit_code);
  AddSimServeCommand(*cmd, exit_code);
}

}  // namespace ssdlab
