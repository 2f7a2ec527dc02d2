#pragma once
// Morton (Z-order) keys of the Barnes-Hut tree, shared by the CPU tree (sim/) and the GPU tree (cuda/):
// both must put every body in the same cell, so the root cube and the key come from these functions
// only. No CUDA header: NBODY_HD (sim/gravity/interaction.hpp) marks them __host__ __device__ under nvcc.
//
// Key layout (63 bits, 21 per axis): bit 3k+2 is bit k of the x cell index, 3k+1 of y, 3k of z. The
// octant of a body in a cell at depth L (root: L = 0) is (key >> 3 (20 - L)) & 7 = 4 x_bit + 2 y_bit +
// z_bit, so sorting by key orders every cell's bodies by octant, recursively.
#include <cstdint>

#include "interaction.hpp"

namespace nbody {

inline constexpr int kMortonBitsPerAxis = 21;  // deepest tree level; cells at depth 21 are never split
inline constexpr std::uint32_t kMortonCells = 1u << kMortonBitsPerAxis;  // cells per axis at depth 21

// The root of the tree: the axis-aligned cube [lo, lo + side]^3 holding every body.
template <typename T>
struct RootCube {
    T lo_x, lo_y, lo_z;
    T side;
};

// The bounding cube of a bounding box (min, max): lo = min, side = the largest extent enlarged by 2^-20
// of itself (plus a floor for a box of zero size) so that the maximum maps to a cell index below 2^21.
// Computed in T on both sides: the GPU's float cube is the CPU's float cube bit for bit.
template <typename T>
NBODY_HD RootCube<T> bounding_cube(T min_x, T min_y, T min_z, T max_x, T max_y, T max_z) {
    T ext = max_x - min_x;
    ext = (max_y - min_y) > ext ? (max_y - min_y) : ext;
    ext = (max_z - min_z) > ext ? (max_z - min_z) : ext;
    // One body, or all coincident: any positive side works; 1 keeps the arithmetic ordinary.
    if (!(ext > T(0))) ext = T(1);
    return RootCube<T>{min_x, min_y, min_z, ext + ext * T(1.0 / (1 << 20))};
}

// Spreads the low 21 bits of v so that bit k lands at bit 3k (two zero bits between neighbours).
NBODY_HD std::uint64_t spread_bits_3(std::uint64_t v) {
    v &= 0x1fffffull;
    v = (v | (v << 32)) & 0x1f00000000ffffull;
    v = (v | (v << 16)) & 0x1f0000ff0000ffull;
    v = (v | (v << 8)) & 0x100f00f00f00f00full;
    v = (v | (v << 4)) & 0x10c30c30c30c30c3ull;
    v = (v | (v << 2)) & 0x1249249249249249ull;
    return v;
}

// The inverse of spread_bits_3: bits 0, 3, 6, ... of v packed into the low 21 bits.
NBODY_HD std::uint32_t compact_bits_3(std::uint64_t v) {
    v &= 0x1249249249249249ull;
    v = (v | (v >> 2)) & 0x10c30c30c30c30c3ull;
    v = (v | (v >> 4)) & 0x100f00f00f00f00full;
    v = (v | (v >> 8)) & 0x1f0000ff0000ffull;
    v = (v | (v >> 16)) & 0x1f00000000ffffull;
    v = (v | (v >> 32)) & 0x1fffffull;
    return static_cast<std::uint32_t>(v);
}

// The cell index along one axis of coordinate x at depth 21: floor((x - lo) * 2^21 / side), clamped to
// [0, 2^21 - 1] so round-off at the top face (or a NaN, which maps to 0) cannot leave the cube.
template <typename T>
NBODY_HD std::uint32_t morton_cell_index(T x, T lo, T cells_per_length) {
    const T f = (x - lo) * cells_per_length;
    if (!(f > T(0))) return 0;
    if (f >= T(kMortonCells - 1)) return kMortonCells - 1;
    return static_cast<std::uint32_t>(f);
}

// The 63-bit key of cell indices (ix, iy, iz) at depth 21.
NBODY_HD std::uint64_t morton_key(std::uint32_t ix, std::uint32_t iy, std::uint32_t iz) {
    return (spread_bits_3(ix) << 2) | (spread_bits_3(iy) << 1) | spread_bits_3(iz);
}

// The key of a position inside the root cube. cells_per_length = 2^21 / side, computed once per build
// as T(kMortonCells) / cube.side (both sides of the comparison use exactly that expression).
template <typename T>
NBODY_HD std::uint64_t morton_key(T x, T y, T z, const RootCube<T>& cube, T cells_per_length) {
    return morton_key(morton_cell_index(x, cube.lo_x, cells_per_length),
                      morton_cell_index(y, cube.lo_y, cells_per_length),
                      morton_cell_index(z, cube.lo_z, cells_per_length));
}

// The octant (0..7) of a key within its cell at depth `level` (0 = root, < 21).
NBODY_HD unsigned morton_octant(std::uint64_t key, int level) {
    return static_cast<unsigned>(key >> (3 * (kMortonBitsPerAxis - 1 - level))) & 7u;
}

// The geometric centre and side of the cell at depth `level` that contains `key` (any key of a body in
// it): the cube the opening rule measures the centre-of-mass offset s against.
template <typename T>
NBODY_HD void morton_cell_geometry(std::uint64_t key, int level, const RootCube<T>& cube, T& cx, T& cy, T& cz,
                                   T& side) {
    const int shift = kMortonBitsPerAxis - level;  // low bits of each axis index below this cell
    const std::uint32_t ix = (compact_bits_3(key >> 2) >> shift), iy = (compact_bits_3(key >> 1) >> shift),
                        iz = (compact_bits_3(key) >> shift);
    side = cube.side / T(std::uint32_t(1) << level);
    cx = cube.lo_x + (T(ix) + T(0.5)) * side;
    cy = cube.lo_y + (T(iy) + T(0.5)) * side;
    cz = cube.lo_z + (T(iz) + T(0.5)) * side;
}

}  // namespace nbody
