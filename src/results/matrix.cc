#include "results/matrix.h"

#include "results/fields.h"

namespace ssdlab::results {

namespace f = fields;

constexpr auto kMatrix =
    f::Object<MatrixResults>(f::Text("purge_method", &MatrixResults::purge_method),
                             f::Count("range_bytes", &MatrixResults::range_bytes),
                             f::List("cells", &MatrixResults::cells, f::Via<CellFromJson>()));

SSDLAB_FIELDS_JSON(MatrixResults, MatrixResultsFromJson, kMatrix)

}  // namespace ssdlab::results
