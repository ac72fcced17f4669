#include "results/sweep.h"

#include "results/fields.h"

namespace ssdlab::results {

namespace f = fields;

constexpr auto kSweepPoint = f::Object<SweepPoint>(
    f::Inline(&SweepPoint::metrics, f::Via<PhaseMetricsFromJson>()),
    f::Text("point", &SweepPoint::point),
    f::List("histogram", &SweepPoint::histogram, f::PairOf<uint64_t, uint64_t>()));

constexpr auto kSweep =
    f::Object<SweepResults>(f::Text("purge_method", &SweepResults::purge_method),
                            f::Count("range_bytes", &SweepResults::range_bytes),
                            f::List("cells", &SweepResults::cells, f::Via<CellFromJson>()),
                            f::List("selected", &SweepResults::selected, kSweepPoint),
                            f::Count("max_mean_latency_ns", &SweepResults::max_mean_latency_ns));

SSDLAB_FIELDS_JSON(SweepResults, SweepResultsFromJson, kSweep)

}  // namespace ssdlab::results
