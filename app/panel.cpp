#include "panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "sim/force_solver.hpp"
#include "sim/memory.hpp"
#include "sim/presets.hpp"
#include "backends/registry.hpp"

namespace nbody {

void History::push(float v) {
    data[std::size_t(next)] = v;
    next = (next + 1) % kLen;
    count = std::min(count + 1, kLen);
}

namespace {

void plot(const char* label, const History& h, const char* fmt, const char* tooltip = nullptr) {
    char overlay[64];
    std::snprintf(overlay, sizeof overlay, fmt, double(h.last()));
    // Oldest first: start reading at `next` once the ring has wrapped.
    int offset = h.count == History::kLen ? h.next : 0;
    ImGui::PlotLines(label, h.data.data(), h.count, offset, overlay, 0.0f, FLT_MAX, ImVec2(0, 36));
    if (tooltip && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tooltip);
}

void tooltip_for_last(const char* text) {
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", text);
}

bool input_positive(const char* label, double& v, double lo, double hi, const char* fmt) {
    double x = v;
    bool changed =
        ImGui::SliderScalar(label, ImGuiDataType_Double, &x, &lo, &hi, fmt, ImGuiSliderFlags_Logarithmic);
    if (changed && x > 0) v = x;
    return changed;
}

void force_controls(PanelModel& m, const PanelInfo& info) {
    std::string cur = to_string(m.params.force);
    if (ImGui::BeginCombo("force", cur.c_str())) {
        for (const auto& f : builtin_force_algorithms()) {
            if (ImGui::Selectable(f.name, f.id == m.params.force)) m.params.force = f.id;
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", f.description);
        }
        ImGui::EndCombo();
    }
    tooltip_for_last("Force algorithm; a change takes effect at the next step.");
    if (m.params.force == ForceAlgorithm::tree) {
        float theta = float(m.params.theta);
        if (ImGui::SliderFloat("theta", &theta, 0.05f, 1.0f, "%.2f")) m.params.theta = std::clamp(double(theta), 0.05, 1.0);
        tooltip_for_last(
            "Opening angle: a cell acts as one multipole when it is farther than side / theta from a group of "
            "32 bodies. Smaller: more accurate, slower. The default 0.6 keeps the median relative force error "
            "below 1e-3.");
        if (info.have_force_error) {
            ImGui::TextUnformatted(info.force_error.c_str());
            if (ImGui::IsItemHovered()) {
                ImGui::SetTooltip(
                    "Relative force error |a_tree - a_direct| / |a_direct| of the accelerations the steps use, "
                    "on a fixed sample of bodies, against the float64 direct sum on that sample only; "
                    "re-measured every so often and whenever theta changes.\n%s",
                    info.force_error_where.c_str());
            }
        } else {
            ImGui::TextDisabled("force error: measuring...");
        }
        if (info.interactions_per_body > 0) ImGui::Text("%.0f interactions / body / step", info.interactions_per_body);
    }
}

void simulation_section(PanelModel& m, PanelActions& a, const PanelInfo& info) {
    if (!ImGui::CollapsingHeader("Simulation", ImGuiTreeNodeFlags_DefaultOpen)) return;
    if (ImGui::Button(m.paused ? "Run  (Space)" : "Pause (Space)")) {
        m.paused = !m.paused;
        a.pause_changed = true;
    }
    ImGui::SameLine();
    if (ImGui::Button("Step (S)")) a.single_step = true;
    ImGui::SliderInt("steps / frame", &m.steps_per_frame, 1, 64, "%d", ImGuiSliderFlags_Logarithmic);
    tooltip_for_last(
        "Steps granted per rendered frame. The simulation runs on its own thread: when one step "
        "takes longer than a frame, the window stays responsive and steps/s shows the real rate.");

    input_positive("dt", m.params.dt, 1e-6, 1.0, "%.2e");
    double eps = m.params.softening;
    double lo = 0.0, hi = 1.0;
    if (ImGui::SliderScalar("softening", ImGuiDataType_Double, &eps, &lo, &hi, "%.4f",
                            ImGuiSliderFlags_Logarithmic)) {
        m.params.softening = std::max(0.0, eps);
    }
    double dlo = 0.9, dhi = 1.0;
    ImGui::SliderScalar("damping", ImGuiDataType_Double, &m.params.damping, &dlo, &dhi, "%.5f");
    tooltip_for_last("Velocity factor applied once per step (1 = none).");
    input_positive("G", m.params.G, 1e-3, 1e3, "%.4g");

    const auto names = integrator_names();
    std::string cur = to_string(m.params.integrator);
    if (ImGui::BeginCombo("integrator", cur.c_str())) {
        for (const auto& name : names) {
            if (ImGui::Selectable(name.c_str(), name == cur)) {
                if (auto i = parse_integrator(name)) m.params.integrator = *i;
            }
        }
        ImGui::EndCombo();
    }
    force_controls(m, info);

    ImGui::Separator();
    if (ImGui::BeginCombo("preset", m.preset.c_str())) {
        for (const auto& p : presets()) {
            if (ImGui::Selectable(p.name.c_str(), p.name == m.preset)) m.preset = p.name;
            if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", p.description.c_str());
        }
        ImGui::EndCombo();
    }
    ImGui::InputScalar("N", ImGuiDataType_S64, &m.n_edit);
    m.n_edit = std::clamp<std::int64_t>(m.n_edit, 1, std::int64_t(1) << 26);
    ImGui::InputScalar("seed", ImGuiDataType_U64, &m.seed);
    if (ImGui::Button("Regenerate / reset")) {
        if (m.n_edit > kConfirmN && m.n_edit != m.n) {
            ImGui::OpenPopup("Regenerate?");
        } else {
            a.regenerate = true;
        }
    }
    tooltip_for_last("Makes the preset again with this N and seed (also resets the time).");
    if (ImGui::BeginPopupModal("Regenerate?", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
        std::string mem = format_bytes(double(host_bytes_needed(std::size_t(m.n_edit), m.precision)));
        ImGui::Text("Regenerate with N = %lld bodies?", static_cast<long long>(m.n_edit));
        ImGui::Text("Needs about %s of host memory; each step costs N^2 interactions.", mem.c_str());
        if (ImGui::Button("Regenerate")) {
            a.regenerate = true;
            ImGui::CloseCurrentPopup();
        }
        ImGui::SameLine();
        if (ImGui::Button("Cancel")) {
            m.n_edit = m.n;
            ImGui::CloseCurrentPopup();
        }
        ImGui::EndPopup();
    }
}

void backend_section(PanelModel& m, PanelActions& a, const PanelInfo& info) {
    if (!ImGui::CollapsingHeader("Backend", ImGuiTreeNodeFlags_DefaultOpen)) return;
    if (ImGui::BeginCombo("backend", m.backend.c_str())) {
        for (const auto& b : builtin_backends()) {
            ImGuiSelectableFlags flags = b.available ? 0 : ImGuiSelectableFlags_Disabled;
            if (ImGui::Selectable(b.name.c_str(), b.name == m.backend, flags) && b.available) {
                m.backend = b.name;
                a.switch_backend = true;
            }
            tooltip_for_last(b.available ? b.description.c_str() : b.unavailable_reason.c_str());
        }
        ImGui::EndCombo();
    }
    tooltip_for_last(
        "Switching keeps the exact state: positions and velocities are copied, not regenerated.");
    int prec = m.precision == Precision::f64 ? 1 : 0;
    ImGui::RadioButton("float", &prec, 0);
    ImGui::SameLine();
    ImGui::RadioButton("double", &prec, 1);
    Precision want = prec ? Precision::f64 : Precision::f32;
    if (want != m.precision) {
        m.precision = want;
        a.switch_backend = true;
    }
    // Say plainly why CUDA is off: a tooltip on a disabled entry is easy to miss.
    const BackendInfo* cuda = find_backend("cuda");
    if (cuda && !cuda->available) {
        ImGui::TextColored(ImVec4(1, 0.8f, 0.3f, 1), "CUDA off:");
        ImGui::SameLine();
        ImGui::TextWrapped("%s", cuda->unavailable_reason.c_str());
    }
    ImGui::TextWrapped("%s", info.gl_device.c_str());
    if (!info.cuda_device.empty()) ImGui::TextWrapped("%s", info.cuda_device.c_str());
    ImGui::Text("%s", info.transfer.c_str());
    if (!info.checkpoint.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("%s", info.checkpoint.c_str());
        ImGui::PopTextWrapPos();
        tooltip_for_last(
            "A full copy of the bodies kept to restore after a NaN/Inf. Not per frame: its cadence "
            "grows with its cost so it stays near 1% of the simulation time.");
    }
    if (!info.interop_note.empty())
        ImGui::TextColored(ImVec4(1, 0.8f, 0.3f, 1), "%s", info.interop_note.c_str());
}

void stats_section(const PanelInfo& info) {
    if (!ImGui::CollapsingHeader("Performance", ImGuiTreeNodeFlags_DefaultOpen)) return;
    ImGui::Text("N = %zu   t = %.4g   steps %lld   %.1f steps/s", info.n, info.sim_time,
                static_cast<long long>(info.steps_total), info.steps_per_s);
    plot("FPS", info.fps, "%.0f fps");
    plot("ms/frame", info.ms_frame, "%.2f ms");
    plot("ms/step", info.ms_step, "%.3f ms", "Wall time per simulation step (on the simulation thread).");
    plot("interactions/s", info.interactions, "%.3g /s",
         "N^2 body-body interactions per step, times steps/s.");
    plot("GFLOP/s", info.gflops, "%.1f GFLOP/s",
         "20 floating-point operations counted per interaction (the CUDA sample's convention).");
}

void energy_section(const PanelInfo& info) {
    if (!ImGui::CollapsingHeader("Energy", ImGuiTreeNodeFlags_DefaultOpen)) return;
    if (!info.have_energy) {
        ImGui::TextDisabled("computing...");
        return;
    }
    ImGui::Text("KE %.6g   PE %.6g", info.kinetic, info.potential);
    ImGui::Text("E  %.8g   |dE/E| %.3e", info.total, info.drift_now);
    plot("|dE/E|", info.drift, "%.2e",
         "Relative energy change since the state was loaded; measured a few times "
         "per second (the potential costs N^2).");
}

void view_section(PanelModel& m, PanelActions& a, const PanelInfo& info) {
    if (!ImGui::CollapsingHeader("View")) return;
    ImGui::SliderFloat("size (px)", &m.particles.size_px, 0.5f, 32.0f, "%.1f", ImGuiSliderFlags_Logarithmic);
    tooltip_for_last("Sprite diameter of a mean-mass body at the focus distance; grows with mass^(1/3).");
    ImGui::SliderFloat("brightness", &m.particles.brightness, 0.01f, 10.0f, "%.2f",
                       ImGuiSliderFlags_Logarithmic);
    int color = int(m.particles.color);
    ImGui::Combo("colour", &color, "by speed\0by mass\0white\0");
    m.particles.color = ColorMode(color);
    int splat = int(m.particles.splat);
    ImGui::Combo("drawing", &splat, "auto\0point sprites\0compute splat\0");
    m.particles.splat = SplatMode(splat);
    tooltip_for_last(
        "Point sprites use the raster pipeline; the compute splat adds each body's light with "
        "atomics in a compute shader (much faster for a million small bodies on compute GPUs, "
        "bodies above 4 px shrink to 4 px). Auto: compute from N = 262144 up.");
    if (!info.draw_path.empty()) {
        ImGui::SameLine();
        ImGui::TextDisabled("(%s)", info.draw_path.c_str());
    }
    ImGui::Checkbox("tone mapping", &m.tone.tone_map);
    tooltip_for_last("Logarithmic tone mapping keeps dense cores from saturating to flat white.");
    ImGui::SliderFloat("exposure", &m.tone.exposure, 0.05f, 20.0f, "%.2f", ImGuiSliderFlags_Logarithmic);
    if (ImGui::Checkbox("vsync", &m.vsync)) a.vsync_changed = true;
    ImGui::SameLine();
    if (ImGui::Checkbox("fullscreen (F)", &m.fullscreen)) a.fullscreen_changed = true;
    if (ImGui::Button("Fit to bodies")) a.fit_camera = true;
    ImGui::SameLine();
    if (ImGui::Button("Reset view (R)")) a.reset_camera = true;
    ImGui::SameLine();
    if (ImGui::Button("Screenshot (P)")) a.screenshot = true;
}

void help_overlay() {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(
        ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + vp->WorkSize.y * 0.5f),
        ImGuiCond_Always, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowBgAlpha(0.8f);
    ImGui::Begin(
        "Help", nullptr,
        ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings);
    ImGui::Text("Mouse: left drag orbit, right/middle drag pan, wheel zoom");
    ImGui::Text("Space  pause / run        S  single step");
    ImGui::Text("R      reset view         H  hide / show panel");
    ImGui::Text("F      fullscreen         P  screenshot (PNG)");
    ImGui::Text("F1 / ? this help          Esc quit");
    ImGui::End();
}

}  // namespace

PanelActions draw_panel(PanelModel& m, PanelInfo& info) {
    PanelActions a;
    if (m.show_help) help_overlay();
    if (!m.show_panel) return a;
    ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(380, 0), ImGuiCond_FirstUseEver);
    ImGui::Begin("nbody");
    if (!info.message.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextColored(ImVec4(1, 0.35f, 0.3f, 1), "%s", info.message.c_str());
        ImGui::PopTextWrapPos();
        if (ImGui::SmallButton("dismiss")) info.message.clear();
    }
    if (!info.screenshot_note.empty()) ImGui::TextDisabled("%s", info.screenshot_note.c_str());
    if (!info.busy.empty()) ImGui::TextColored(ImVec4(1, 0.8f, 0.3f, 1), "%s", info.busy.c_str());
    simulation_section(m, a, info);
    backend_section(m, a, info);
    stats_section(info);
    energy_section(info);
    view_section(m, a, info);
    ImGui::TextDisabled("H hides this panel, F1 for help");
    ImGui::End();
    return a;
}

}  // namespace nbody
