// Small statistics for timings: median and spread of a set of samples.
#pragma once

#include <span>

namespace course {

double median(std::span<const double> samples);  // throws std::invalid_argument on an empty set
double minimum(std::span<const double> samples);
double maximum(std::span<const double> samples);
// (max - min) / median: how far apart the samples lie, relative to their median.
double relative_spread(std::span<const double> samples);

}  // namespace course
