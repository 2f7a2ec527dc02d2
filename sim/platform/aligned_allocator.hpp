#pragma once
// A std::allocator that aligns every block to kAlign bytes (a cache line, an AVX-512 vector), so the SIMD
// force loops read their structure-of-arrays copies with aligned loads.
#include <cstddef>
#include <new>

namespace nbody {

template <typename T, std::size_t kAlign = 64>
struct AlignedAllocator {
    using value_type = T;
    AlignedAllocator() = default;
    template <typename U>
    AlignedAllocator(const AlignedAllocator<U, kAlign>&) noexcept {}
    template <typename U>
    struct rebind {
        using other = AlignedAllocator<U, kAlign>;
    };

    T* allocate(std::size_t n) {
        return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(kAlign)));
    }
    void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, std::align_val_t(kAlign)); }

    friend bool operator==(const AlignedAllocator&, const AlignedAllocator&) { return true; }
    friend bool operator!=(const AlignedAllocator&, const AlignedAllocator&) { return false; }
};

}  // namespace nbody
