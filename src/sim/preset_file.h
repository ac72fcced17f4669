// Presets as TOML files: the built-in presets (src/sim/presets/*.toml, embedded into the
// binary at build time) and the user's own, `sim:PATH.toml[?key=value&...]`.
//
// A preset file holds, at its top level, any keys of the parameter table (sim/params.h
// ParamTable: the same keys as the target query and `ssdlab sim presets`), with numbers as
// TOML numbers, sizes as numbers of bytes or strings ("32MiB"), names as strings and gc_lazy
// as a boolean; and the optional keys
//   name = "..."          the preset's name (default: the file name without ".toml")
//   description = "..."
//   base = "PRESET"       start from a built-in preset, or another file (a path relative to
//                         this file's directory); without it, from the model's defaults
//   [sources]             KEY = "where the value comes from", merged over the base's
//   [fit]                 written by `ssdlab sim fit` (what the twin was fitted to, its
//                         errors); not read here
// Keys are applied in the table's order whatever their order in the file (so an explicit
// link_mb_s wins over the default that `interface` sets). Strict: an unknown key, a value of
// the wrong type or out of range, a missing or unreadable file, a base cycle -> Invalid, one
// line "FILE:LINE: ..." naming the key. `state` is not a drive parameter: query only.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "sim/params.h"

namespace ssdlab::sim {

// A built-in preset by name, or, when `name` ends in ".toml", the preset file at that path
// (relative to the working directory). Unknown preset -> Invalid listing the known ones.
Result<SimParams> LoadPreset(const std::string& name);

// The path of the preset file a target names ("sim:PATH.toml[?key=value&...]", "sim:"
// optional), or empty when it names a built-in preset.
std::string PresetFileOf(const std::string& target);

// Parses preset-file text; `origin` names it in errors and its directory resolves a
// relative `base`. Not validated across fields (ParseSimTarget does that).
Result<SimParams> ParsePresetToml(const std::string& text, const std::string& origin);

// `p` as a preset file with every key of the table (a unit and help comment on each line)
// and its sources: ParsePresetToml of the result gives back ParamPairs(p) and p.sources.
std::string PresetToml(const SimParams& p);

}  // namespace ssdlab::sim
