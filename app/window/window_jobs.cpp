#include "window_jobs.hpp"

#include <algorithm>
#include <chrono>
#include <memory>
#include <utility>

#include "sim/util.hpp"
#include "sim_session.hpp"

namespace nbody {

PendingRequest load_request(std::string label, const HostState& s, const Camera& camera, bool refit) {
    PendingRequest r;
    r.label = std::move(label);
    r.n = std::int64_t(s.size());
    r.stats = compute_body_stats(s);
    r.camera = camera;
    if (refit) {
        State<float> fs = convert_state<float>(s);
        r.camera.fit(fs.pos_mass.data(), fs.size());
    }
    return r;
}

std::optional<PendingRequest> PendingRequests::take(std::uint64_t id) {
    auto it = std::find_if(list_.begin(), list_.end(), [&](const PendingRequest& p) { return p.id == id; });
    if (it == list_.end()) return std::nullopt;
    PendingRequest r = std::move(*it);
    list_.erase(it);
    return r;
}

std::string PendingRequests::busy_label() const {
    return list_.empty() ? std::string() : list_.front().label;
}

namespace {

template <typename T>
bool ready(const std::future<T>& f) {
    using namespace std::chrono_literals;
    return f.valid() && f.wait_for(0s) == std::future_status::ready;
}

}  // namespace

std::optional<PotentialGrid> PotentialJob::take_finished() {
    if (!ready(job_)) return std::nullopt;
    PotentialGrid grid = job_.get();
    interval_ = std::max(0.4, 5e-3 * grid.ms);
    return grid;
}

bool PotentialJob::due() const {
    return !job_.valid() && now_s() - launched_ >= interval_;
}

void PotentialJob::start(SimSession& session, std::vector<Vec4<double>> targets, int cols, int rows) {
    auto shared = std::make_shared<std::vector<Vec4<double>>>(std::move(targets));
    SimSession* s = &session;
    launched_ = now_s();
    job_ = std::async(std::launch::async, [s, shared, cols, rows] {
        PotentialGrid grid;
        grid.cols = cols;
        grid.rows = rows;
        double t0 = now_s();
        try {
            std::vector<double> phi = s->potentials_at(*shared);
            grid.phi.assign(phi.begin(), phi.end());
        } catch (const std::exception& e) {
            grid.error = e.what();
        }
        grid.ms = 1e3 * (now_s() - t0);
        return grid;
    });
}

void PotentialJob::wait() {
    if (job_.valid()) job_.wait();
}

std::optional<BodyPotentials> BodyPotentialJob::take_finished() {
    if (!ready(job_)) return std::nullopt;
    BodyPotentials p = job_.get();
    interval_ = std::max(0.5, 20e-3 * p.ms);
    return p;
}

bool BodyPotentialJob::due() const {
    return !job_.valid() && now_s() - launched_ >= interval_;
}

void BodyPotentialJob::start(SimSession& session, bool densities) {
    SimSession* s = &session;
    launched_ = now_s();
    job_ = std::async(std::launch::async, [s, densities] {
        BodyPotentials out;
        out.densities = densities;
        const double t0 = now_s();
        try {
            const std::vector<double> phi = densities ? s->body_densities() : s->body_potentials();
            out.phi.assign(phi.begin(), phi.end());
        } catch (const std::exception& e) {
            out.error = e.what();
        }
        out.ms = 1e3 * (now_s() - t0);
        return out;
    });
}

void BodyPotentialJob::wait() {
    if (job_.valid()) job_.wait();
}

std::optional<PickEnergy> PickJob::take_finished() {
    if (!ready(job_)) return std::nullopt;
    return job_.get();
}

bool PickJob::due(bool same_body, int frame) const {
    return !job_.valid() && (!same_body || frame - last_frame_ >= 15);
}

void PickJob::start(SimSession& session, std::int64_t index, int frame) {
    last_frame_ = frame;
    SimSession* s = &session;
    job_ = std::async(std::launch::async, [s, index] {
        PickEnergy e;
        e.index = index;
        try {
            e.energy = s->body_potential_energy(std::size_t(index));
        } catch (const std::exception&) {
            // Nothing new to show; the panel keeps "KE" only.
        }
        return e;
    });
}

void PickJob::wait() {
    if (job_.valid()) job_.wait();
}

}  // namespace nbody
