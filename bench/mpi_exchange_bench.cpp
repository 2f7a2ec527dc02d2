// MPI_Allgatherv against a systolic ring for the distributed direct sum (issue 12): one force evaluation
// of each process's slice of a Plummer sphere against all N bodies, float, OpenMP rows on each process's
// threads. Allgatherv: gather every slice's positions, then one pass over all sources (what nbody does).
// Ring: K rounds; in each, the block held now is summed onto the slice while the next block arrives from
// the left neighbour (MPI_Isend / MPI_Irecv). Prints the median over repeats of the slowest process.
//   mpirun -np K nbody_mpi_exchange_bench [N] [repeats]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "sim/gravity/kernels_cpu.hpp"
#include "sim/presets.hpp"
#include "sim/util.hpp"

namespace nbody {
namespace {

double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// The slowest process's time for one call of f.
template <typename F>
double timed(F&& f) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    f();
    double dt = MPI_Wtime() - t0, worst = 0;
    MPI_Allreduce(&dt, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

int run(int argc, char** argv) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 16384;
    const int repeats = argc > 2 ? std::atoi(argv[2]) : 7;

    const State<float> all_bodies = convert_state<float>(make_preset("plummer", n, 1));
    std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
    for (int r = 0, offset = 0; r < size; ++r) {
        counts[std::size_t(r)] =
            int(n / std::size_t(size) + (std::size_t(r) < n % std::size_t(size) ? 1 : 0));
        displs[std::size_t(r)] = offset;
        offset += counts[std::size_t(r)];
    }
    const std::size_t first = std::size_t(displs[std::size_t(rank)]),
                      count = std::size_t(counts[std::size_t(rank)]);
    const std::vector<Vec4<float>> mine(all_bodies.pos_mass.begin() + std::ptrdiff_t(first),
                                        all_bodies.pos_mass.begin() + std::ptrdiff_t(first + count));
    const float G = 1, eps2 = 0.02f * 0.02f;
    ForceScratch<float> scratch;
    std::vector<Vec4<float>> all(n), acc(count), part(count);
    MPI_Datatype f4;
    MPI_Type_contiguous(4, MPI_FLOAT, &f4);
    MPI_Type_commit(&f4);

    std::vector<double> gather_s, gather_comm_s, gather_field_s, ring_s;
    for (int k = 0; k < repeats; ++k) {
        gather_comm_s.push_back(timed([&] {
            MPI_Allgatherv(mine.data(), int(count), f4, all.data(), counts.data(), displs.data(), f4,
                           MPI_COMM_WORLD);
        }));
        gather_s.push_back(timed([&] {
            MPI_Allgatherv(mine.data(), int(count), f4, all.data(), counts.data(), displs.data(), f4,
                           MPI_COMM_WORLD);
            accelerations_row_range(all.data(), acc.data(), n, first, count, G, eps2, true, scratch);
        }));
        // The ring's kernel (targets against a block of sources) over all sources at once: the fair
        // comparison of the two exchanges.
        gather_field_s.push_back(timed([&] {
            MPI_Allgatherv(mine.data(), int(count), f4, all.data(), counts.data(), displs.data(), f4,
                           MPI_COMM_WORLD);
            field_at_targets(all.data(), n, mine.data(), count, G, eps2, acc.data(),
                             static_cast<float*>(nullptr), true, scratch);
        }));
        ring_s.push_back(timed([&] {
            const int left = (rank + size - 1) % size, right = (rank + 1) % size;
            const std::size_t most = std::size_t(counts[0]);
            std::vector<Vec4<float>> cur(most), next(most);
            std::copy(mine.begin(), mine.end(), cur.begin());
            std::fill(acc.begin(), acc.end(), Vec4<float>{0, 0, 0, 0});
            for (int round = 0; round < size; ++round) {
                const int held = (rank - round + size) % size, coming = (held - 1 + size) % size;
                MPI_Request req[2];
                const bool more = round + 1 < size;
                if (more) {
                    MPI_Irecv(next.data(), counts[std::size_t(coming)], f4, left, round, MPI_COMM_WORLD,
                              &req[0]);
                    MPI_Isend(cur.data(), counts[std::size_t(held)], f4, right, round, MPI_COMM_WORLD,
                              &req[1]);
                }
                field_at_targets(cur.data(), std::size_t(counts[std::size_t(held)]), mine.data(), count, G,
                                 eps2, part.data(), static_cast<float*>(nullptr), true, scratch);
                for (std::size_t i = 0; i < count; ++i) {
                    acc[i].x += part[i].x, acc[i].y += part[i].y, acc[i].z += part[i].z;
                }
                if (more) {
                    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
                    std::swap(cur, next);
                }
            }
        }));
    }
    if (rank == 0) {
        std::printf("processes %d, N = %zu, float, %d repeats (median of the slowest process)\n", size, n,
                    repeats);
        std::printf("allgatherv + rows:  %8.3f ms per force evaluation (the gather alone %.3f ms)\n",
                    median_of(gather_s) * 1e3, median_of(gather_comm_s) * 1e3);
        std::printf(
            "allgatherv + field: %8.3f ms per force evaluation (the ring's kernel, all sources at once)\n",
            median_of(gather_field_s) * 1e3);
        std::printf("systolic ring:      %8.3f ms per force evaluation (the same kernel, block by block)\n",
                    median_of(ring_s) * 1e3);
    }
    MPI_Type_free(&f4);
    return 0;
}

}  // namespace
}  // namespace nbody

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    const int code = nbody::run(argc, argv);
    MPI_Finalize();
    return code;
}
