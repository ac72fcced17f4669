#include "results/xsr.h"

#include "results/fields.h"

namespace ssdlab::results {

namespace f = fields;

constexpr auto kSegment = f::Object<XsrSegment>(
    f::Text("name", &XsrSegment::name),
    f::Sub("metrics", &XsrSegment::metrics, f::Via<PhaseMetricsFromJson>()),
    f::List("series_bw", &XsrSegment::series_bw, f::PairOf<double, double>()));

constexpr auto kXsr = f::Object<XsrResults>(
    f::Text("purge_method", &XsrResults::purge_method),
    f::List("segments", &XsrResults::segments, kSegment),
    f::Number("settled_seq_write_bytes_per_s", &XsrResults::settled_seq_write_bytes_per_s),
    f::Number("recovery_time_s", &XsrResults::recovery_time_s),
    f::Flag("recovered", &XsrResults::recovered));

SSDLAB_FIELDS_JSON(XsrResults, XsrResultsFromJson, kXsr)

}  // namespace ssdlab::results
