#include "results/cells.h"

#include "results/fields.h"

namespace ssdlab::results {

namespace f = fields;

constexpr auto kWorkload = f::Object<CellWorkload>(
    f::Text("description", &CellWorkload::description), f::Id("seed", &CellWorkload::seed));

constexpr auto kCell = f::Object<CellResult>(
    f::Inline(&CellResult::metrics, f::Via<PhaseMetricsFromJson>()),
    f::Text("cell", &CellResult::cell), f::Sub("workload", &CellResult::workload, kWorkload));

SSDLAB_FIELDS_JSON(CellResult, CellFromJson, kCell)

}  // namespace ssdlab::results
