// The GPU tree's build passes: bounding cube, Morton keys, CUB radix sort, gather, and the octree itself,
// built level by level. The cube and the keys come from sim/gravity/morton.hpp, the same functions the CPU
// tree uses, so both put every body in the same cell.
#include <cfloat>
#include <cub/device/device_radix_sort.cuh>

#include "cuda_check.hpp"
#include "launch.cuh"
#include "tree_detail.cuh"

namespace nbody::tree_gpu {
namespace {

constexpr unsigned kBlock = 256;

// Per-block min and max of the points, written as partials[2 b] (min) and partials[2 b + 1] (max).
// A fixed grid and a fixed reduction order: the same bodies give the same cube bit for bit.
__global__ void bounds_partial_kernel(const float4* __restrict__ pos, std::size_t n,
                                      float4* __restrict__ partials) {
    __shared__ float3 s_lo[kBlock], s_hi[kBlock];
    float3 lo = make_float3(FLT_MAX, FLT_MAX, FLT_MAX), hi = make_float3(-FLT_MAX, -FLT_MAX, -FLT_MAX);
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x) {
        const float4 p = pos[i];
        // A body with a non-finite coordinate stays out of the box, as on the CPU (sim/gravity/octree.cpp):
        // an infinity would put every key at 0, one leaf of all N bodies and an O(N^2) walk.
        if (!(isfinite(p.x) && isfinite(p.y) && isfinite(p.z))) continue;
        lo = make_float3(fminf(lo.x, p.x), fminf(lo.y, p.y), fminf(lo.z, p.z));
        hi = make_float3(fmaxf(hi.x, p.x), fmaxf(hi.y, p.y), fmaxf(hi.z, p.z));
    }
    s_lo[threadIdx.x] = lo, s_hi[threadIdx.x] = hi;
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            const float3 a = s_lo[threadIdx.x + half], b = s_hi[threadIdx.x + half];
            float3& l = s_lo[threadIdx.x];
            float3& h = s_hi[threadIdx.x];
            l = make_float3(fminf(l.x, a.x), fminf(l.y, a.y), fminf(l.z, a.z));
            h = make_float3(fmaxf(h.x, b.x), fmaxf(h.y, b.y), fmaxf(h.z, b.z));
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partials[2 * blockIdx.x] = make_float4(s_lo[0].x, s_lo[0].y, s_lo[0].z, 0);
        partials[2 * blockIdx.x + 1] = make_float4(s_hi[0].x, s_hi[0].y, s_hi[0].z, 0);
    }
}

// One thread folds the partials in order and writes the cube (kBoundsBlocks partials: cheap).
__global__ void bounds_final_kernel(const float4* __restrict__ partials, int blocks, RootCube<float>* cube) {
    float lx = FLT_MAX, ly = FLT_MAX, lz = FLT_MAX, hx = -FLT_MAX, hy = -FLT_MAX, hz = -FLT_MAX;
    for (int b = 0; b < blocks; ++b) {
        const float4 l = partials[2 * b], h = partials[2 * b + 1];
        lx = fminf(lx, l.x), ly = fminf(ly, l.y), lz = fminf(lz, l.z);
        hx = fmaxf(hx, h.x), hy = fmaxf(hy, h.y), hz = fmaxf(hz, h.z);
    }
    if (!(lx <= hx)) lx = ly = lz = hx = hy = hz = 0.0f;  // no finite body at all
    *cube = bounding_cube(lx, ly, lz, hx, hy, hz);
}

__global__ void keys_kernel(const float4* __restrict__ pos, std::size_t n,
                            const RootCube<float>* __restrict__ cube, std::uint64_t* __restrict__ keys,
                            std::uint32_t* __restrict__ idx) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    const RootCube<float> c = *cube;
    const float cells_per_length = float(kMortonCells) / c.side;
    const float4 p = pos[i];
    keys[i] = morton_key(p.x, p.y, p.z, c, cells_per_length);
    idx[i] = std::uint32_t(i);
}

__global__ void gather_kernel(const float4* __restrict__ in, const std::uint32_t* __restrict__ perm,
                              std::size_t n, float4* __restrict__ out) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i < n) out[i] = in[perm[i]];
}

__global__ void build_init_kernel(TreeView t, int n) {
    t.link[0] = make_int4(0, n, 0, 0);
    t.level[0] = 0;
    t.level_start[0] = 0;
    for (int l = 1; l <= kLevels; ++l) t.level_start[l] = 1;
    *t.node_count = 1;
    *t.node_overflow = 0;
    *t.blocks_done = 0;
}

// Splits the nodes of level L. Eight threads per node: thread d finds, by binary search on the node's
// sorted keys, where octant d starts (the octant digit is non-decreasing inside a cell). The octet's
// first thread allocates the non-empty children as one contiguous block (atomicAdd: blocks may land in
// any order, but children stay in octant order inside a block, which is all the walk depends on).
// A cell splits while it holds more than leaf_size bodies whose keys are not all equal (equal keys stay
// in one leaf; at depth 21 every cell's keys are equal, so no cell deeper than 21 is made).
__global__ void split_kernel(TreeView t, int L, int leaf_size, int group_cut) {
    const int begin = t.level_start[L], end = t.level_start[L + 1];
    const unsigned lane = threadIdx.x & 31u, d = lane & 7u;
    const unsigned octet_mask = 0xffu << (lane & ~7u);
    const int octets = int((gridDim.x * blockDim.x) / 8);
    for (int node = begin + int((blockIdx.x * blockDim.x + threadIdx.x) / 8); node < end; node += octets) {
        const int4 l = t.link[node];
        if (l.y <= leaf_size || t.keys[l.x] == t.keys[l.x + l.y - 1]) continue;  // a leaf (octet-uniform)
        int lo = l.x, hi = l.x + l.y;
        if (d > 0) {
            while (lo < hi) {
                const int mid = (lo + hi) >> 1;
                if (morton_octant(t.keys[mid], L) < d)
                    lo = mid + 1;
                else
                    hi = mid;
            }
        }
        const int start = lo;
        int stop = __shfl_down_sync(octet_mask, start, 1, 8);
        if (d == 7) stop = l.x + l.y;
        const int count = stop - start;
        const unsigned present = (__ballot_sync(octet_mask, count > 0) >> (lane & ~7u)) & 0xffu;
        const int children = __popc(present);
        int base = 0;
        if (d == 0) base = atomicAdd(t.node_count, children);
        base = __shfl_sync(octet_mask, base, 0, 8);
        if (base + children <= t.capacity) {
            if (count > 0) {
                const int c = base + __popc(present & ((1u << d) - 1u));
                t.link[c] = make_int4(start, count, 0, 0);
                t.level[c] = static_cast<unsigned char>(L + 1);
                if (group_cut > 0 && l.y > group_cut) t.cut[start] = 1;
            }
            if (d == 0) t.link[node] = make_int4(l.x, l.y, base, children);
        } else {
            // No room: the cell stays an (over-full) leaf, which is slower but exact. The slots this block
            // took below capacity become empty leaves that no parent points to.
            if (int(d) < children && base + int(d) < t.capacity) {
                t.link[base + d] = make_int4(0, 0, 0, 0);
                t.level[base + d] = static_cast<unsigned char>(L + 1);
            }
            if (d == 0) *t.node_overflow = 1;
        }
    }
    // The last block to finish records where level L + 1 ends (one launch per level instead of two).
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        if (atomicAdd(t.blocks_done, 1u) == gridDim.x - 1) {
            const int count = atomicAdd(t.node_count, 0);
            t.level_start[L + 2] = count < t.capacity ? count : t.capacity;
            *t.blocks_done = 0;
        }
    }
}

// The cell of a key for grouping targets: descend from the root while the cell holds more than group_cut
// bodies and has a child in the key's octant. A key in an empty octant gets a negative id of its own.
__device__ long long group_cell(const TreeView& t, std::uint64_t key, int group_cut) {
    int node = 0;
    for (int L = 0;; ++L) {
        const int4 l = t.link[node];
        if (l.y <= group_cut || l.w == 0) return node;
        const unsigned oct = morton_octant(key, L);
        int next = -1;
        for (int c = l.z; c < l.z + l.w; ++c) {
            if (morton_octant(t.keys[t.link[c].x], L) == oct) next = c;
        }
        if (next < 0) return -(8ll * node + oct + 1);
        node = next;
    }
}

__global__ void target_cuts_kernel(TreeView t, const std::uint64_t* __restrict__ keys, std::size_t m,
                                   int group_cut, unsigned char* __restrict__ cut) {
    const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
    if (i >= m) return;
    cut[i] = i == 0 || group_cell(t, keys[i], group_cut) != group_cell(t, keys[i - 1], group_cut);
}

}  // namespace

void launch_target_cuts(const TreeView& t, const std::uint64_t* keys, std::size_t m, int group_cut,
                        unsigned char* cut, cudaStream_t s) {
    launch_kernel(target_cuts_kernel, blocks_for(m, kBlock), kBlock, 0, s, t, keys, m, group_cut, cut);
}

void launch_bounds(const float4* pos, std::size_t n, float4* partials, RootCube<float>* cube,
                   cudaStream_t s) {
    launch_kernel(bounds_partial_kernel, kBoundsBlocks, kBlock, 0, s, pos, n, partials);
    launch_kernel(bounds_final_kernel, 1, 1, 0, s, partials, kBoundsBlocks, cube);
}

void launch_keys(const float4* pos, std::size_t n, const RootCube<float>* cube, std::uint64_t* keys,
                 std::uint32_t* idx, cudaStream_t s) {
    launch_kernel(keys_kernel, blocks_for(n, kBlock), kBlock, 0, s, pos, n, cube, keys, idx);
}

std::size_t sort_scratch_bytes(std::size_t n) {
    std::size_t bytes = 0;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
        nullptr, bytes, static_cast<const std::uint64_t*>(nullptr), static_cast<std::uint64_t*>(nullptr),
        static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr), n, 0,
        3 * kMortonBitsPerAxis));
    return bytes;
}

void sort_pairs(void* scratch, std::size_t scratch_bytes, const std::uint64_t* keys_in,
                std::uint64_t* keys_out, const std::uint32_t* idx_in, std::uint32_t* idx_out, std::size_t n,
                cudaStream_t s) {
    // Only the 63 key bits: one radix pass fewer than sorting all 64.
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(scratch, scratch_bytes, keys_in, keys_out, idx_in, idx_out, n,
                                               0, 3 * kMortonBitsPerAxis, s));
}

void launch_gather(const float4* in, const std::uint32_t* perm, std::size_t n, float4* out, cudaStream_t s) {
    launch_kernel(gather_kernel, blocks_for(n, kBlock), kBlock, 0, s, in, perm, n, out);
}

void launch_build(const TreeView& t, std::size_t n, int leaf_size, int group_cut, cudaStream_t s) {
    launch_kernel(build_init_kernel, 1, 1, 0, s, t, int(n));
    if (group_cut > 0) CUDA_CHECK(cudaMemsetAsync(t.cut, 0, n, s));
    // Enough octets for the widest level of a balanced tree of this capacity, capped: deeper levels
    // loop. Levels past the tree's depth are empty launches (no host round trip to learn the depth).
    const int sms = current_device_sms();
    const unsigned want = blocks_for(std::size_t(t.capacity) * 8, kBlock);
    const unsigned grid = want < unsigned(sms) * 8 ? want : unsigned(sms) * 8;
    for (int L = 0; L < kMortonBitsPerAxis; ++L) {
        launch_kernel(split_kernel, grid, kBlock, 0, s, t, L, leaf_size, group_cut);
    }
}

}  // namespace nbody::tree_gpu
