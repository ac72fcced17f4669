#include "results/op.h"

#include "results/fields.h"

namespace ssdlab::results {

namespace f = fields;

constexpr auto kOpPoint = f::Object<OpPoint>(
    f::Number("op_pct", &OpPoint::op_pct), f::Count("range_bytes", &OpPoint::range_bytes),
    f::Text("purge_method", &OpPoint::purge_method),
    f::Sub("steady_state", &OpPoint::steady_state, f::Via<SteadyStateFromJson>()),
    f::Number("steady_write_iops", &OpPoint::steady_write_iops),
    f::List("curves", &OpPoint::curves, f::Via<CurveFromJson>()));

constexpr auto kOp = f::Object<OpResults>(f::List("op_points", &OpResults::op_points, kOpPoint));

SSDLAB_FIELDS_JSON(OpResults, OpResultsFromJson, kOp)

}  // namespace ssdlab::results
