// Collision detection on the device: a uniform grid of the bodies' swept spheres, the same pairs and
// contact times as sim/collide/find_contacts.cpp. Built with -fmad=false (cuda/CMakeLists.txt): the
// contact times are plain IEEE double operations, as on the host (built with -ffp-contract=off).
#include <cuda_runtime.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>

#include "contact_grid.hpp"
#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "launch.cuh"
#include "sim/collide/contact.hpp"
#include "sim/error.hpp"

namespace nbody {
namespace {

constexpr unsigned kBlock = 256;
// As on the host: 21 bits per axis, so (ix, iy, iz) packs into one key without collisions.
constexpr long long kCellsPerAxis = 1LL << 21;
constexpr unsigned long long kNoCell = ~0ull;  // a non-finite body: sorted last, never searched

// The cells are found through a hash table of 2^bits buckets (at least twice the bodies): the bodies are
// sorted by the bucket of their cell (32-bit keys, only bits + 1 of them sorted), each bucket's range in
// that order is written once, and a neighbouring cell is one lookup. Cells sharing a bucket are told apart
// by each body's full cell key, so every body of the 27 cells is visited once, as with an exact search.
__host__ __device__ inline unsigned bucket_of(unsigned long long key, unsigned mask) {
    key ^= key >> 33;  // splitmix64's finaliser
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    key *= 0xc4ceb9fe1a85ec53ull;
    key ^= key >> 33;
    return unsigned(key) & mask;
}

// A body's swept sphere: centre and extent (NaN: a non-finite body).
struct alignas(32) Sphere {
    double x, y, z, w;
};

struct Box {
    double lo[3], hi[3], extent;
};

struct MergeBoxes {
    __host__ __device__ Box operator()(const Box& a, const Box& b) const {
        Box r;
        for (int k = 0; k < 3; ++k) {
            r.lo[k] = a.lo[k] < b.lo[k] ? a.lo[k] : b.lo[k];
            r.hi[k] = a.hi[k] > b.hi[k] ? a.hi[k] : b.hi[k];
        }
        r.extent = a.extent > b.extent ? a.extent : b.extent;
        return r;
    }
};

Box empty_box() {
    const double inf = INFINITY;
    return {{inf, inf, inf}, {-inf, -inf, -inf}, 0.0};
}

// The host's DeviceContact twin: written by the kernel, copied into std::vector<Contact>.
struct DeviceContact {
    unsigned long long i, j;
    double s;
};
static_assert(sizeof(DeviceContact) == sizeof(Contact));

// A sphere's entry in the bounding box reduction (read through a transform iterator: no array of boxes).
struct SphereBox {
    __host__ __device__ Box operator()(const Sphere& s) const {
        const bool finite = !isnan(s.w);
        const double inf = INFINITY;
        Box b;
        b.lo[0] = finite ? s.x : inf, b.lo[1] = finite ? s.y : inf, b.lo[2] = finite ? s.z : inf;
        b.hi[0] = finite ? s.x : -inf, b.hi[1] = finite ? s.y : -inf, b.hi[2] = finite ? s.z : -inf;
        b.extent = finite ? s.w : 0.0;
        return b;
    }
};

// Swept sphere of each body: centre x - v dt/2, extent r + |v| dt/2; a non-finite body gets extent NaN.
template <typename T>
__global__ void swept_kernel(const Vec4<T>* __restrict__ pos, const Vec4<T>* __restrict__ vel, std::size_t n,
                             double dt, Sphere* __restrict__ sphere) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const Vec4<T> x = pos[i], v = vel[i];
    const double vx = v.x, vy = v.y, vz = v.z;
    const double speed = sqrt(vx * vx + vy * vy + vz * vz);
    const double cx = double(x.x) - 0.5 * dt * vx, cy = double(x.y) - 0.5 * dt * vy,
                 cz = double(x.z) - 0.5 * dt * vz, e = double(v.w) + 0.5 * dt * speed;
    const bool finite = isfinite(cx) && isfinite(cy) && isfinite(cz) && isfinite(e);
    sphere[i] = Sphere{cx, cy, cz, finite ? e : NAN};
}

__device__ unsigned long long cell_key(long long x, long long y, long long z) {
    return (static_cast<unsigned long long>(x) << 42) | (static_cast<unsigned long long>(y) << 21) |
           static_cast<unsigned long long>(z);
}

// The cell size from the bounding box, on the device (no read-back): twice the largest extent, or larger
// so that 2^21 - 2 cells span the box.
__device__ double cell_size(const Box& box) {
    double cell = 2 * box.extent;
    for (int k = 0; k < 3; ++k) {
        const double span = (box.hi[k] - box.lo[k]) / double(kCellsPerAxis - 2);
        cell = cell < span ? span : cell;  // std::max(cell, span)
    }
    return cell > 0 ? cell : 1.0;
}

// Each body's cell key (kNoCell for a non-finite body) and its bucket (the table's size for a non-finite
// body: sorted after every bucket, never looked up).
__global__ void key_kernel(const Sphere* __restrict__ sphere, std::size_t n, const Box* __restrict__ box_in,
                           unsigned mask, unsigned long long* __restrict__ keys,
                           unsigned* __restrict__ bucket, unsigned* __restrict__ index) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const Sphere s = sphere[i];
    index[i] = unsigned(i);
    if (isnan(s.w)) {
        keys[i] = kNoCell;
        bucket[i] = mask + 1;
        return;
    }
    const Box box = *box_in;
    const double cell = cell_size(box);
    const unsigned long long key = cell_key(static_cast<long long>(floor((s.x - box.lo[0]) / cell)),
                                            static_cast<long long>(floor((s.y - box.lo[1]) / cell)),
                                            static_cast<long long>(floor((s.z - box.lo[2]) / cell)));
    keys[i] = key;
    bucket[i] = bucket_of(key, mask);
}

// Each bucket's range [start, end) in the sorted order (the table starts all zero: empty).
__global__ void bucket_range_kernel(const unsigned* __restrict__ sorted_bucket, std::size_t n, unsigned mask,
                                    unsigned* __restrict__ start, unsigned* __restrict__ end) {
    const std::size_t p = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (p >= n) return;
    const unsigned h = sorted_bucket[p];
    if (h > mask) return;  // non-finite bodies
    if (p == 0 || sorted_bucket[p - 1] != h) start[h] = unsigned(p);
    if (p + 1 == n || sorted_bucket[p + 1] != h) end[h] = unsigned(p + 1);
}

// The spheres and cell keys copied into bucket order, so that the pair search reads each neighbouring
// bucket's bodies as one contiguous run (in body order they were scattered reads: the search's main cost).
__global__ void reorder_kernel(const Sphere* __restrict__ sphere, const unsigned long long* __restrict__ keys,
                               const unsigned* __restrict__ sorted_index, std::size_t n,
                               Sphere* __restrict__ sphere_sorted,
                               unsigned long long* __restrict__ keys_sorted) {
    const std::size_t p = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (p >= n) return;
    const unsigned i = sorted_index[p];
    sphere_sorted[p] = sphere[i];
    keys_sorted[p] = keys[i];
}

// One thread per body in bucket order: the bodies of its own cell with a higher index, and every body of the
// 13 neighbouring cells in the "forward" half of the 26 (so each pair of cells is searched from one side
// only), prefiltered by their swept spheres, then the exact swept test (sim/collide/contact.hpp) on the
// pair in (lower, higher) index order, as the host tests it.
template <typename T>
__global__ void pair_kernel(const Vec4<T>* __restrict__ pos, const Vec4<T>* __restrict__ vel,
                            const Sphere* __restrict__ sphere_sorted,
                            const unsigned long long* __restrict__ keys_sorted,
                            const unsigned* __restrict__ sorted_index, std::size_t n, unsigned mask,
                            const unsigned* __restrict__ bucket_start,
                            const unsigned* __restrict__ bucket_end, double dt,
                            DeviceContact* __restrict__ out, unsigned long long capacity,
                            unsigned long long* __restrict__ found) {
    const std::size_t p = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (p >= n) return;
    const unsigned long long key = keys_sorted[p];
    if (key == kNoCell) return;
    const unsigned i = sorted_index[p];
    const Sphere si = sphere_sorted[p];
    const long long c[3] = {static_cast<long long>(key >> 42),
                            static_cast<long long>((key >> 21) & (kCellsPerAxis - 1)),
                            static_cast<long long>(key & (kCellsPerAxis - 1))};
    // Offset o = 0..13: (0,0,0), then the 13 offsets after it in (dx, dy, dz) lexicographic order.
    for (int o = 13; o < 27; ++o) {
        const int dx = o / 9 - 1, dy = (o / 3) % 3 - 1, dz = o % 3 - 1;
        const long long x = c[0] + dx, y = c[1] + dy, z = c[2] + dz;
        if (x < 0 || y < 0 || z < 0 || x >= kCellsPerAxis || y >= kCellsPerAxis || z >= kCellsPerAxis)
            continue;
        const bool own = o == 13;
        const unsigned long long k = cell_key(x, y, z);
        const unsigned h = bucket_of(k, mask);
        const unsigned first = bucket_start[h], last = bucket_end[h];
        for (unsigned q = first; q < last; ++q) {
            if (keys_sorted[q] != k) continue;  // another cell of the same bucket
            const unsigned j = sorted_index[q];
            if (own && j <= i) continue;  // the own cell's pairs once, from the lower index
            const Sphere sj = sphere_sorted[q];
            const double ox = si.x - sj.x, oy = si.y - sj.y, oz = si.z - sj.z, r = si.w + sj.w;
            if (!(ox * ox + oy * oy + oz * oz <= r * r)) continue;
            const unsigned lo = i < j ? i : j, hi = i < j ? j : i;
            const Vec4<T> xi = pos[lo], vi = vel[lo], xj = pos[hi], vj = vel[hi];
            const double s = swept_contact_time(double(xi.x) - double(xj.x), double(xi.y) - double(xj.y),
                                                double(xi.z) - double(xj.z), double(vi.x) - double(vj.x),
                                                double(vi.y) - double(vj.y), double(vi.z) - double(vj.z),
                                                double(vi.w) + double(vj.w), dt);
            if (s < 0) continue;
            const unsigned long long slot = atomicAdd(found, 1ull);
            if (slot < capacity) out[slot] = DeviceContact{lo, hi, s};
        }
    }
}

template <typename T>
__global__ void gather_kernel(const Vec4<T>* __restrict__ pos, const Vec4<T>* __restrict__ vel,
                              const unsigned* __restrict__ idx, std::size_t m, Vec4<T>* __restrict__ pos_out,
                              Vec4<T>* __restrict__ vel_out) {
    const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k >= m) return;
    pos_out[k] = pos[idx[k]];
    vel_out[k] = vel[idx[k]];
}

template <typename T>
__global__ void scatter_kernel(Vec4<T>* __restrict__ pos, Vec4<T>* __restrict__ vel,
                               const unsigned* __restrict__ idx, std::size_t m,
                               const Vec4<T>* __restrict__ pos_in, const Vec4<T>* __restrict__ vel_in) {
    const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k >= m) return;
    pos[idx[k]] = pos_in[k];
    vel[idx[k]] = vel_in[k];
}

// The stable compaction of remove(): body first + t of the tail (copied to pos_tail/vel_tail) goes to
// first + t minus the removed bodies before it, unless it is one of them (removed: ascending, distinct).
template <typename T>
__global__ void compact_tail_kernel(Vec4<T>* __restrict__ pos, Vec4<T>* __restrict__ vel, std::size_t first,
                                    std::size_t tail, const Vec4<T>* __restrict__ pos_tail,
                                    const Vec4<T>* __restrict__ vel_tail,
                                    const unsigned* __restrict__ removed, unsigned m) {
    const std::size_t t = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= tail) return;
    const std::size_t i = first + t;
    unsigned lo = 0, hi = m;  // removed bodies below i
    while (lo < hi) {
        const unsigned mid = lo + (hi - lo) / 2;
        if (removed[mid] < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < m && removed[lo] == i) return;
    pos[i - lo] = pos_tail[t];
    vel[i - lo] = vel_tail[t];
}

}  // namespace

struct DeviceContactGrid::Buffers {
    DeviceBuffer<Sphere> sphere, sphere_sorted;
    DeviceBuffer<Box> box_out;
    DeviceBuffer<unsigned long long> keys, keys_sorted;  // each body's cell, by body index / in bucket order
    DeviceBuffer<unsigned> bucket, bucket_sorted, index, index_sorted;
    DeviceBuffer<unsigned> bucket_start, bucket_end;  // the hash table: 2^bits each
    DeviceBuffer<DeviceContact> contacts;
    DeviceBuffer<unsigned long long> found;
    DeviceBuffer<unsigned char> temp;
    DeviceBuffer<unsigned> small_idx;
    DeviceBuffer<char> small_bodies;      // gathered bodies: 2 x m Vec4<T>
    DeviceBuffer<char> compacted;         // remove()'s copy of the tails of pos and vel
    std::vector<std::uint32_t> uploaded;  // what small_idx holds (scatter() reuses gather()'s)
    std::vector<char> stage;              // host side of small_bodies: one copy each way

    void upload_idx(const std::vector<std::uint32_t>& idx) {
        if (idx == uploaded) return;
        if (small_idx.size() < idx.size()) small_idx.resize(idx.size());
        small_idx.copy_from_host(idx.data(), idx.size());
        uploaded = idx;
    }

    void reserve_temp(std::size_t bytes) {
        if (temp.size() < bytes) temp.resize(bytes);
    }
};

DeviceContactGrid::DeviceContactGrid() : b_(std::make_unique<Buffers>()) {}
DeviceContactGrid::~DeviceContactGrid() = default;

template <typename T>
std::vector<Contact> DeviceContactGrid::find(const Vec4<T>* pos, const Vec4<T>* vel, std::size_t n,
                                             double dt) {
    std::vector<Contact> out;
    if (n < 2) return out;
    Buffers& b = *b_;
    if (b.sphere.size() < n) {
        b.sphere.resize(n), b.sphere_sorted.resize(n), b.keys.resize(n), b.keys_sorted.resize(n);
        b.bucket.resize(n), b.bucket_sorted.resize(n), b.index.resize(n), b.index_sorted.resize(n);
    }
    if (n > (std::size_t(1) << 30)) throw Error("collisions on the GPU: more than 2^30 bodies");
    if (b.box_out.size() == 0) b.box_out.resize(1), b.found.resize(1);
    // The table: the smallest power of two of at least 2 n buckets (at least 1024), grown only.
    int bits = 10;
    while ((std::size_t(1) << bits) < 2 * n) ++bits;
    if (b.bucket_start.size() < (std::size_t(1) << bits)) {
        b.bucket_start.resize(std::size_t(1) << bits), b.bucket_end.resize(std::size_t(1) << bits);
    }
    const std::size_t buckets = std::size_t(1) << bits;
    const unsigned mask = unsigned(buckets - 1);
    const unsigned grid = blocks_for(n, kBlock);
    launch_kernel(swept_kernel<T>, dim3(grid), dim3(kBlock), 0, nullptr, pos, vel, n, dt, b.sphere.data());

    // The bounding box of the centres and the largest extent, left on the device for key_kernel.
    const auto boxes = thrust::make_transform_iterator(b.sphere.data(), SphereBox{});
    std::size_t bytes = 0;
    CUDA_CHECK(
        cub::DeviceReduce::Reduce(nullptr, bytes, boxes, b.box_out.data(), n, MergeBoxes{}, empty_box()));
    b.reserve_temp(bytes);
    bytes = b.temp.size();
    CUDA_CHECK(cub::DeviceReduce::Reduce(b.temp.data(), bytes, boxes, b.box_out.data(), n, MergeBoxes{},
                                         empty_box()));

    launch_kernel(key_kernel, dim3(grid), dim3(kBlock), 0, nullptr, b.sphere.data(), n, b.box_out.data(),
                  mask, b.keys.data(), b.bucket.data(), b.index.data());
    // Sorted by bucket: bits + 1 bits of the 32 (the non-finite bodies' bucket is the table's size).
    bytes = 0;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, b.bucket.data(), b.bucket_sorted.data(),
                                               b.index.data(), b.index_sorted.data(), n, 0, bits + 1));
    b.reserve_temp(bytes);
    bytes = b.temp.size();
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(b.temp.data(), bytes, b.bucket.data(), b.bucket_sorted.data(),
                                               b.index.data(), b.index_sorted.data(), n, 0, bits + 1));
    CUDA_CHECK(cudaMemsetAsync(b.bucket_start.data(), 0, buckets * sizeof(unsigned)));
    CUDA_CHECK(cudaMemsetAsync(b.bucket_end.data(), 0, buckets * sizeof(unsigned)));
    launch_kernel(bucket_range_kernel, dim3(grid), dim3(kBlock), 0, nullptr, b.bucket_sorted.data(), n, mask,
                  b.bucket_start.data(), b.bucket_end.data());
    launch_kernel(reorder_kernel, dim3(grid), dim3(kBlock), 0, nullptr, b.sphere.data(), b.keys.data(),
                  b.index_sorted.data(), n, b.sphere_sorted.data(), b.keys_sorted.data());

    // The pairs; run again with room for all if the first guess was short.
    unsigned long long found = 0;
    for (int pass = 0; pass < 2; ++pass) {
        if (b.contacts.size() == 0) b.contacts.resize(std::max<std::size_t>(1024, n / 16));
        CUDA_CHECK(cudaMemsetAsync(b.found.data(), 0, sizeof(unsigned long long)));
        launch_kernel(pair_kernel<T>, dim3(grid), dim3(kBlock), 0, nullptr, pos, vel, b.sphere_sorted.data(),
                      b.keys_sorted.data(), b.index_sorted.data(), n, mask, b.bucket_start.data(),
                      b.bucket_end.data(), dt, b.contacts.data(),
                      static_cast<unsigned long long>(b.contacts.size()), b.found.data());
        b.found.copy_to_host(&found, 1);
        if (found <= b.contacts.size()) break;
        b.contacts.resize(std::size_t(found));
    }
    out.resize(std::size_t(found));
    if (found > 0)
        CUDA_CHECK(
            cudaMemcpy(out.data(), b.contacts.data(), out.size() * sizeof(Contact), cudaMemcpyDeviceToHost));
    std::sort(out.begin(), out.end());
    return out;
}

template <typename T>
void DeviceContactGrid::gather(const Vec4<T>* pos, const Vec4<T>* vel, const std::vector<std::uint32_t>& idx,
                               Vec4<T>* pos_out, Vec4<T>* vel_out) {
    const std::size_t m = idx.size();
    if (m == 0) return;
    Buffers& b = *b_;
    const std::size_t bytes = m * sizeof(Vec4<T>);
    if (b.small_bodies.size() < 2 * bytes) b.small_bodies.resize(2 * bytes);
    b.upload_idx(idx);
    auto* p = reinterpret_cast<Vec4<T>*>(b.small_bodies.data());
    launch_kernel(gather_kernel<T>, dim3(blocks_for(m, kBlock)), dim3(kBlock), 0, nullptr, pos, vel,
                  b.small_idx.data(), m, p, p + m);
    b.stage.resize(2 * bytes);
    CUDA_CHECK(cudaMemcpy(b.stage.data(), p, 2 * bytes, cudaMemcpyDeviceToHost));
    std::memcpy(pos_out, b.stage.data(), bytes);
    std::memcpy(vel_out, b.stage.data() + bytes, bytes);
}

template <typename T>
void DeviceContactGrid::scatter(Vec4<T>* pos, Vec4<T>* vel, const std::vector<std::uint32_t>& idx,
                                const Vec4<T>* pos_in, const Vec4<T>* vel_in) {
    const std::size_t m = idx.size();
    if (m == 0) return;
    Buffers& b = *b_;
    const std::size_t bytes = m * sizeof(Vec4<T>);
    if (b.small_bodies.size() < 2 * bytes) b.small_bodies.resize(2 * bytes);
    b.upload_idx(idx);  // usually gather()'s, still there
    auto* p = reinterpret_cast<Vec4<T>*>(b.small_bodies.data());
    b.stage.resize(2 * bytes);
    std::memcpy(b.stage.data(), pos_in, bytes);
    std::memcpy(b.stage.data() + bytes, vel_in, bytes);
    CUDA_CHECK(cudaMemcpy(p, b.stage.data(), 2 * bytes, cudaMemcpyHostToDevice));
    launch_kernel(scatter_kernel<T>, dim3(blocks_for(m, kBlock)), dim3(kBlock), 0, nullptr, pos, vel,
                  b.small_idx.data(), m, p, p + m);
}

template <typename T>
std::size_t DeviceContactGrid::remove(Vec4<T>* pos, Vec4<T>* vel, std::size_t n,
                                      const std::vector<std::uint32_t>& removed) {
    const std::size_t m = removed.size();
    if (m == 0) return n;
    Buffers& b = *b_;
    // Only the bodies after the first removed one move: their tails copied aside, then each kept body
    // written back shifted down by the removed ones before it. No read-back: n - m remain.
    const std::size_t first = removed.front(), tail = n - first;
    if (b.compacted.size() < 2 * tail * sizeof(Vec4<T>)) b.compacted.resize(2 * n * sizeof(Vec4<T>));
    b.upload_idx(removed);
    auto* tmp = reinterpret_cast<Vec4<T>*>(b.compacted.data());
    CUDA_CHECK(cudaMemcpyAsync(tmp, pos + first, tail * sizeof(Vec4<T>), cudaMemcpyDeviceToDevice));
    CUDA_CHECK(cudaMemcpyAsync(tmp + tail, vel + first, tail * sizeof(Vec4<T>), cudaMemcpyDeviceToDevice));
    launch_kernel(compact_tail_kernel<T>, dim3(blocks_for(tail, kBlock)), dim3(kBlock), 0, nullptr, pos, vel,
                  first, tail, tmp, tmp + tail, b.small_idx.data(), unsigned(m));
    return n - m;
}

template std::vector<Contact> DeviceContactGrid::find(const Vec4<float>*, const Vec4<float>*, std::size_t,
                                                      double);
template std::vector<Contact> DeviceContactGrid::find(const Vec4<double>*, const Vec4<double>*, std::size_t,
                                                      double);
template void DeviceContactGrid::gather(const Vec4<float>*, const Vec4<float>*,
                                        const std::vector<std::uint32_t>&, Vec4<float>*, Vec4<float>*);
template void DeviceContactGrid::gather(const Vec4<double>*, const Vec4<double>*,
                                        const std::vector<std::uint32_t>&, Vec4<double>*, Vec4<double>*);
template void DeviceContactGrid::scatter(Vec4<float>*, Vec4<float>*, const std::vector<std::uint32_t>&,
                                         const Vec4<float>*, const Vec4<float>*);
template void DeviceContactGrid::scatter(Vec4<double>*, Vec4<double>*, const std::vector<std::uint32_t>&,
                                         const Vec4<double>*, const Vec4<double>*);
template std::size_t DeviceContactGrid::remove(Vec4<float>*, Vec4<float>*, std::size_t,
                                               const std::vector<std::uint32_t>&);
template std::size_t DeviceContactGrid::remove(Vec4<double>*, Vec4<double>*, std::size_t,
                                               const std::vector<std::uint32_t>&);

}  // namespace nbody
