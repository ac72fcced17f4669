// Private to results/: the codecs of results/mix.h, for the documents that hold a mix.
#pragma once

#include "results/fields.h"
#include "results/mix.h"

namespace ssdlab::results::fields {

inline constexpr auto kMixBlock =
    Object<MixBlock>(Count("bytes", &MixBlock::bytes), Number("pct", &MixBlock::pct));
inline constexpr auto kMixDistribution = Object<MixDistribution>(
    Text("kind", &MixDistribution::kind), Number("param", &MixDistribution::param),
    List("zones", &MixDistribution::zones,
         Object<MixZone>(Number("access_pct", &MixZone::access_pct),
                         Number("range_pct", &MixZone::range_pct))));

}  // namespace ssdlab::results::fields
