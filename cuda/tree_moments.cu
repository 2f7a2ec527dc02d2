// The GPU tree's upward pass: for every node, mass M, centre of mass c, the traceless quadrupole about c,
// the opening radius l / theta + s and the monopole radius l / theta^p + s (sim/gravity/multipole.hpp), one
// launch per level from the deepest up (a parent reads its children's finished moments). In float, with the
// same formulas as the CPU tree (sim/gravity/multipole.hpp): a leaf sums its bodies, an inner cell shifts its
// children's quadrupoles to its own c.
#include "launch.cuh"
#include "sim/gravity/multipole.hpp"
#include "tree_detail.cuh"

namespace nbody::tree_gpu {
namespace {

constexpr unsigned kBlock = 128;

__global__ void moments_kernel(TreeView t, int L, float inv_theta, float inv_theta_mono) {
    const int begin = t.level_start[L], end = t.level_start[L + 1];
    const RootCube<float> cube = *t.cube;
    for (int k = begin + int(blockIdx.x * blockDim.x + threadIdx.x); k < end;
         k += int(gridDim.x * blockDim.x)) {
        const int4 l = t.link[k];
        float gx, gy, gz, side;
        morton_cell_geometry(t.keys[l.x], L, cube, gx, gy, gz, side);
        // Sums relative to the cell's centre: float keeps the digits that matter for a small deep cell.
        float M = 0, sx = 0, sy = 0, sz = 0;
        if (l.w == 0) {
            for (int i = l.x; i < l.x + l.y; ++i) {
                const float4 b = t.bodies[i];
                M += b.w, sx += b.w * (b.x - gx), sy += b.w * (b.y - gy), sz += b.w * (b.z - gz);
            }
        } else {
            for (int j = l.z; j < l.z + l.w; ++j) {
                const float4 o = t.open[j];
                const float m = t.mq[j].x;
                M += m, sx += m * (o.x - gx), sy += m * (o.y - gy), sz += m * (o.z - gz);
            }
        }
        // A massless cell (only zero-mass bodies) sits at its cube's centre and adds nothing.
        const float cx = M > 0 ? gx + sx / M : gx, cy = M > 0 ? gy + sy / M : gy,
                    cz = M > 0 ? gz + sz / M : gz;
        Quadrupole<float> q;
        if (l.w == 0) {
            for (int i = l.x; i < l.x + l.y; ++i) {
                const float4 b = t.bodies[i];
                add_point_quadrupole(q, b.w, b.x - cx, b.y - cy, b.z - cz);
            }
        } else {
            for (int j = l.z; j < l.z + l.w; ++j) {
                const float4 o = t.open[j], a = t.mq[j], b = t.quad[j];
                const Quadrupole<float> child{a.y, a.z, a.w, b.x, b.y, b.z};
                add_shifted_quadrupole(q, child, a.x, o.x - cx, o.y - cy, o.z - cz);
            }
        }
        const float ox = cx - gx, oy = cy - gy, oz = cz - gz;
        const float s = sqrtf(ox * ox + oy * oy + oz * oz);
        t.open[k] = make_float4(cx, cy, cz, opening_radius(side, s, inv_theta));
        t.mq[k] = make_float4(M, q.xx, q.yy, q.zz);
        t.quad[k] = make_float4(q.xy, q.xz, q.yz, opening_radius(side, s, inv_theta_mono));
    }
}

}  // namespace

void launch_moments(const TreeView& t, float theta, double monopole_power, cudaStream_t s) {
    // theta = 0: every opening radius is infinite, so no cell is ever accepted (the direct sum).
    const float inv_theta = theta > 0 ? 1.0f / theta : __builtin_huge_valf();
    // The same 1 / theta^p the CPU tree uses, rounded to float once.
    const float inv_theta_mono = theta > 0 && monopole_power > 0
                                     ? float(monopole_inv_theta(double(theta), monopole_power))
                                     : __builtin_huge_valf();
    const int sms = current_device_sms();
    const unsigned want = blocks_for(std::size_t(t.capacity), kBlock);
    const unsigned grid = want < unsigned(sms) * 16 ? want : unsigned(sms) * 16;
    for (int L = kLevels - 1; L >= 0; --L)
        launch_kernel(moments_kernel, grid, kBlock, 0, s, t, L, inv_theta, inv_theta_mono);
}

}  // namespace nbody::tree_gpu
