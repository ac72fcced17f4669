#include "results/tp.h"

#include "results/read.h"

namespace ssdlab::results {

using nlohmann::json;

namespace {

json BlockJson(const TpBlock& b) {
  return {{"block_bytes", b.block_bytes},
          {"purge_method", b.purge_method},
          {"steady_state", ToJson(b.steady_state)},
          {"cells", internal::ListJson(b.cells)}};
}

Result<TpBlock> BlockFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  TpBlock b;
  SSDLAB_RETURN_IF_ERROR(internal::Count(j, where, "block_bytes", b.block_bytes));
  SSDLAB_RETURN_IF_ERROR(internal::Text(j, where, "purge_method", b.purge_method));
  SSDLAB_RETURN_IF_ERROR(
      internal::Sub(j, where, "steady_state", SteadyStateFromJson, b.steady_state));
  SSDLAB_RETURN_IF_ERROR(internal::List(j, where, "cells", CellFromJson, b.cells));
  return b;
}

}  // namespace

json ToJson(const TpResults& t) {
  return {{"range_bytes", t.range_bytes}, {"by_block", internal::ListJson(t.by_block, BlockJson)}};
}

Result<TpResults> TpResultsFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  TpResults t;
  SSDLAB_RETURN_IF_ERROR(internal::Count(j, where, "range_bytes", t.range_bytes));
  SSDLAB_RETURN_IF_ERROR(internal::List(j, where, "by_block", BlockFromJson, t.by_block));
  return t;
}

}  // namespace ssdlab::results
