#include "results/tp.h"

#include "results/fields.h"

namespace ssdlab::results {

namespace f = fields;

constexpr auto kBlock = f::Object<TpBlock>(
    f::Count("block_bytes", &TpBlock::block_bytes), f::Text("purge_method", &TpBlock::purge_method),
    f::Sub("steady_state", &TpBlock::steady_state, f::Via<SteadyStateFromJson>()),
    f::List("cells", &TpBlock::cells, f::Via<CellFromJson>()));

constexpr auto kTp = f::Object<TpResults>(f::Count("range_bytes", &TpResults::range_bytes),
                                          f::List("by_block", &TpResults::by_block, kBlock));

SSDLAB_FIELDS_JSON(TpResults, TpResultsFromJson, kTp)

}  // namespace ssdlab::results
