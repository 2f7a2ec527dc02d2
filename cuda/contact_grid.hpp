#pragma once
// The CUDA backend's collisions (sim/collide/): the touching pairs found on the device through a uniform
// grid built with CUB (cell keys hashed into a table of bucket ranges, radix sort), the few bodies they name
// copied out and back, and the merged bodies removed in place. No CUDA headers here.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/collide/find_contacts.hpp"

namespace nbody {

class DeviceContactGrid {
  public:
    DeviceContactGrid();
    ~DeviceContactGrid();
    DeviceContactGrid(const DeviceContactGrid&) = delete;
    DeviceContactGrid& operator=(const DeviceContactGrid&) = delete;

    // Every touching pair of the step of length dt that ended at the device bodies pos/vel (radius in
    // vel.w): the pairs find_contacts (sim/collide/find_contacts.hpp) finds for the same bodies, with the
    // same contact times (the same double arithmetic, built without fused multiply-adds), sorted by (i, j).
    // The cells are twice the largest swept extent (the host version also lists outsized bodies apart;
    // here they only make the cells larger, never the result different).
    template <typename T>
    std::vector<Contact> find(const Vec4<T>* pos, const Vec4<T>* vel, std::size_t n, double dt);

    // Copies the bodies idx (ascending) out to host arrays of idx.size(), and back in.
    template <typename T>
    void gather(const Vec4<T>* pos, const Vec4<T>* vel, const std::vector<std::uint32_t>& idx,
                Vec4<T>* pos_out, Vec4<T>* vel_out);
    template <typename T>
    void scatter(Vec4<T>* pos, Vec4<T>* vel, const std::vector<std::uint32_t>& idx, const Vec4<T>* pos_in,
                 const Vec4<T>* vel_in);

    // Removes the bodies `removed` (ascending, distinct, < n) from the first n of pos and vel, keeping the
    // others in order (a stable compaction of the part after the first removed body, no read-back).
    // Returns the new count, n - removed.size().
    template <typename T>
    std::size_t remove(Vec4<T>* pos, Vec4<T>* vel, std::size_t n, const std::vector<std::uint32_t>& removed);

  private:
    struct Buffers;
    std::unique_ptr<Buffers> b_;
};

}  // namespace nbody
