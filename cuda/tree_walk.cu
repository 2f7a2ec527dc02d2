// The GPU tree walk: one warp walks once for a group of 32 consecutive targets in key order (their
// bounding box is what the opening rule tests against), gathering accepted cells (with their quadrupole,
// or far ones as monopoles alone) and opened leaves' bodies in shared-memory ring lists and evaluating them
// 32 at a time with sim/gravity/multipole.hpp (which builds on sim/gravity/interaction.hpp). Warps are
// persistent: each takes the next group from a counter.
//
// Traversal: a depth-first stack of node indices, its bottom kWalkSharedStack entries in shared memory and
// the rest in a global slice per resident warp. Each iteration pops the top min(sp, 32) nodes, one per
// lane, and pushes the children of the opened inner cells (at most 8 each) in lane order.
//
// The stack never holds more than kDeviceTreeStackBound = 21 * 8 * 32 = 5376 entries, whatever the
// bodies. (1) The stack is sorted by level, deeper on top: a pop takes the top entries, every child is
// one level deeper than its parent, and the lanes push in the order they popped. (2) Hence an iteration
// that pops a cell of level L - 1 also pops every entry of level L (they all lie above it), so afterwards
// the level-L entries are exactly the children it pushed: at most 8 * 32 = 256. Entries of level L
// appear in no other way. (3) Levels run 1..21 below the root (tree_build.cu splits no cell of level 21),
// so the stack holds at most 21 * 256 entries. The stack has room for that (kWalkSharedStack +
// kWalkGlobalStack = 5632; a static_assert in tree_detail.cuh). A state built to fill the stack needs
// 4144 entries (CudaTree.StackBoundHoldsOnItsWorstCase); Plummer spheres, cubes and collapsed cores of
// 65536 bodies 400-750. (The bound stated here before, 32 + 21 * 224, missed that a level can hold 256.)
//
// Should the stack still be full (only where a test caps it: WalkArgs::stack_limit), the cells that
// iteration opened are summed body by body instead of descended into (a cell's bodies are one run in key
// order): exact, only slower. No child is ever dropped.
#include <cfloat>
#include <cstdint>

#include "cuda_check.hpp"
#include "launch.cuh"
#include "sim/gravity/multipole.hpp"
#include "tree_detail.cuh"

namespace nbody::tree_gpu {
namespace {

constexpr int kWarps = 4;  // warps per block
constexpr int kBlock = 32 * kWarps;
constexpr unsigned kFull = 0xffffffffu;
constexpr int kRing = 64;  // ring lists: at most 31 left over + 32 added per iteration

__device__ __forceinline__ int warp_inclusive_sum(int v, unsigned lane) {
#pragma unroll
    for (int o = 1; o < 32; o *= 2) {
        const int u = __shfl_up_sync(kFull, v, o);
        if (lane >= unsigned(o)) v += u;
    }
    return v;
}

__device__ __forceinline__ float warp_min(float v) {
#pragma unroll
    for (int o = 16; o > 0; o /= 2) v = fminf(v, __shfl_xor_sync(kFull, v, o));
    return v;
}
__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
    for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(kFull, v, o));
    return v;
}

// The bottom of each warp's stack lives in shared memory; deeper entries spill to its global slice.
constexpr int kSharedStack = kWalkSharedStack;

struct WarpShared {
    int stack[kSharedStack];
    int peak;                    // the most entries the stack held beyond shared memory (lane 0 writes)
    int cells[kRing];            // accepted cells, ring
    int monos[kRing];            // accepted far cells (monopoles alone), ring
    int bodies[kRing];           // bodies of opened leaves, ring
    int offset[32];              // exclusive prefix sum of each lane's opened-leaf body count
    int first[32];               // each lane's opened leaf's first body
    float4 a[32], b[32], c[32];  // the 32 sources being evaluated: open / mq / quad, or (com, M) or the
                                 // bodies in a
};

struct Target {
    float x, y, z;
    float ax = 0, ay = 0, az = 0, phi = 0;  // a / G and -phi / G
};

// cnt (<= 32) cells from the ring at head, evaluated by every lane for its target.
template <bool kPotential, int kUnroll>
__device__ __forceinline__ void eval_cells(const TreeView& t, WarpShared& sh, unsigned head, int cnt,
                                           unsigned lane, float eps2, Target& tg) {
    if (int(lane) < cnt) {
        const int c = sh.cells[(head + lane) % kRing];
        sh.a[lane] = __ldg(&t.open[c]), sh.b[lane] = __ldg(&t.mq[c]), sh.c[lane] = __ldg(&t.quad[c]);
    }
    __syncwarp();
#pragma unroll kUnroll
    for (int j = 0; j < cnt; ++j) {
        const float4 o = sh.a[j], m = sh.b[j], q4 = sh.c[j];
        const Quadrupole<float> q{m.y, m.z, m.w, q4.x, q4.y, q4.z};
        const float dx = o.x - tg.x, dy = o.y - tg.y, dz = o.z - tg.z;
        add_cell_interaction(dx, dy, dz, m.x, q, eps2, tg.ax, tg.ay, tg.az);
        if (kPotential) tg.phi += cell_potential_term(dx, dy, dz, m.x, q, eps2);
    }
    __syncwarp();
}

// cnt (<= 32) far cells from the ring at head, each as its monopole alone: the pair interaction with m = M
// (the centre of mass is never at the target: the cell passed the opening rule).
template <bool kPotential>
__device__ __forceinline__ void eval_monos(const TreeView& t, WarpShared& sh, unsigned head, int cnt,
                                           unsigned lane, float eps2, Target& tg) {
    if (int(lane) < cnt) {
        const int c = sh.monos[(head + lane) % kRing];
        const float4 o = __ldg(&t.open[c]);
        sh.a[lane] = make_float4(o.x, o.y, o.z, __ldg(&t.mq[c].x));
    }
    __syncwarp();
#pragma unroll 8
    for (int j = 0; j < cnt; ++j) {
        const float4 b = sh.a[j];
        const float dx = b.x - tg.x, dy = b.y - tg.y, dz = b.z - tg.z;
        add_interaction(dx, dy, dz, b.w, eps2, tg.ax, tg.ay, tg.az);
        if (kPotential) tg.phi += potential_term(dx, dy, dz, b.w, eps2);
    }
    __syncwarp();
}

template <bool kPotential, bool kGuard>
__device__ __forceinline__ void eval_bodies(const TreeView& t, WarpShared& sh, unsigned head, int cnt,
                                            unsigned lane, float eps2, Target& tg) {
    if (int(lane) < cnt) sh.a[lane] = __ldg(&t.bodies[sh.bodies[(head + lane) % kRing]]);
    __syncwarp();
#pragma unroll 8
    for (int j = 0; j < cnt; ++j) {
        const float4 b = sh.a[j];
        const float dx = b.x - tg.x, dy = b.y - tg.y, dz = b.z - tg.z;
        // With eps^2 > 0 the separation never vanishes, and add_body_interaction's r = 0 select is the
        // plain pair interaction: skip the select (three instructions of ~17).
        if (kGuard)
            add_body_interaction(dx, dy, dz, b.w, eps2, tg.ax, tg.ay, tg.az);
        else
            add_interaction(dx, dy, dz, b.w, eps2, tg.ax, tg.ay, tg.az);
        if (kPotential) tg.phi += body_potential_term(dx, dy, dz, b.w, eps2);
    }
    __syncwarp();
}

// Walks the tree once for the targets in the box [lo, hi] (all lanes take part; each lane accumulates for
// its own target) and returns the number of sources evaluated (accepted cells with their quadrupole,
// accepted cells as monopoles, opened leaves' bodies); adds its traversal iterations to *iterations.
__device__ __forceinline__ int* stack_slot(WarpShared& sh, int* stack, int i) {
    return i < kSharedStack ? &sh.stack[i] : stack + (i - kSharedStack);
}

template <bool kPotential, bool kGuard, int kCellUnroll>
__device__ __forceinline__ uint3 walk_box(const TreeView& t, const WalkArgs& w, WarpShared& sh, int* stack,
                                          unsigned lane, float lo_x, float lo_y, float lo_z, float hi_x,
                                          float hi_y, float hi_z, Target& tg, unsigned& iterations) {
    const unsigned lanes_below = (1u << lane) - 1u;
    if (lane == 0) sh.stack[0] = 0;  // the root
    __syncwarp();
    int sp = 1;
    unsigned cell_head = 0, cell_tail = 0, mono_head = 0, mono_tail = 0, body_head = 0, body_tail = 0;
    while (sp > 0) {
        ++iterations;
        const int k = sp < 32 ? sp : 32;
        // Warp-uniform fast paths: plain shared-memory indexing while the stack fits there (generic
        // addressing of every slot cost ~20 instructions per push).
        int node = -1;
        if (int(lane) < k)
            node = sp <= kSharedStack ? sh.stack[sp - k + int(lane)]
                                      : *stack_slot(sh, stack, sp - k + int(lane));
        sp -= k;
        __syncwarp();  // every pop is read before any push overwrites the slots

        bool accepted = false, mono = false;
        int children = 0, child0 = 0, leaf_bodies = 0, body0 = 0;
        if (node >= 0) {
            // All loads issued together: the links are needed whenever the cell is opened, and waiting
            // for the test first would put a second L2 round trip on every iteration's critical path.
            const float4 o = __ldg(&t.open[node]);
            const int4 l = __ldg(&t.link[node]);
            const float mono_radius = __ldg(&t.quad[node].w);
            const float d2 = distance2_to_box(o.x, o.y, o.z, lo_x, lo_y, lo_z, hi_x, hi_y, hi_z);
            if (accept_cell(d2, o.w)) {
                mono = accept_cell(d2, mono_radius);
                accepted = !mono;
            } else {
                if (l.w == 0)
                    body0 = l.x, leaf_bodies = l.y;
                else
                    child0 = l.z, children = l.w;
            }
        }

        // Push the opened inner cells' children (octant order within each; the lanes in order).
        const int child_end = warp_inclusive_sum(children, lane);
        const int pushed = __shfl_sync(kFull, child_end, 31);
        if (sp + pushed <= w.shared_limit) {
            int* dst = sh.stack + sp + child_end - children;
            for (int j = 0; j < children; ++j) dst[j] = child0 + j;
            sp += pushed;
        } else if (sp + pushed <= w.stack_limit) {
            for (int j = 0; j < children; ++j)
                *stack_slot(sh, stack, sp + child_end - children + j) = child0 + j;
            sp += pushed;
            if (lane == 0 && sp > sh.peak) sh.peak = sp;
        } else {
            // Full (never with the whole stack; see the top of the file): the opened inner cells are
            // summed body by body below, like leaves. Warp-uniform, like the pushes above.
            if (children > 0) {
                const int4 l = __ldg(&t.link[node]);
                body0 = l.x, leaf_bodies = l.y;
            }
            if (lane == 0) atomicOr(&w.interactions[5], 1ull);
        }

        // Accepted cells join the cell ring; evaluate whole batches of 32.
        const unsigned acc_mask = __ballot_sync(kFull, accepted);
        if (accepted) sh.cells[(cell_tail + __popc(acc_mask & lanes_below)) % kRing] = node;
        cell_tail += __popc(acc_mask);
        __syncwarp();
        while (cell_tail - cell_head >= 32) {
            eval_cells<kPotential, kCellUnroll>(t, sh, cell_head, 32, lane, w.eps2, tg);
            cell_head += 32;
        }
        const unsigned mono_mask = __ballot_sync(kFull, mono);
        if (mono) sh.monos[(mono_tail + __popc(mono_mask & lanes_below)) % kRing] = node;
        mono_tail += __popc(mono_mask);
        __syncwarp();
        while (mono_tail - mono_head >= 32) {
            eval_monos<kPotential>(t, sh, mono_head, 32, lane, w.eps2, tg);
            mono_head += 32;
        }

        // Opened leaves' bodies join the body ring, 32 at a time: body q of this iteration belongs to
        // the last lane whose exclusive offset is <= q.
        const int body_end = warp_inclusive_sum(leaf_bodies, lane);
        const int body_total = __shfl_sync(kFull, body_end, 31);
        sh.offset[lane] = body_end - leaf_bodies;
        sh.first[lane] = body0;
        __syncwarp();
        for (int base = 0; base < body_total; base += 32) {
            const int q = base + int(lane);
            if (q < body_total) {
                int o = 0;
#pragma unroll
                for (int step = 16; step > 0; step /= 2) {
                    if (sh.offset[o + step] <= q) o += step;
                }
                sh.bodies[(body_tail + lane) % kRing] = sh.first[o] + q - sh.offset[o];
            }
            body_tail += unsigned(body_total - base < 32 ? body_total - base : 32);
            __syncwarp();
            while (body_tail - body_head >= 32) {
                eval_bodies<kPotential, kGuard>(t, sh, body_head, 32, lane, w.eps2, tg);
                body_head += 32;
            }
        }
        __syncwarp();  // offsets and firsts are read before the next iteration writes them
    }
    eval_cells<kPotential, kCellUnroll>(t, sh, cell_head, int(cell_tail - cell_head), lane, w.eps2, tg);
    eval_monos<kPotential>(t, sh, mono_head, int(mono_tail - mono_head), lane, w.eps2, tg);
    eval_bodies<kPotential, kGuard>(t, sh, body_head, int(body_tail - body_head), lane, w.eps2, tg);
    return make_uint3(cell_tail, mono_tail, body_tail);
}

// Each warp takes runs of 32 consecutive targets; a run is cut into groups where w.cut marks a target
// that starts a new cell of the source tree (see WalkArgs::cut), and the warp walks once per group.
// Registers are capped for 8 blocks (32 warps) per SM: measured 6% faster than uncapped (t5).
template <bool kPotential, bool kGuard, int kCellUnroll>
__global__ void __launch_bounds__(kBlock, 8) walk_kernel(TreeView t, WalkArgs w) {
    __shared__ WarpShared s_warp[kWarps];
    const unsigned lane = threadIdx.x & 31u;
    WarpShared& sh = s_warp[threadIdx.x >> 5];
    int* stack = w.stack + (std::size_t(blockIdx.x) * kWarps + (threadIdx.x >> 5)) * w.stack_capacity;
    const std::size_t n = w.n_targets;
    const unsigned runs = unsigned((n + kGroup - 1) / kGroup);
    // An earlier step of the same call failed (non-finite bodies): skip the walk, as the direct kernels do.
    if (w.bad && *w.bad < w.bad_before) return;
    unsigned long long counted = 0, counted_cells = 0, counted_monos = 0, warp_evaluations = 0;
    unsigned iterations = 0;
    if (lane == 0) sh.peak = 0;

    for (;;) {
        unsigned g = 0;
        if (lane == 0) g = atomicAdd(w.next_group, 1u);
        g = __shfl_sync(kFull, g, 0);
        if (g >= runs) break;
        const std::size_t first = std::size_t(g) * kGroup, i = first + lane;
        const bool active = i < n;
        const float4 p = w.targets[active ? i : first];
        const unsigned active_mask = __ballot_sync(kFull, active);
        const unsigned cuts = __ballot_sync(kFull, active && lane > 0 && w.cut && w.cut[i]) | 1u;
        unsigned todo = active_mask;
        while (todo) {
            const unsigned start = unsigned(__ffs(int(todo)) - 1);
            const unsigned later = start < 31 ? cuts & ~((2u << start) - 1u) : 0u;
            const unsigned end = later ? unsigned(__ffs(int(later)) - 1) : 32u;
            const unsigned below_end = end < 32 ? (1u << end) - 1u : kFull;
            const unsigned group = todo & below_end;
            todo &= ~below_end;
            const bool mine = (group >> lane) & 1u;
            const float lo_x = warp_min(mine ? p.x : FLT_MAX), lo_y = warp_min(mine ? p.y : FLT_MAX),
                        lo_z = warp_min(mine ? p.z : FLT_MAX);
            const float hi_x = warp_max(mine ? p.x : -FLT_MAX), hi_y = warp_max(mine ? p.y : -FLT_MAX),
                        hi_z = warp_max(mine ? p.z : -FLT_MAX);
            Target tg{p.x, p.y, p.z};
            const uint3 evaluated = walk_box<kPotential, kGuard, kCellUnroll>(
                t, w, sh, stack, lane, lo_x, lo_y, lo_z, hi_x, hi_y, hi_z, tg, iterations);
            const unsigned targets = unsigned(__popc(group));
            const unsigned sources = evaluated.x + evaluated.y + evaluated.z;
            counted += (unsigned long long)(sources)*targets;
            counted_cells += (unsigned long long)(evaluated.x + evaluated.y) * targets;
            counted_monos += (unsigned long long)(evaluated.y) * targets;
            warp_evaluations += sources;
            if (mine) {
                const std::uint32_t o = w.perm[i];
                w.acc[o] = make_float4(w.G * tg.ax, w.G * tg.ay, w.G * tg.az, 0.0f);
                if (kPotential) w.potential[o] = -w.G * tg.phi;
            }
        }
    }
    if (lane == 0 && counted > 0) {
        atomicAdd(&w.interactions[0], counted);
        atomicAdd(&w.interactions[1], counted_cells);
        atomicAdd(&w.interactions[2], warp_evaluations);
        atomicAdd(&w.interactions[3], (unsigned long long)(iterations));
        atomicAdd(&w.interactions[4], counted_monos);
    }
    if (lane == 0 && sh.peak > 0) atomicMax(&w.interactions[6], (unsigned long long)(sh.peak));
}

using Kernel = void (*)(TreeView, WalkArgs);

// The walk kernel for a launch: with or without the potential, with or without the r = 0 guard (eps = 0),
// and (experiments, docs/CUDA_NOTES.md) variant 1 = the cell loop unrolled 8 times instead of 4.
Kernel pick_kernel(bool potential, bool guard, int variant) {
    if (variant == 1) {
        if (potential)
            return guard ? Kernel(walk_kernel<true, true, 8>) : Kernel(walk_kernel<true, false, 8>);
        return guard ? Kernel(walk_kernel<false, true, 8>) : Kernel(walk_kernel<false, false, 8>);
    }
    if (potential) return guard ? Kernel(walk_kernel<true, true, 4>) : Kernel(walk_kernel<true, false, 4>);
    return guard ? Kernel(walk_kernel<false, true, 4>) : Kernel(walk_kernel<false, false, 4>);
}

}  // namespace

int walk_resident_warps() {
    int most = 0;
    for (int variant = 0; variant < 2; ++variant) {
        for (int k = 0; k < 4; ++k) {
            int per_sm = 0;
            CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &per_sm, pick_kernel(k & 1, k & 2, variant), kBlock, 0));
            most = per_sm > most ? per_sm : most;
        }
    }
    return most * current_device_sms() * kWarps;
}

void launch_walk(const TreeView& t, const WalkArgs& w, int warps, cudaStream_t s) {
    if (w.n_targets == 0) return;
    CUDA_CHECK(cudaMemsetAsync(w.next_group, 0, sizeof(unsigned), s));
    // No more warps than groups, and never more than the stacks were sized for.
    const std::size_t groups = (w.n_targets + kGroup - 1) / kGroup;
    const int want = int(groups < std::size_t(warps) ? groups : std::size_t(warps));
    const int blocks = (want + kWarps - 1) / kWarps;
    const int cap_blocks = warps / kWarps;
    const unsigned grid = unsigned(blocks < cap_blocks ? blocks : cap_blocks);
    // eps^2 below float's normal range flushes to 0 (-ftz): guard the r = 0 self term then.
    const bool guard = !(w.eps2 >= 1e-30f);
    launch_kernel(pick_kernel(w.potential != nullptr, guard, w.variant), grid, kBlock, 0, s, t, w);
}

}  // namespace nbody::tree_gpu
