#pragma once
// The direct-sum kernel the automatic launch picks for each N and precision: a table of measurements,
// read by resolve_force_launch (cuda/force_kernels.cu). Each row holds from its min_n up to the next
// row's; zero K / block fields are filled as for an explicit launch. Measured on an H200 (132 SMs) with
// `nbody_cuda_bench --launches` (docs/CUDA_NOTES.md v8-v9, v12); re-measure and edit the rows
// on another device.
#include <cstddef>

#include "force_kernels.hpp"

namespace nbody {

struct ForceChoice {
    Precision precision;
    std::size_t min_n;
    ForceKernel kernel;
    int bodies_per_thread;
    int block;
};

inline constexpr ForceChoice kForceChoices[] = {
    {Precision::f32, 0, ForceKernel::tuned, 0, 0},
    {Precision::f32, 16384, ForceKernel::pairwise_grid, 8, 64},
    {Precision::f32, 65536, ForceKernel::pairwise_grid, 8, 128},
    {Precision::f32, 98304, ForceKernel::pairwise_grid, 12, 128},
    {Precision::f64, 0, ForceKernel::tuned, 0, 0},
    {Precision::f64, 16384, ForceKernel::pairwise_grid, 4, 128},
};
// The grid rows' band size (tiles whose partial sums are kept at once) is chosen by resolve_force_launch
// from the scratch budget max_pairwise_grid_bytes() (force_kernels.hpp): one band, a single launch, up to
// ~262K bodies in fp32 and ~185K in fp64 on an H200; passes over band pairs beyond.

}  // namespace nbody
