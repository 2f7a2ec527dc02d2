#pragma once
// The relative force error of an approximate solver (the tree) against the float64 direct sum, on a
// sample of bodies: the one place its statistics are computed (bench, window and tests use it).
//   error_i = |a_i - a_ref_i| / |a_ref_i|
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/state.hpp"

namespace nbody {

struct ForceErrorStats {
    double median = 0;  // linear interpolation between order statistics (numpy's default percentile)
    double p99 = 0;     // 99th percentile, same interpolation
    double max = 0;
    std::size_t count = 0;  // samples
};

// Statistics of the relative errors of approx[k] against reference[k], k < count. A zero reference with
// a zero approximation counts as error 0, with a non-zero one as +infinity; a NaN anywhere gives NaN.
template <typename T>
ForceErrorStats force_error_stats(const Vec4<T>* approx, const Vec4<double>* reference, std::size_t count);

// `count` distinct body indices in [0, n), sorted, drawn with a fixed seed (all of [0, n) when count >= n).
std::vector<std::size_t> error_sample(std::size_t n, std::size_t count, std::uint64_t seed = 12345);

// Float64 direct sum on the sample only: out[k] = acceleration of bodies[sample[k]] from all n bodies
// (G applied; a body exactly at the target adds nothing, as in the tree), and potential[k] = its phi
// when `potential` is not null. O(count * n), on OpenMP threads.
template <typename T>
void direct_accelerations_at(const Vec4<T>* bodies, std::size_t n, const std::size_t* sample,
                             std::size_t count, double G, double softening, Vec4<double>* out,
                             double* potential = nullptr);

// Everything at once, as bench and the window use it: the relative error of acc[0, n) (any solver's
// accelerations of bodies[0, n), G applied) against the float64 direct sum on `sample_count` bodies
// drawn with `seed`. O(sample_count * n): 1000 samples of a million bodies take ~1e9 double interactions.
template <typename T>
ForceErrorStats sampled_force_error(const Vec4<T>* bodies, const Vec4<T>* acc, std::size_t n,
                                    std::size_t sample_count, double G, double softening,
                                    std::uint64_t seed = 12345);

}  // namespace nbody
