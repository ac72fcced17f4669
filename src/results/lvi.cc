#include "results/lvi.h"

#include "results/fields.h"

namespace ssdlab::results {

namespace f = fields;

constexpr auto kCurvePoint = f::Object<CurvePoint>(
    f::Inline(&CurvePoint::metrics, f::Via<PhaseMetricsFromJson>()),
    f::Count("threads", &CurvePoint::threads), f::Count("qd", &CurvePoint::qd));

constexpr auto kCurve = f::Object<Curve>(
    f::Text("curve", &Curve::curve), f::Number("read_pct", &Curve::read_pct),
    f::Count("block_bytes", &Curve::block_bytes), f::List("points", &Curve::points, kCurvePoint));

constexpr auto kLvi = f::Object<LviResults>(f::Text("purge_method", &LviResults::purge_method),
                                            f::Count("range_bytes", &LviResults::range_bytes),
                                            f::List("curves", &LviResults::curves, kCurve));

SSDLAB_FIELDS_JSON(Curve, CurveFromJson, kCurve)
SSDLAB_FIELDS_JSON(LviResults, LviResultsFromJson, kLvi)

}  // namespace ssdlab::results
