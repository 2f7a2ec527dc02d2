#pragma once
// States built to push the Barnes-Hut trees (sim/gravity/octree.hpp, cuda/device_tree.hpp) to their limits:
// trees 21 levels deep, the walk's stack near its bound, the GPU tree's node storage full. Shared by the
// CPU and GPU tree tests, so both trees are checked on the same bodies.
#include <cstddef>
#include <random>
#include <string>
#include <vector>

#include "sim/presets.hpp"
#include "sim/state.hpp"

namespace nbody::test {

struct DeepState {
    std::string name;
    HostState bodies;
    std::vector<std::size_t> special;  // the bodies the state is about (a cluster's, a binary's)
    int min_depth = 0;  // the GPU tree is at least this deep at leaf size 16 (the CPU tree, which goes on
                        // splitting cells of equal keys down to depth 21, at least as deep)
};

// A Plummer sphere of n bodies (n >= 1024) in which every 16th body sits within 1e-7 of one point: n / 16
// bodies on one or a few keys (the sphere's cube is ~40 wide, its depth-21 cells ~2e-5), an over-full
// leaf at the end of a chain of cells (depth 12 on the GPU tree; 21 on the CPU tree).
inline DeepState cluster_in_plummer(std::size_t n) {
    DeepState s{"cluster", make_preset("plummer", n, 42), {}, 12};
    std::mt19937_64 g(7);
    std::uniform_real_distribution<double> u(-1e-7, 1e-7);
    for (std::size_t i = 0; i < n; i += 16) {
        s.bodies.pos_mass[i].x = 0.1 + u(g);
        s.bodies.pos_mass[i].y = 0.05 + u(g);
        s.bodies.pos_mass[i].z = -0.02 + u(g);
        if (i % 1024 == 0) s.special.push_back(i);
    }
    return s;
}

// A Plummer sphere of n bodies (total mass 1) whose bodies 0 and 1 are a tight binary inside its core
// (0.27 from the centre; the scale radius is 0.59): mass 0.05 each, 1e-6 apart.
inline DeepState binary_in_plummer(std::size_t n) {
    DeepState s{"binary", make_preset("plummer", n, 42), {0, 1}, 8};
    s.bodies.pos_mass[0] = {0.2 + 5e-7, -0.15, 0.1, 0.05};
    s.bodies.pos_mass[1] = {0.2 - 5e-7, -0.15, 0.1, 0.05};
    return s;
}

// A Plummer sphere of n bodies with every second body 10^4 times closer to the centre: a cold collapse's
// core at its densest inside the rest.
inline DeepState collapsed_core(std::size_t n) {
    DeepState s{"collapse", make_preset("plummer", n, 42), {0, 2, 4}, 21};
    for (std::size_t i = 0; i < n; i += 2) {
        auto& p = s.bodies.pos_mass[i];
        p.x *= 1e-4, p.y *= 1e-4, p.z *= 1e-4;
    }
    return s;
}

inline std::vector<DeepState> deep_states(std::size_t n) {
    return {cluster_in_plummer(n), binary_in_plummer(n), collapsed_core(n)};
}

// n / 17 clumps of 17 bodies (mass 1 / n each), each clump within 1e-5 of a point uniform in [-1, 1]^3:
// every clump hangs at the end of a chain of one-child cells, about one cell per body in all, which fills
// the GPU tree's node storage (sized for ordinary trees: 0.7 N slots at leaf size 16).
inline HostState tight_clumps(std::size_t n) {
    std::mt19937_64 g(3);
    std::uniform_real_distribution<double> u(-1, 1);
    HostState s;
    s.resize(n / 17 * 17);
    for (std::size_t c = 0; c < n / 17; ++c) {
        const double x = u(g), y = u(g), z = u(g);
        for (std::size_t j = 0; j < 17; ++j)
            s.pos_mass[17 * c + j] = {x + 1e-5 * u(g), y + 1e-5 * u(g), z + 1e-5 * u(g), 1.0 / double(n)};
    }
    return s;
}

namespace detail {
// Bodies for a cell [x, x + side)^3 of depth `level` whose 8 children each have 8 children (one body in
// each grandchild, off its centre by up to a quarter of its side); in the last such cell of a level
// (`last`) children 4..7 are such cells again, the 7th the last one, down to depth max_level.
inline void stack_filling_cell(HostState& s, std::mt19937_64& g, double x, double y, double z, double side,
                               int level, bool last, int max_level) {
    std::uniform_real_distribution<double> jitter(-0.25, 0.25), mass(0.5, 1.5);
    const double h = side / 2, q = side / 4;
    for (int o = 0; o < 8; ++o) {
        const double cx = x + ((o >> 2) & 1) * h, cy = y + ((o >> 1) & 1) * h, cz = z + (o & 1) * h;
        if (last && o >= 4 && level + 3 <= max_level) {
            stack_filling_cell(s, g, cx, cy, cz, h, level + 1, o == 7, max_level);
            continue;
        }
        for (int p = 0; p < 8; ++p) {
            const double gx = cx + ((p >> 2) & 1) * q, gy = cy + ((p >> 1) & 1) * q, gz = cz + (p & 1) * q;
            s.pos_mass.push_back({gx + (0.5 + jitter(g)) * q, gy + (0.5 + jitter(g)) * q,
                                  gz + (0.5 + jitter(g)) * q, mass(g) * 1e-3});
            s.vel.push_back({0, 0, 0, 0});
        }
    }
}
}  // namespace detail

// The deepest stack a walk can be made to build (the bound is proved in cuda/tree_walk.cu): with leaf size
// 1 and theta = 0, every level from the top down leaves 224 entries on the stack while the walk descends
// the last cells, so the stack reaches ~4100 entries at max_level 21. Two bodies at (0, 0, 0) and (1, 1, 1)
// fix the root cube at [0, 1 + 2^-20)^3 (tree-spec.md's enlargement), whose cells the others are placed in.
inline HostState stack_filling(int max_level = 21) {
    HostState s;
    s.pos_mass = {{0, 0, 0, 1e-3}, {1, 1, 1, 1e-3}};
    s.vel.assign(2, {0, 0, 0, 0});
    std::mt19937_64 g(5);
    detail::stack_filling_cell(s, g, 0, 0, 0, 1.0 + 1.0 / double(1 << 20), 0, true, max_level);
    return s;
}

}  // namespace nbody::test
