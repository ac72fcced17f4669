#include "results/matrix.h"

#include "results/read.h"

namespace ssdlab::results {

using nlohmann::json;

json ToJson(const MatrixResults& m) {
  return {{"purge_method", m.purge_method},
          {"range_bytes", m.range_bytes},
          {"cells", internal::ListJson(m.cells)}};
}

Result<MatrixResults> MatrixResultsFromJson(const json& j, const std::string& where) {
  SSDLAB_RETURN_IF_ERROR(internal::Object(j, where));
  MatrixResults m;
  SSDLAB_RETURN_IF_ERROR(internal::Text(j, where, "purge_method", m.purge_method));
  SSDLAB_RETURN_IF_ERROR(internal::Count(j, where, "range_bytes", m.range_bytes));
  SSDLAB_RETURN_IF_ERROR(internal::List(j, where, "cells", CellFromJson, m.cells));
  return m;
}

}  // namespace ssdlab::results
