#include "results/hir.h"

#include "results/fields.h"

namespace ssdlab::results {

namespace f = fields;

constexpr auto kCycle = f::Object<HirCycle>(
    f::Count("cycle", &HirCycle::cycle), f::Number("iops", &HirCycle::iops),
    f::Number("mean_ns", &HirCycle::mean_ns), f::Count("max_ns", &HirCycle::max_ns));

constexpr auto kSample = f::Object<HirSample>(f::Number("t_end_s", &HirSample::t_end_s),
                                              f::Number("iops", &HirSample::iops));

constexpr auto kWaitState = f::Object<HirWaitState>(
    f::Count("wait_ns", &HirWaitState::wait_ns), f::List("cycles", &HirWaitState::cycles, kCycle),
    f::Number("mean_cycle_iops", &HirWaitState::mean_cycle_iops),
    f::Number("gain_vs_baseline", &HirWaitState::gain_vs_baseline),
    f::Number("gain_vs_continuous", &HirWaitState::gain_vs_continuous),
    f::Sub("cycle_metrics", &HirWaitState::cycle_metrics, f::Via<PhaseMetricsFromJson>()),
    f::Sub("return_to_baseline", &HirWaitState::return_to_baseline, f::Via<PhaseMetricsFromJson>()),
    f::List("return_series", &HirWaitState::return_series, kSample));

constexpr auto kHir =
    f::Object<HirResults>(f::Text("purge_method", &HirResults::purge_method),
                          f::Number("baseline_iops", &HirResults::baseline_iops),
                          f::List("wait_states", &HirResults::wait_states, kWaitState));

SSDLAB_FIELDS_JSON(HirResults, HirResultsFromJson, kHir)

}  // namespace ssdlab::results
