// DeviceTree: owns the GPU tree's buffers (sized from N up front) and runs one evaluation as a sequence of
// launches on the caller's stream: cube, keys, sort, gather, build, moments, walk.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "device_tree.hpp"
#include "sim/error.hpp"
#include "tree_detail.cuh"

namespace nbody {

using namespace tree_gpu;

namespace {

// Node slots: a cell that splits holds more than leaf_size bodies and makes at most 8 children, so
// ~8 n / (leaf_size + 1) per level of splits near the leaves (a uniform cube at N = 65536 needs 0.27 N
// with leaves of 16); half as much again for one-child chains. A build that runs out stays exact
// (the cell is left an over-full leaf) and says so in stats().
std::size_t node_capacity(std::size_t n, int leaf_size) {
    return 1024 + 12 * n / std::size_t(leaf_size + 1);
}

// A key/index/body set in key order: the sources, or the separate targets.
struct SortedSet {
    DeviceBuffer<std::uint64_t> keys_in, keys;
    DeviceBuffer<std::uint32_t> idx_in, perm;
    DeviceBuffer<float4> sorted;
    DeviceBuffer<unsigned char> cut;  // where walk groups must start (DeviceTreeSettings::group_cut)
    void resize(std::size_t n) {
        keys_in.resize(n), keys.resize(n), idx_in.resize(n), perm.resize(n), sorted.resize(n), cut.resize(n);
    }
    std::size_t bytes() const {
        return keys_in.bytes() + keys.bytes() + idx_in.bytes() + perm.bytes() + sorted.bytes() + cut.bytes();
    }
};

}  // namespace

struct DeviceTree::Impl {
    DeviceTreeSettings settings;
    std::size_t max_sources = 0, max_targets = 0;
    SortedSet sources, targets;
    DeviceBuffer<unsigned char> sort_scratch;
    int capacity = 0;
    DeviceBuffer<int4> link;
    DeviceBuffer<unsigned char> level;
    DeviceBuffer<float4> open, mq, quad;
    DeviceBuffer<float4> bounds_partials;
    DeviceBuffer<RootCube<float>> cube;
    // level_start (kLevels + 1), node_count, node_overflow, next_group, blocks_done
    DeviceBuffer<int> counters;
    DeviceBuffer<unsigned long long> interactions;  // WalkArgs::interactions
    DeviceBuffer<int> stack;
    int walk_warps = 0;
    // time_phases: events at the pass boundaries (start, sorted, built, moments, targets, walked).
    cudaEvent_t events[6] = {};

    ~Impl() {
        for (cudaEvent_t& e : events) {
            if (e) CUDA_CHECK_LOG(cudaEventDestroy(e));
        }
    }
    void mark(int k, cudaStream_t s) {
        if (settings.time_phases) CUDA_CHECK(cudaEventRecord(events[k], s));
    }

    int* level_start() { return counters.data(); }
    int* node_count() { return counters.data() + kLevels + 1; }
    int* node_overflow() { return counters.data() + kLevels + 2; }
    unsigned* next_group() { return reinterpret_cast<unsigned*>(counters.data() + kLevels + 3); }
    unsigned* blocks_done() { return reinterpret_cast<unsigned*>(counters.data() + kLevels + 4); }

    void reserve(std::size_t n_sources, std::size_t n_targets) {
        if (n_sources > std::size_t(INT32_MAX) / 8 || n_targets > std::size_t(UINT32_MAX)) {
            throw Error("GPU tree: " + std::to_string(std::max(n_sources, n_targets)) +
                        " bodies is beyond the tree's 32-bit indices");
        }
        // The int node counter passes capacity once storage runs out: by the children (<= 8) of every
        // cell of more than leaf_size bodies that tries to split, at that level and the next (the one
        // after is empty). A wrapped counter would hand out live nodes' slots again, so keep it in range
        // (leaf size 1 from N ~ 1.5e8, leaf size 2 from ~2.3e8; larger leaves never, below the limit above).
        const std::size_t splitting = n_sources / std::size_t(settings.leaf_size + 1);
        if (node_capacity(n_sources, settings.leaf_size) + 2 * 8 * splitting > std::size_t(INT32_MAX)) {
            throw Error("GPU tree: " + std::to_string(n_sources) + " bodies at leaf size " +
                        std::to_string(settings.leaf_size) + " is beyond the tree's 32-bit node counter");
        }
        const bool first = counters.size() == 0;
        if (first) {
            counters.resize(kLevels + 5);
            interactions.resize(kWalkCounters);
            CUDA_CHECK(cudaMemset(counters.data(), 0, counters.bytes()));
            CUDA_CHECK(cudaMemset(interactions.data(), 0, interactions.bytes()));
            bounds_partials.resize(2 * kBoundsBlocks);
            cube.resize(1);
            walk_warps = walk_resident_warps();
            if (settings.time_phases) {
                for (cudaEvent_t& e : events) CUDA_CHECK(cudaEventCreate(&e));
            }
            stack.resize(std::size_t(walk_warps) * kWalkGlobalStack);
        }
        if (n_sources > max_sources) {
            sources.resize(n_sources);
            capacity = int(node_capacity(n_sources, settings.leaf_size));
            link.resize(capacity), level.resize(capacity);
            open.resize(capacity), mq.resize(capacity), quad.resize(capacity);
            max_sources = n_sources;
        }
        if (n_targets > max_targets) {
            targets.resize(n_targets);
            max_targets = n_targets;
        }
        const std::size_t scratch =
            std::max(sort_scratch_bytes(max_sources), sort_scratch_bytes(max_targets));
        if (scratch > sort_scratch.size()) sort_scratch.resize(scratch);
    }

    TreeView view() {
        TreeView t;
        t.keys = sources.keys.data();
        t.bodies = sources.sorted.data();
        t.link = link.data();
        t.level = level.data();
        t.open = open.data(), t.mq = mq.data(), t.quad = quad.data();
        t.cut = sources.cut.data();
        t.level_start = level_start();
        t.node_count = node_count();
        t.node_overflow = node_overflow();
        t.blocks_done = blocks_done();
        t.cube = cube.data();
        t.capacity = capacity;
        return t;
    }

    // Keys of pts in the current cube, sorted, and the points gathered in key order.
    void sort_set(SortedSet& set, const float4* pts, std::size_t n, cudaStream_t s) {
        launch_keys(pts, n, cube.data(), set.keys_in.data(), set.idx_in.data(), s);
        sort_pairs(sort_scratch.data(), sort_scratch.size(), set.keys_in.data(), set.keys.data(),
                   set.idx_in.data(), set.perm.data(), n, s);
        launch_gather(pts, set.perm.data(), n, set.sorted.data(), s);
    }

    void build(const float4* pos, std::size_t n, float theta, cudaStream_t s) {
        mark(0, s);
        launch_bounds(pos, n, bounds_partials.data(), cube.data(), s);
        sort_set(sources, pos, n, s);
        mark(1, s);
        const TreeView t = view();
        launch_build(t, n, settings.leaf_size, settings.group_cut, s);
        mark(2, s);
        launch_moments(t, theta, settings.monopole_power, s);
        mark(3, s);
    }

    void walk(const SortedSet& set, std::size_t n, float4* acc, float* potential, float G, float eps2,
              cudaStream_t s, const unsigned long long* bad = nullptr, unsigned long long bad_before = 0) {
        WalkArgs w;
        w.targets = set.sorted.data();
        w.perm = set.perm.data();
        w.cut = settings.group_cut > 0 ? set.cut.data() : nullptr;
        w.n_targets = n;
        w.acc = acc;
        w.potential = potential;
        w.G = G, w.eps2 = eps2;
        w.stack = stack.data();
        w.stack_capacity = kWalkGlobalStack;
        const int full = kWalkSharedStack + kWalkGlobalStack;
        w.stack_limit = settings.walk_stack_limit > 0 ? std::min(settings.walk_stack_limit, full) : full;
        w.shared_limit = std::min(kWalkSharedStack, w.stack_limit);
        w.next_group = next_group();
        w.interactions = interactions.data();
        w.variant = settings.walk_variant;
        w.bad = bad;
        w.bad_before = bad_before;
        mark(4, s);
        launch_walk(view(), w, walk_warps, s);
        mark(5, s);
    }
};

namespace {

void check_args(float theta, float eps2) {
    if (!(theta >= 0.0f && theta <= 1.0f)) {
        throw Error("GPU tree: theta " + std::to_string(theta) + " is outside [0, 1]");
    }
    if (!(eps2 >= 0.0f) || !std::isfinite(eps2)) throw Error("GPU tree: eps^2 must be finite and >= 0");
}

}  // namespace

DeviceTree::DeviceTree(std::size_t max_sources, std::size_t max_targets, DeviceTreeSettings s)
    : impl_(std::make_unique<Impl>()) {
    if (s.leaf_size < 1) throw Error("GPU tree: leaf size must be >= 1");
    if (s.walk_stack_limit < 0) throw Error("GPU tree: the walk's stack limit must be >= 0");
    impl_->settings = s;
    impl_->reserve(max_sources, max_targets);
}

DeviceTree::~DeviceTree() = default;

void DeviceTree::accelerations(const Vec4<float>* pos_mass, std::size_t n, Vec4<float>* acc, float* potential,
                               float G, float eps2, float theta, void* stream, const unsigned long long* bad,
                               unsigned long long bad_before) {
    check_args(theta, eps2);
    if (n == 0) return;
    impl_->reserve(n, 0);
    const auto s = static_cast<cudaStream_t>(stream);
    impl_->build(reinterpret_cast<const float4*>(pos_mass), n, theta, s);
    impl_->walk(impl_->sources, n, reinterpret_cast<float4*>(acc), potential, G, eps2, s, bad, bad_before);
}

void DeviceTree::at_points(const Vec4<float>* pos_mass, std::size_t n, const Vec4<float>* points,
                           std::size_t m, Vec4<float>* acc, float* potential, float G, float eps2,
                           float theta, void* stream) {
    check_args(theta, eps2);
    if (m == 0) return;
    const auto s = static_cast<cudaStream_t>(stream);
    if (n == 0) {  // no sources: zero field
        CUDA_CHECK(cudaMemsetAsync(acc, 0, m * sizeof(Vec4<float>), s));
        if (potential) CUDA_CHECK(cudaMemsetAsync(potential, 0, m * sizeof(float), s));
        return;
    }
    impl_->reserve(n, m);
    impl_->build(reinterpret_cast<const float4*>(pos_mass), n, theta, s);
    impl_->sort_set(impl_->targets, reinterpret_cast<const float4*>(points), m, s);
    if (impl_->settings.group_cut > 0) {
        launch_target_cuts(impl_->view(), impl_->targets.keys.data(), m, impl_->settings.group_cut,
                           impl_->targets.cut.data(), s);
    }
    impl_->walk(impl_->targets, m, reinterpret_cast<float4*>(acc), potential, G, eps2, s);
}

void DeviceTree::reset_interactions(void* stream) {
    CUDA_CHECK(cudaMemsetAsync(impl_->interactions.data(), 0, impl_->interactions.bytes(),
                               static_cast<cudaStream_t>(stream)));
}

DeviceTreeStats DeviceTree::stats(void* stream) const {
    const auto s = static_cast<cudaStream_t>(stream);
    CUDA_CHECK(cudaStreamSynchronize(s));
    std::vector<int> c(impl_->counters.size());
    CUDA_CHECK(cudaMemcpy(c.data(), impl_->counters.data(), impl_->counters.bytes(), cudaMemcpyDeviceToHost));
    DeviceTreeStats st;
    const int nodes = c[kLevels];  // level_start[kLevels]: the end of the deepest level
    st.nodes = std::size_t(std::max(nodes, 0));
    for (int l = 0; l < kLevels; ++l) {
        if (c[l + 1] > c[l]) st.depth = l;
    }
    st.node_overflow = c[kLevels + 2] != 0;
    if (nodes > 0) {
        std::vector<int4> links(static_cast<std::size_t>(nodes));
        CUDA_CHECK(cudaMemcpy(links.data(), impl_->link.data(), links.size() * sizeof(int4),
                              cudaMemcpyDeviceToHost));
        for (const int4& l : links) st.leaves += (l.w == 0 && l.y > 0) ? 1 : 0;
    }
    unsigned long long counts[kWalkCounters] = {};
    CUDA_CHECK(cudaMemcpy(counts, impl_->interactions.data(), sizeof counts, cudaMemcpyDeviceToHost));
    st.interactions = counts[0];
    st.cell_interactions = counts[1];
    st.warp_evaluations = counts[2];
    st.walk_iterations = counts[3];
    st.monopole_interactions = counts[4];
    st.stack_overflow = counts[5] != 0;
    st.stack_peak = int(counts[6]);
    return st;
}

DeviceTreePhases DeviceTree::phase_ms(void* stream) const {
    DeviceTreePhases p;
    if (!impl_->settings.time_phases) return p;
    CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)));
    float ms[5] = {};
    for (int k = 0; k < 5; ++k)
        CUDA_CHECK(cudaEventElapsedTime(&ms[k], impl_->events[k], impl_->events[k + 1]));
    p.sort = ms[0], p.build = ms[1], p.moments = ms[2], p.targets = ms[3], p.walk = ms[4];
    return p;
}

std::size_t DeviceTree::device_bytes_for(std::size_t max_sources, std::size_t max_targets,
                                         DeviceTreeSettings s) {
    // Per body: keys and indices (sort in and out), the gathered copy, the cut marks.
    const std::size_t per_body = 2 * sizeof(std::uint64_t) + 2 * sizeof(std::uint32_t) + sizeof(float4) + 1;
    const std::size_t per_node = sizeof(int4) + 1 + 3 * sizeof(float4);
    const std::size_t nodes = node_capacity(max_sources, s.leaf_size);
    const std::size_t sort = std::max(sort_scratch_bytes(max_sources), sort_scratch_bytes(max_targets));
    const std::size_t stacks = std::size_t(walk_resident_warps()) * kWalkGlobalStack * sizeof(int);
    const std::size_t small = 2 * kBoundsBlocks * sizeof(float4) + 4096;  // bounds partials, cube, counters
    return per_body * (max_sources + max_targets) + per_node * nodes + sort + stacks + small;
}

std::size_t DeviceTree::device_bytes() const {
    const Impl& m = *impl_;
    return m.sources.bytes() + m.targets.bytes() + m.sort_scratch.bytes() + m.link.bytes() + m.level.bytes() +
           m.open.bytes() + m.mq.bytes() + m.quad.bytes() + m.bounds_partials.bytes() + m.cube.bytes() +
           m.counters.bytes() + m.interactions.bytes() + m.stack.bytes();
}

}  // namespace nbody
