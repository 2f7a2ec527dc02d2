#pragma once
// The direct-sum kernel the automatic launch picks for each N and precision: a table of measurements,
// read by resolve_force_launch (cuda/force_kernels.cu). Each row holds from its min_n up to the next
// row's; zero K / block fields are filled as for an explicit launch. Measured on an H200 (132 SMs) with
// `nbody_cuda_bench --launches` (docs/CUDA_NOTES.md v8, "the choice table"); re-measure and edit the rows
// on another device.
#include <cstddef>

#include "cuda/force_kernels.hpp"

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
    {Precision::f32, 1048576, ForceKernel::pairwise, 8, 256},
    {Precision::f64, 0, ForceKernel::tuned, 0, 0},
    {Precision::f64, 16384, ForceKernel::pairwise_grid, 4, 128},
    {Precision::f64, 1048576, ForceKernel::pairwise, 4, 128},
};
// A pairwise_grid row whose scratch (tiles x N x 16 or 32 bytes) would pass max_pairwise_grid_bytes()
// (force_kernels.hpp) runs the tournament rounds with the same K and block instead: fp32 from ~740K,
// fp64 from ~380K bodies on an H200.

}  // namespace nbody
