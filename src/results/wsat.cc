#include "results/wsat.h"

#include "results/fields.h"

namespace ssdlab::results {

namespace f = fields;

constexpr auto kRound = f::Object<WsatRound>(
    f::Inline(&WsatRound::metrics, f::Via<PhaseMetricsFromJson>()),
    f::Count("round", &WsatRound::round), f::Number("time_s", &WsatRound::time_s),
    f::Number("written_bytes", &WsatRound::written_bytes),
    f::Number("written_capacities", &WsatRound::written_capacities));

constexpr auto kWsat = f::Object<WsatResults>(f::Text("purge_method", &WsatResults::purge_method),
                                              f::Count("range_bytes", &WsatResults::range_bytes),
                                              f::List("per_round", &WsatResults::per_round, kRound),
                                              f::Text("stopped_by", &WsatResults::stopped_by));

SSDLAB_FIELDS_JSON(WsatResults, WsatResultsFromJson, kWsat)

}  // namespace ssdlab::results
