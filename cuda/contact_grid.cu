// Collision detection on the device: a uniform grid of the bodies' swept spheres, the same pairs and
// contact times as sim/collide/find_contacts.cpp. Built with -fmad=false (cuda/CMakeLists.txt): the
// contact times are plain IEEE double operations, as on the host (built with -ffp-contract=off).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include "contact_grid.hpp"
#include "cuda_check.hpp"
#include "device_buffer.hpp"
#include "launch.cuh"
#include "sim/collide/contact.hpp"

namespace nbody {
namespace {

constexpr unsigned kBlock = 256;
// As on the host: 21 bits per axis, so (ix, iy, iz) packs into one key without collisions.
constexpr long long kCellsPerAxis = 1LL << 21;
constexpr unsigned long long kNoCell = ~0ull;  // a non-finite body: sorted last, never searched

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

// Swept sphere of each body (centre x - v dt/2, extent r + |v| dt/2) and its bounding box entry; a
// non-finite body gets extent NaN and an empty box.
template <typename T>
__global__ void swept_kernel(const Vec4<T>* __restrict__ pos, const Vec4<T>* __restrict__ vel, std::size_t n,
                             double dt, Sphere* __restrict__ sphere, Box* __restrict__ box) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const Vec4<T> x = pos[i], v = vel[i];
    const double vx = v.x, vy = v.y, vz = v.z;
    const double speed = sqrt(vx * vx + vy * vy + vz * vz);
    const double cx = double(x.x) - 0.5 * dt * vx, cy = double(x.y) - 0.5 * dt * vy,
                 cz = double(x.z) - 0.5 * dt * vz, e = double(v.w) + 0.5 * dt * speed;
    const bool finite = isfinite(cx) && isfinite(cy) && isfinite(cz) && isfinite(e);
    sphere[i] = Sphere{cx, cy, cz, finite ? e : NAN};
    Box b;
    const double inf = INFINITY;
    b.lo[0] = finite ? cx : inf, b.lo[1] = finite ? cy : inf, b.lo[2] = finite ? cz : inf;
    b.hi[0] = finite ? cx : -inf, b.hi[1] = finite ? cy : -inf, b.hi[2] = finite ? cz : -inf;
    b.extent = finite ? e : 0.0;
    box[i] = b;
}

__device__ unsigned long long cell_key(long long x, long long y, long long z) {
    return (static_cast<unsigned long long>(x) << 42) | (static_cast<unsigned long long>(y) << 21) |
           static_cast<unsigned long long>(z);
}

__global__ void key_kernel(const Sphere* __restrict__ sphere, std::size_t n, double lo_x, double lo_y,
                           double lo_z, double cell, unsigned long long* __restrict__ keys,
                           unsigned* __restrict__ index) {
    const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const Sphere s = sphere[i];
    index[i] = unsigned(i);
    if (isnan(s.w)) {
        keys[i] = kNoCell;
        return;
    }
    keys[i] = cell_key(static_cast<long long>(floor((s.x - lo_x) / cell)),
                       static_cast<long long>(floor((s.y - lo_y) / cell)),
                       static_cast<long long>(floor((s.z - lo_z) / cell)));
}

// One thread per body in key order: the bodies of its own and the 26 neighbouring cells with a higher
// index, prefiltered by their swept spheres, then the exact swept test (sim/collide/contact.hpp).
template <typename T>
__global__ void pair_kernel(const Vec4<T>* __restrict__ pos, const Vec4<T>* __restrict__ vel,
                            const Sphere* __restrict__ sphere,
                            const unsigned long long* __restrict__ sorted_keys,
                            const unsigned* __restrict__ sorted_index, std::size_t n,
                            const unsigned long long* __restrict__ cell_keys,
                            const unsigned* __restrict__ cell_start, const unsigned* __restrict__ cell_count,
                            unsigned cells, double dt, DeviceContact* __restrict__ out,
                            unsigned long long capacity, unsigned long long* __restrict__ found) {
    const std::size_t p = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (p >= n) return;
    const unsigned long long key = sorted_keys[p];
    if (key == kNoCell) return;
    const unsigned i = sorted_index[p];
    const Sphere si = sphere[i];
    const Vec4<T> xi = pos[i], vi = vel[i];
    const long long c[3] = {static_cast<long long>(key >> 42),
                            static_cast<long long>((key >> 21) & (kCellsPerAxis - 1)),
                            static_cast<long long>(key & (kCellsPerAxis - 1))};
    for (int dx = -1; dx <= 1; ++dx) {
        for (int dy = -1; dy <= 1; ++dy) {
            for (int dz = -1; dz <= 1; ++dz) {
                const long long x = c[0] + dx, y = c[1] + dy, z = c[2] + dz;
                if (x < 0 || y < 0 || z < 0 || x >= kCellsPerAxis || y >= kCellsPerAxis || z >= kCellsPerAxis)
                    continue;
                const unsigned long long k = cell_key(x, y, z);
                unsigned lo = 0, hi = cells;  // lower bound of k among the cells' keys
                while (lo < hi) {
                    const unsigned mid = lo + (hi - lo) / 2;
                    if (cell_keys[mid] < k)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                if (lo == cells || cell_keys[lo] != k) continue;
                const unsigned first = cell_start[lo], last = first + cell_count[lo];
                for (unsigned q = first; q < last; ++q) {
                    const unsigned j = sorted_index[q];
                    if (j <= i) continue;
                    const Sphere sj = sphere[j];
                    const double ox = si.x - sj.x, oy = si.y - sj.y, oz = si.z - sj.z, r = si.w + sj.w;
                    if (!(ox * ox + oy * oy + oz * oz <= r * r)) continue;
                    const Vec4<T> xj = pos[j], vj = vel[j];
                    const double s = swept_contact_time(
                        double(xi.x) - double(xj.x), double(xi.y) - double(xj.y), double(xi.z) - double(xj.z),
                        double(vi.x) - double(vj.x), double(vi.y) - double(vj.y), double(vi.z) - double(vj.z),
                        double(vi.w) + double(vj.w), dt);
                    if (s < 0) continue;
                    const unsigned long long slot = atomicAdd(found, 1ull);
                    if (slot < capacity) out[slot] = DeviceContact{i, j, s};
                }
            }
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

__global__ void unflag_kernel(const unsigned* __restrict__ idx, std::size_t m,
                              unsigned char* __restrict__ keep) {
    const std::size_t k = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k < m) keep[idx[k]] = 0;
}

}  // namespace

struct DeviceContactGrid::Buffers {
    DeviceBuffer<Sphere> sphere;
    DeviceBuffer<Box> box, box_out;
    DeviceBuffer<unsigned long long> keys, keys_sorted, cell_keys;
    DeviceBuffer<unsigned> index, index_sorted, cell_count, cell_start, runs;
    DeviceBuffer<DeviceContact> contacts;
    DeviceBuffer<unsigned long long> found;
    DeviceBuffer<unsigned char> temp, keep;
    DeviceBuffer<unsigned> small_idx;
    DeviceBuffer<char> small_bodies;  // gathered bodies: 2 x m Vec4<T>
    DeviceBuffer<char> compacted;     // DeviceSelect's output, one array at a time
    DeviceBuffer<unsigned long long> selected;

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
        b.sphere.resize(n), b.box.resize(n), b.keys.resize(n), b.keys_sorted.resize(n), b.cell_keys.resize(n);
        b.index.resize(n), b.index_sorted.resize(n), b.cell_count.resize(n), b.cell_start.resize(n);
    }
    if (b.box_out.size() == 0) b.box_out.resize(1), b.runs.resize(1), b.found.resize(1);
    const unsigned grid = blocks_for(n, kBlock);
    launch_kernel(swept_kernel<T>, dim3(grid), dim3(kBlock), 0, nullptr, pos, vel, n, dt, b.sphere.data(),
                  b.box.data());

    // The bounding box of the centres and the largest extent.
    std::size_t bytes = 0;
    CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, bytes, b.box.data(), b.box_out.data(), n, MergeBoxes{},
                                         empty_box()));
    b.reserve_temp(bytes);
    bytes = b.temp.size();
    CUDA_CHECK(cub::DeviceReduce::Reduce(b.temp.data(), bytes, b.box.data(), b.box_out.data(), n,
                                         MergeBoxes{}, empty_box()));
    Box box{};
    b.box_out.copy_to_host(&box, 1);
    if (!(box.hi[0] >= box.lo[0])) return out;  // no finite body
    double cell = 2 * box.extent;
    for (int k = 0; k < 3; ++k) cell = std::max(cell, (box.hi[k] - box.lo[k]) / double(kCellsPerAxis - 2));
    if (!(cell > 0)) cell = 1;

    launch_kernel(key_kernel, dim3(grid), dim3(kBlock), 0, nullptr, b.sphere.data(), n, box.lo[0], box.lo[1],
                  box.lo[2], cell, b.keys.data(), b.index.data());
    bytes = 0;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, b.keys.data(), b.keys_sorted.data(),
                                               b.index.data(), b.index_sorted.data(), n));
    b.reserve_temp(bytes);
    bytes = b.temp.size();
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(b.temp.data(), bytes, b.keys.data(), b.keys_sorted.data(),
                                               b.index.data(), b.index_sorted.data(), n));
    // Cells: runs of equal keys (their key and count), and where each starts (an exclusive sum).
    bytes = 0;
    CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(nullptr, bytes, b.keys_sorted.data(), b.cell_keys.data(),
                                                  b.cell_count.data(), b.runs.data(), n));
    b.reserve_temp(bytes);
    bytes = b.temp.size();
    CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(b.temp.data(), bytes, b.keys_sorted.data(),
                                                  b.cell_keys.data(), b.cell_count.data(), b.runs.data(), n));
    unsigned runs = 0;
    b.runs.copy_to_host(&runs, 1);
    bytes = 0;
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, b.cell_count.data(), b.cell_start.data(), runs));
    b.reserve_temp(bytes);
    bytes = b.temp.size();
    CUDA_CHECK(
        cub::DeviceScan::ExclusiveSum(b.temp.data(), bytes, b.cell_count.data(), b.cell_start.data(), runs));

    // The pairs; run again with room for all if the first guess was short.
    unsigned long long found = 0;
    for (int pass = 0; pass < 2; ++pass) {
        if (b.contacts.size() == 0) b.contacts.resize(std::max<std::size_t>(1024, n / 16));
        CUDA_CHECK(cudaMemset(b.found.data(), 0, sizeof(unsigned long long)));
        launch_kernel(pair_kernel<T>, dim3(grid), dim3(kBlock), 0, nullptr, pos, vel, b.sphere.data(),
                      b.keys_sorted.data(), b.index_sorted.data(), n, b.cell_keys.data(), b.cell_start.data(),
                      b.cell_count.data(), runs, dt, b.contacts.data(),
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
    if (b.small_idx.size() < m) b.small_idx.resize(m);
    if (b.small_bodies.size() < 2 * m * sizeof(Vec4<T>)) b.small_bodies.resize(2 * m * sizeof(Vec4<T>));
    b.small_idx.copy_from_host(idx.data(), m);
    auto* p = reinterpret_cast<Vec4<T>*>(b.small_bodies.data());
    launch_kernel(gather_kernel<T>, dim3(blocks_for(m, kBlock)), dim3(kBlock), 0, nullptr, pos, vel,
                  b.small_idx.data(), m, p, p + m);
    CUDA_CHECK(cudaMemcpy(pos_out, p, m * sizeof(Vec4<T>), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(vel_out, p + m, m * sizeof(Vec4<T>), cudaMemcpyDeviceToHost));
}

template <typename T>
void DeviceContactGrid::scatter(Vec4<T>* pos, Vec4<T>* vel, const std::vector<std::uint32_t>& idx,
                                const Vec4<T>* pos_in, const Vec4<T>* vel_in) {
    const std::size_t m = idx.size();
    if (m == 0) return;
    Buffers& b = *b_;
    if (b.small_idx.size() < m) b.small_idx.resize(m);
    if (b.small_bodies.size() < 2 * m * sizeof(Vec4<T>)) b.small_bodies.resize(2 * m * sizeof(Vec4<T>));
    b.small_idx.copy_from_host(idx.data(), m);
    auto* p = reinterpret_cast<Vec4<T>*>(b.small_bodies.data());
    CUDA_CHECK(cudaMemcpy(p, pos_in, m * sizeof(Vec4<T>), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(p + m, vel_in, m * sizeof(Vec4<T>), cudaMemcpyHostToDevice));
    launch_kernel(scatter_kernel<T>, dim3(blocks_for(m, kBlock)), dim3(kBlock), 0, nullptr, pos, vel,
                  b.small_idx.data(), m, p, p + m);
}

template <typename T>
std::size_t DeviceContactGrid::remove(Vec4<T>* pos, Vec4<T>* vel, std::size_t n,
                                      const std::vector<std::uint32_t>& removed) {
    const std::size_t m = removed.size();
    if (m == 0) return n;
    Buffers& b = *b_;
    if (b.keep.size() < n) b.keep.resize(n);
    if (b.small_idx.size() < m) b.small_idx.resize(m);
    if (b.compacted.size() < n * sizeof(Vec4<T>)) b.compacted.resize(n * sizeof(Vec4<T>));
    if (b.selected.size() == 0) b.selected.resize(1);
    CUDA_CHECK(cudaMemset(b.keep.data(), 1, n));
    b.small_idx.copy_from_host(removed.data(), m);
    launch_kernel(unflag_kernel, dim3(blocks_for(m, kBlock)), dim3(kBlock), 0, nullptr, b.small_idx.data(), m,
                  b.keep.data());
    auto* tmp = reinterpret_cast<Vec4<T>*>(b.compacted.data());
    unsigned long long kept = 0;
    for (Vec4<T>* array : {pos, vel}) {
        std::size_t bytes = 0;
        CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, bytes, array, b.keep.data(), tmp, b.selected.data(),
                                              std::int64_t(n)));
        b.reserve_temp(bytes);
        bytes = b.temp.size();
        CUDA_CHECK(cub::DeviceSelect::Flagged(b.temp.data(), bytes, array, b.keep.data(), tmp,
                                              b.selected.data(), std::int64_t(n)));
        b.selected.copy_to_host(&kept, 1);
        CUDA_CHECK(cudaMemcpy(array, tmp, std::size_t(kept) * sizeof(Vec4<T>), cudaMemcpyDeviceToDevice));
    }
    return std::size_t(kept);
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
