#include "panel.hpp"

#include <imgui.h>
#include <imgui_internal.h>  // BeginTooltipEx: a wrapped tooltip that replaces the item's own

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/registry.hpp"
#include "camera_path_panel.hpp"
#include "keys.hpp"
#include "record_panel.hpp"
#include "sim/collide/collision_mode.hpp"
#include "sim/gravity/force_algorithms.hpp"
#include "sim/gravity/force_solver.hpp"
#include "sim/integrate/integrators.hpp"
#include "sim/platform/memory.hpp"
#include "sim/presets.hpp"
#include "sim/run_settings.hpp"
#include "sim/util.hpp"

namespace nbody {

void History::push(float v) {
    data[std::size_t(next)] = v;
    next = (next + 1) % kLen;
    count = std::min(count + 1, kLen);
}

std::vector<float> History::values() const {
    std::vector<float> out;
    out.reserve(std::size_t(count));
    int start = count == kLen ? next : 0;
    for (int i = 0; i < count; ++i) out.push_back(data[std::size_t((start + i) % kLen)]);
    return out;
}

namespace {

const ImVec4 kWarn(1, 0.8f, 0.3f, 1);

// A tooltip wrapped at about 35 characters of the current font, so it stays on screen at a projector's
// scale too. It replaces any tooltip the item set itself (PlotHistogram's "index: value"), as SetTooltip
// does.
void wrapped_tooltip(const char* text) {
    ImGui::BeginTooltipEx(ImGuiTooltipFlags_OverridePreviousTooltip, ImGuiWindowFlags_None);
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 35.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

void tooltip_for_last(const char* text) {
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) wrapped_tooltip(text);
}

// A plot with its scale beside it (max on top, min below, never over the line) and the current value in
// the caption. log10: plots log10 of the values (|dE/E| spans decades), labels stay in linear units.
void plot(const char* label, const History& h, const char* fmt, bool log10 = false,
          const char* tooltip = nullptr, const std::string& suffix = "") {
    std::vector<float> v = h.values();
    float lo = FLT_MAX, hi = -FLT_MAX;
    for (float& x : v) {
        // log10: zeros (nothing measured yet, or exact) sit at the bottom, not at 1e-300.
        if (log10) x = x > 0 ? std::log10(x) : -FLT_MAX;
        if (x != -FLT_MAX) lo = std::min(lo, x);
        hi = std::max(hi, x);
    }
    if (lo > hi) lo = hi = 0;
    if (log10) {
        hi = std::ceil(hi);                        // whole decades: the scale reads 1e-7 .. 1e-4
        lo = std::max(std::floor(lo), hi - 8.0f);  // at most 8 decades: early round-off stays readable
        if (hi <= lo) hi = lo + 1;
        for (float& x : v) x = std::max(x, lo);
    } else if (hi - lo < 1e-6f * std::max(std::abs(hi), 1e-30f)) {
        hi = lo + std::max(std::abs(lo) * 0.1f, 1e-6f);
    }
    char caption[96], top[32], bottom[32];
    int len = std::snprintf(caption, sizeof caption, "%s  ", label);
    std::snprintf(caption + len, sizeof caption - std::size_t(len), fmt, double(h.last()));
    ImGui::TextUnformatted((caption + suffix).c_str());
    if (tooltip) tooltip_for_last(tooltip);
    // + 0.0 turns -0 into 0: the scale reads 1e+0, never 1e-0.
    std::snprintf(top, sizeof top, log10 ? "1e%+.0f" : "%.3g", double(hi) + 0.0);
    std::snprintf(bottom, sizeof bottom, log10 ? "1e%+.0f" : "%.3g", double(lo) + 0.0);
    const float scale_w = ImGui::CalcTextSize("-0.000e+00").x;
    // The scale beside it is two lines; in lines of the current font, so it grows with the UI scale.
    const float height = 2.0f * ImGui::GetTextLineHeightWithSpacing();
    ImGui::PushID(label);
    ImGui::PlotLines(
        "##plot", v.data(), int(v.size()), 0, nullptr, lo, hi,
        ImVec2(ImGui::GetContentRegionAvail().x - scale_w - ImGui::GetStyle().ItemSpacing.x, height));
    if (tooltip) tooltip_for_last(tooltip);
    ImGui::SameLine();
    ImGui::BeginGroup();
    ImGui::TextDisabled("%s", top);
    ImGui::Dummy(ImVec2(scale_w, height - 2.0f * ImGui::GetTextLineHeightWithSpacing()));
    ImGui::TextDisabled("%s", bottom);
    ImGui::EndGroup();
    ImGui::PopID();
}

// A logarithmic slider over [lo, hi] that cannot leave its range: it slides over the exponent, so no
// input (a click, a 2-pixel drag, a drag past either end) maps outside. ImGui 1.86's own logarithmic
// mode derives a "zero" epsilon from the format's precision and breaks with %e formats (dt = 10 with a
// maximum of 1). zero_at_left: the far left means exactly 0 (softening).
// zero_at_left: the far left is 0 (shown as zero_text if given).
bool log_slider(const char* label, double& v, double lo, double hi, const char* fmt,
                bool zero_at_left = false, const char* zero_text = nullptr) {
    const double l0 = std::log10(lo), l1 = std::log10(hi);
    float t = v <= 0 ? 0.0f : float((std::log10(std::clamp(v, lo, hi)) - l0) / (l1 - l0));
    char text[48];
    std::snprintf(text, sizeof text, fmt, v);
    if (zero_at_left && zero_text && v <= 0) std::snprintf(text, sizeof text, "%s", zero_text);
    // The shown text is the value, escaped so the slider prints it literally.
    std::string shown;
    for (const char* c = text; *c; ++c) shown += *c == '%' ? std::string("%%") : std::string(1, *c);
    bool changed = ImGui::SliderFloat(label, &t, 0.0f, 1.0f, shown.c_str(),
                                      ImGuiSliderFlags_AlwaysClamp | ImGuiSliderFlags_NoInput);
    if (changed) {
        t = std::clamp(t, 0.0f, 1.0f);
        v = zero_at_left && t <= 0.0f ? 0.0 : std::pow(10.0, l0 + double(t) * (l1 - l0));
        v = zero_at_left && v == 0.0 ? 0.0 : std::clamp(v, lo, hi);
    }
    return changed;
}

bool slider_double(const char* label, double& v, double lo, double hi, const char* fmt) {
    double x = std::clamp(v, lo, hi);
    bool changed =
        ImGui::SliderScalar(label, ImGuiDataType_Double, &x, &lo, &hi, fmt, ImGuiSliderFlags_AlwaysClamp);
    if (changed) v = std::clamp(x, lo, hi);
    return changed;
}

// A slider per setting of the chosen force algorithm or integrator, over the setting's own range; where
// there are several, two share a row (hermite's eta and neighbours: the Simulation tab fits 720 pixels so).
// A setting that needs another (eta-regular: the neighbour scheme on) shows only while that one is nonzero.
void settings_controls(Params& p, const std::vector<SettingInfo>& all) {
    std::vector<const SettingInfo*> settings;
    for (const SettingInfo& s : all) {
        if (setting_acts(p, s)) settings.push_back(&s);
    }
    const bool paired = settings.size() >= 2;
    const ImGuiStyle& style = ImGui::GetStyle();
    float width = 0;  // of each slider in the current row
    for (std::size_t k = 0; k < settings.size(); ++k) {
        const SettingInfo& s = *settings[k];
        if (paired && k % 2 == 0) {  // a row: this setting and the next, if any, share its width
            const std::size_t in_row = std::min<std::size_t>(2, settings.size() - k);
            float labels = 0;
            for (std::size_t r = k; r < k + in_row; ++r)
                labels += ImGui::CalcTextSize(settings[r]->name).x + style.ItemInnerSpacing.x;
            const float spacing = style.ItemSpacing.x * float(in_row - 1);
            width = std::max(40.0f, (ImGui::GetContentRegionAvail().x - labels - spacing) / float(in_row));
        } else if (paired) {
            ImGui::SameLine();
        }
        if (paired) ImGui::SetNextItemWidth(width);
        // The neighbour scheme does not resolve collisions (check_block_model): 0 while they are on.
        const bool locked = s.field == &Params::neighbours && p.collisions != CollisionMode::off;
        if (locked) ImGui::BeginDisabled();
        if (s.logarithmic && s.whole && s.min == 0) {
            // Neighbours 0 (off), then 1..1024 by decades: a linear slider gave ~9 per pixel, so the
            // values that matter (16-64) were a few pixels wide.
            if (log_slider(s.name, p.*s.field, 1.0, s.max, "%.0f", true, "0: off"))
                p.*s.field = std::round(p.*s.field);  // whole numbers only (validate_params)
        } else if (s.logarithmic && s.least_nonzero > 0) {
            const std::string zero = s.zero_means ? std::string("0: ") + s.zero_means : std::string("0");
            log_slider(s.name, p.*s.field, s.least_nonzero, s.max, "%.3g", true, zero.c_str());
        } else if (s.logarithmic) {
            log_slider(s.name, p.*s.field, s.min, s.max, "%.3g");
        } else if (s.whole) {
            int x = int(std::lround(std::clamp(p.*s.field, s.min, s.max)));
            if (ImGui::SliderInt(s.name, &x, int(s.min), int(s.max), "%d", ImGuiSliderFlags_AlwaysClamp))
                p.*s.field = std::clamp(double(x), s.min, s.max);
        } else
            slider_double(s.name, p.*s.field, s.min, s.max, "%.3g");
        if (locked) ImGui::EndDisabled();
        tooltip_for_last(locked ? "0 while collisions are on: the neighbour scheme does not resolve them."
                                : setting_help(s).c_str());
    }
}

// Bodies per time-step level of an adaptive integrator: level L steps dt / 2^L (dt is the max step).
void level_histogram(const PanelInfo& info) {
    if (info.level_counts.empty()) {
        ImGui::TextDisabled("levels: measuring...");
        return;
    }
    std::vector<float> counts(info.level_counts.begin(), info.level_counts.end());
    std::size_t first = 0;  // the plot starts at the coarsest level that has bodies
    while (first + 1 < counts.size() && counts[first] == 0) ++first;
    // The tallest bar's count gives the bars a scale.
    const float peak = *std::max_element(counts.begin(), counts.end());
    // Every body at level 0: the max step binds them all (a preset's dt, tuned for a fixed step, often does),
    // and the steps cannot adapt: the label and the tooltip say so.
    const bool bound = std::all_of(counts.begin() + 1, counts.end(), [](float c) { return c == 0; });
    char label[64];
    if (bound)
        std::snprintf(label, sizeof label, "all %.0f at level 0: the max step binds", double(peak));
    else
        std::snprintf(label, sizeof label, "levels %zu-%zu (tallest %.0f)", first, counts.size() - 1,
                      double(peak));
    const int bars = int(counts.size() - first);
    // In lines of the current font (the 48 pixels it had at scale 1; it grows with the UI scale); the tallest
    // bar reaches 60% of the height, below the label's line, which so never covers a bar.
    ImGui::PlotHistogram("##levels", counts.data() + first, bars, 0, label, 0.0f, std::max(1.0f, peak) / 0.6f,
                         ImVec2(0, 2.8f * ImGui::GetTextLineHeightWithSpacing()));
    if (ImGui::IsItemHovered()) {
        // The hovered bar's level and count (ImGui's own tooltip gives only its index within the plot),
        // found as ImGui finds the bar: across the frame less its padding.
        const float pad = ImGui::GetStyle().FramePadding.x;
        const float lo = ImGui::GetItemRectMin().x + pad, hi = ImGui::GetItemRectMax().x - pad;
        const float f = (ImGui::GetIO().MousePos.x - lo) / std::max(1.0f, hi - lo);
        const int bar = std::clamp(int(f * float(bars)), 0, bars - 1);
        const std::size_t level = first + std::size_t(bar);
        char text[512];
        std::snprintf(
            text, sizeof text,
            "level %zu (steps of dt / 2^%zu): %.0f bodies\n\nBodies per time-step level: level L steps "
            "dt / 2^L (dt is the max step). Close encounters push bodies to the right; most bodies of "
            "a quiet system sit on the left.%s",
            level, level, double(counts[level]),
            bound
                ? "\n\nEvery body is at level 0: each one's accuracy allows longer steps than the max step, "
                  "so the steps cannot adapt. A larger max step lets them."
                : "");
        wrapped_tooltip(text);
    }
}

void force_controls(PanelModel& m, const PanelInfo& info) {
    std::string cur = to_string(m.params.force);
    if (ImGui::BeginCombo("force", cur.c_str())) {
        for (const auto& f : builtin_force_algorithms()) {
            // An adaptive integrator needs the direct sum's jerk (check_block_model): the others are greyed.
            const bool usable =
                !integrator_info(m.params.integrator).adaptive || f.id == ForceAlgorithm::direct;
            if (ImGui::Selectable(f.name, f.id == m.params.force, usable ? 0 : ImGuiSelectableFlags_Disabled))
                m.params.force = f.id;
            if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
                wrapped_tooltip(usable ? f.description
                                       : (std::string(f.description) + " (not with " +
                                          to_string(m.params.integrator) +
                                          ", which needs the direct sum's jerk: choose leapfrog or yoshida4 "
                                          "for it)")
                                             .c_str());
        }
        ImGui::EndCombo();
    }
    tooltip_for_last("Force algorithm; a change takes effect at the next step.");
    settings_controls(m.params, force_algorithm_info(m.params.force).settings);
    if (force_algorithm_info(m.params.force).approximate) {
        if (info.have_force_error) {
            ImGui::TextUnformatted(info.force_error.c_str());
            if (ImGui::IsItemHovered()) {
                ImGui::SetTooltip(
                    "Relative force error |a_tree - a_direct| / |a_direct| of the accelerations the steps "
                    "use, "
                    "on a fixed sample of bodies, against the float64 direct sum on that sample only; "
                    "re-measured every so often and whenever a setting changes.\n%s",
                    info.force_error_where.c_str());
            }
        } else {
            ImGui::TextDisabled("force error: measuring...");
        }
        if (info.interactions_per_body > 0)
            ImGui::Text("%.0f interactions / body / step", info.interactions_per_body);
    }
}

void time_controls(PanelModel& m, PanelActions& a, const PanelInfo& info) {
    if (ImGui::Button(m.paused ? "Run (Space)" : "Pause (Space)")) {
        m.paused = !m.paused;
        a.pause_changed = true;
    }
    ImGui::SameLine();
    if (ImGui::Button("Step (S)")) a.single_step = true;
    ImGui::SameLine();
    // An adaptive integrator chooses its steps going forward: negating the velocities does not retrace it.
    const bool adaptive = integrator_info(m.params.integrator).adaptive;
    ImGui::BeginDisabled(adaptive);
    // The greyed button says it is off in plain sight (issue 21), its tooltip says why.
    if (ImGui::Button(reverse_button_label(adaptive, info.reversed))) a.reverse = true;
    ImGui::EndDisabled();
    if (adaptive) {
        if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
            ImGui::SetTooltip(
                "Off with %s: each body's step is chosen going forward, so stepping back does not retrace "
                "the motion. Choose leapfrog or yoshida4 to reverse.",
                to_string(m.params.integrator));
    } else {
        tooltip_for_last(
            "Runs time backwards: every step takes -dt, and leapfrog is time-reversible, so the motion "
            "retraces itself back to the start while t counts down (a classic demonstration; try the "
            "figure-eight).");
    }
    // Beside the buttons: the panel fits 720 px with a status line.
    ImGui::SameLine();
    ImGui::PushItemWidth(-1);
    ImGui::SliderInt("##steps_per_frame", &m.steps_per_frame, 1, kMaxStepsPerFrame, "%d / frame",
                     ImGuiSliderFlags_AlwaysClamp);
    ImGui::PopItemWidth();
    m.steps_per_frame = std::clamp(m.steps_per_frame, 1, kMaxStepsPerFrame);
    tooltip_for_last(
        "Steps granted per rendered frame. The simulation runs on its own thread: when one step "
        "takes longer than a frame, the window stays responsive and steps/s shows the real rate.");
    ImGui::TextUnformatted(clock_text(info).c_str());
    if (info.reversed) {
        tooltip_for_last(
            "Time runs backwards: each step takes -dt, so t and the step count go down and the motion "
            "retraces itself. B again runs it forward.");
    }
    if (info.adaptive && info.neighbour_updates_total > 0) {
        ImGui::Text("%lld blocks  %.3g full  %.3g neighbour", static_cast<long long>(info.blocks_total),
                    double(info.body_updates_total), double(info.neighbour_updates_total));
        tooltip_for_last(
            "Hermite block steps with the neighbour scheme: each block advances only the bodies due at its "
            "time, each against its neighbour list; a full evaluation (one body's force and jerk against all "
            "N) comes only at the body's regular steps.");
    } else if (info.adaptive) {
        ImGui::Text("%lld blocks  %.3g force+jerk evaluations", static_cast<long long>(info.blocks_total),
                    double(info.body_updates_total));
        tooltip_for_last(
            "Hermite block steps: each block advances only the bodies due at its time; an evaluation is one "
            "body's force and jerk against all N.");
    }
    if (info.adaptive && info.max_step_share >= 0) {
        ImGui::ProgressBar(
            float(info.max_step_share), ImVec2(-1, 0),
            ("max step under way: " + std::to_string(int(100 * info.max_step_share)) + "%, " +
             std::to_string(info.max_step_blocks) + (info.max_step_blocks == 1 ? " block" : " blocks"))
                .c_str());
        tooltip_for_last(
            "The bodies are drawn as the last max step left them: each one runs on its own clock inside a "
            "max step, and the picture moves on when every body has reached its end. A smaller max step "
            "shows the motion more often.");
    }
}

// Collisions: off / merge / bounce, the restitution for bounce, and what they did so far.
void collision_controls(PanelModel& m, const PanelInfo& info) {
    if (ImGui::BeginCombo("collisions", to_string(m.params.collisions))) {
        for (const CollisionMode c : {CollisionMode::off, CollisionMode::merge, CollisionMode::bounce}) {
            if (ImGui::Selectable(to_string(c), c == m.params.collisions)) {
                m.params.collisions = c;
                // The neighbour scheme does not resolve collisions (check_block_model): it goes off.
                if (c != CollisionMode::off) m.params.neighbours = 0;
            }
        }
        ImGui::EndCombo();
    }
    tooltip_for_last(
        integrator_info(m.params.integrator).adaptive && m.backend == "cuda"
            ? "What touching bodies do: off, merge or bounce. With hermite on cuda, collisions run the block "
              "steps on host copies of the bodies (OpenMP, the openmp backend's results), not on the device."
            : "What touching bodies do: pass through (off), merge into one (mass, momentum and centre of "
              "mass "
              "kept, volumes added) or bounce as hard spheres. Bodies without a radius get one from their "
              "mass "
              "and the density.");
    if (m.params.collisions == CollisionMode::bounce) {
        slider_double("restitution", m.params.restitution, 0.0, 1.0, "%.2f");
        tooltip_for_last("The share of the approach speed kept after a bounce: 1 elastic, 0 they stick.");
    }
    if (m.params.collisions != CollisionMode::off || info.merges_total + info.bounces_total > 0) {
        ImGui::Text("%lld merges  %lld bounces  E lost %.3g", static_cast<long long>(info.merges_total),
                    static_cast<long long>(info.bounces_total), info.energy_lost);
        tooltip_for_last(
            "Since the bodies were loaded. The energy a collision removes (kinetic, and the pair's own "
            "potential for a merger) is added back for |dE/E|, so the plot shows the integrator's error.");
    }
}

void stall_note(const PanelModel& m);

void physics_tab(PanelModel& m, const PanelInfo& info) {
    if (integrator_info(m.params.integrator).adaptive) {
        log_slider("max step", m.params.dt, kMinDt, kMaxDt,
                   ("%.2e" + unit_text(info, Quantity::time)).c_str());
        tooltip_for_last(
            "The longest step any body takes (logarithmic); each body's own step is dt / 2^level, chosen "
            "by eta. Block times are exact fractions of it, so every body meets the others at each max "
            "step.");
    } else {
        log_slider("dt", m.params.dt, kMinDt, kMaxDt, ("%.2e" + unit_text(info, Quantity::time)).c_str());
        tooltip_for_last("Time step (logarithmic). Too large and close encounters blow up: watch |dE/E|.");
    }
    log_slider("softening", m.params.softening, 1e-4, kMaxSoftening,
               ("%.4f" + unit_text(info, Quantity::length)).c_str(), true);
    tooltip_for_last("Plummer softening length: smooths close encounters (far left: 0).");
    slider_double("damping", m.params.damping, kMinDamping, kMaxDamping, "%.5f");
    tooltip_for_last("Velocity factor applied once per step (1 = none).");
    log_slider("G", m.params.G, kMinG, kMaxG, "%.4g");

    if (ImGui::BeginCombo("integrator", integrator_label(integrator_info(m.params.integrator)).c_str())) {
        for (const auto& i : builtin_integrators()) {
            if (ImGui::Selectable(integrator_label(i).c_str(), i.id == m.params.integrator)) {
                m.params.integrator = i.id;
                // An adaptive integrator needs the direct sum's jerk (check_block_model).
                if (i.adaptive) m.params.force = ForceAlgorithm::direct;
            }
            if (ImGui::IsItemHovered()) wrapped_tooltip(i.description);
        }
        ImGui::EndCombo();
    }
    settings_controls(m.params, integrator_info(m.params.integrator).settings);
    if (integrator_info(m.params.integrator).adaptive) level_histogram(info);
    stall_note(m);
    collision_controls(m, info);
    force_controls(m, info);
}

// A paragraph wrapped at the window's edge by wrap_at_spaces, one line of text each, in the style's text
// colour or (disabled) its dimmed one. ImGui's own wrap also breaks after '.' and ',': "(0.2 kpc/Myr" was
// drawn as "(0." over "2 kpc/Myr".
void paragraph(const std::string& text, bool disabled = false) {
    const float width = ImGui::GetContentRegionAvail().x;
    const auto measure = [](std::string_view s) {
        return ImGui::CalcTextSize(s.data(), s.data() + s.size()).x;
    };
    if (disabled) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    const std::vector<std::string> lines = wrap_at_spaces(text, width, measure);
    // Lines as close as TextWrapped's: no item spacing inside the paragraph, only after it.
    ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(ImGui::GetStyle().ItemSpacing.x, 0));
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (i + 1 == lines.size()) ImGui::PopStyleVar();
        ImGui::TextUnformatted(lines[i].c_str());
    }
    if (disabled) ImGui::PopStyleColor();
}

// Before it happens: block steps in float at softening 0 are likely to stall (block_steps_may_stall),
// which stops the run (the status line then says which body); in float an eta below kFloatEtaFloor lets
// rounding set some bodies' steps (eta_below_float_floor).
void stall_note(const PanelModel& m) {
    const bool stall = block_steps_may_stall(m.params, m.precision);
    const bool rounding = eta_below_float_floor(m.params, m.precision);
    if (!stall && !rounding) return;
    ImGui::PushStyleColor(ImGuiCol_Text, kWarn);
    if (stall)
        paragraph(
            "float at softening 0: an encounter closer than float resolves can make a body's steps "
            "too short to move it, which stops the run; double precision or a softening avoids it.");
    if (rounding)
        paragraph("float below eta " + format_g(kFloatEtaFloor) +
                  ": rounding, not the orbits, sets some bodies' steps (many more blocks, no more "
                  "accuracy); double precision takes a smaller eta.");
    ImGui::PopStyleColor();
}

// Log slider for N with a typed field beside it, and what that N needs.
void n_slider(PanelModel& m) {
    double n = double(std::clamp(m.n_edit, kMinSliderN, kMaxSliderN));
    float w = ImGui::CalcItemWidth();
    const float field = ImGui::CalcTextSize("16777216").x + 2 * ImGui::GetStyle().FramePadding.x;
    ImGui::PushItemWidth(w - field - ImGui::GetStyle().ItemInnerSpacing.x);
    if (log_slider("##N", n, double(kMinSliderN), double(kMaxSliderN), "%.0f")) {
        // Round to 2 significant digits: 4096 and 65536 stay reachable through typing.
        double p = std::pow(10.0, std::floor(std::log10(n)) - 1);
        m.n_edit = std::int64_t(std::llround(std::round(n / p) * p));
    }
    ImGui::PopItemWidth();
    ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
    ImGui::PushItemWidth(field);
    ImGui::InputScalar("N", ImGuiDataType_S64, &m.n_edit);
    ImGui::PopItemWidth();
    tooltip_for_last("Drag the slider (logarithmic) or type N; Regenerate applies it.");
    m.n_edit = std::clamp<std::int64_t>(m.n_edit, 1, kMaxSliderN);
    std::string mem = format_bytes(double(host_bytes_needed(std::size_t(m.n_edit), m.precision)));
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("needs %s host memory; %.2g interactions a direct-sum evaluation of every body",
                        mem.c_str(), double(m.n_edit) * double(m.n_edit));
    ImGui::PopTextWrapPos();
}

void scene_tab(PanelModel& m, PanelActions& a) {
    if (ImGui::BeginCombo("preset", m.preset.c_str())) {
        for (const auto& p : presets()) {
            if (ImGui::Selectable(p.name.c_str(), p.name == m.preset)) {
                m.preset_choice = p.name;
                if (m.n_edit > kConfirmN || m.n > kConfirmN) {
                    // Opened below, outside the combo's popup stack.
                } else {
                    m.preset = p.name;
                    m.preset_choice.clear();
                    a.load_preset = true;
                }
            }
            if (ImGui::IsItemHovered()) wrapped_tooltip(p.description.c_str());
        }
        ImGui::EndCombo();
    }
    tooltip_for_last("Loads the preset with its own dt, softening and G.");
    scenario_notes(m);
    if (!m.preset_choice.empty() && !ImGui::IsPopupOpen("Load preset?")) ImGui::OpenPopup("Load preset?");
    if (ImGui::BeginPopupModal("Load preset?", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
        ImGui::Text("Load '%s' with N = %lld? The current run is replaced.", m.preset_choice.c_str(),
                    static_cast<long long>(m.n_edit));
        if (ImGui::Button("Load")) {
            m.preset = m.preset_choice;
            m.preset_choice.clear();
            a.load_preset = true;
            ImGui::CloseCurrentPopup();
        }
        ImGui::SameLine();
        if (ImGui::Button("Cancel")) {
            m.preset_choice.clear();
            ImGui::CloseCurrentPopup();
        }
        ImGui::EndPopup();
    }
    n_slider(m);
    ImGui::InputScalar("seed", ImGuiDataType_U64, &m.seed);
    if (ImGui::Button("Regenerate / reset")) {
        if (m.n_edit > kConfirmN && m.n_edit != m.n) {
            ImGui::OpenPopup("Regenerate?");
        } else {
            a.regenerate = true;
        }
    }
    tooltip_for_last(
        "Makes the preset again with this N and seed, keeping dt and softening (resets the time).");
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
    ImGui::Separator();
    log_slider("new body mass", m.add_mass, 1e-6, 10.0, "%.3g", true, "median mass");
    tooltip_for_last(
        "Shift + left drag in the view drops a body here with the dragged velocity "
        "(far left: the median mass).");
}

void picked_section(PanelModel& m, const PanelInfo& info) {
    const PickedBody& p = info.picked;
    if (!p.valid) {
        ImGui::TextDisabled("click a body to select it");
        return;
    }
    if (p.radius > 0)
        ImGui::Text("body %lld  m %.4g%s%s  r %.4g", static_cast<long long>(p.index), p.mass,
                    info.mass_unit.empty() ? "" : " ", info.mass_unit.c_str(), p.radius);
    else
        ImGui::Text("body %lld  m %.4g%s%s", static_cast<long long>(p.index), p.mass,
                    info.mass_unit.empty() ? "" : " ", info.mass_unit.c_str());
    ImGui::SameLine();
    ImGui::Checkbox("follow (L)", &m.follow_selected);
    ImGui::SameLine();
    if (ImGui::SmallButton("deselect")) {
        m.selected = -1;
        m.follow_selected = false;
    }
    const double dist = std::sqrt(p.pos[0] * p.pos[0] + p.pos[1] * p.pos[1] + p.pos[2] * p.pos[2]);
    ImGui::Text("x (%.4g, %.4g, %.4g)  |x| %.4g%s", p.pos[0], p.pos[1], p.pos[2], dist,
                unit_text(info, Quantity::length).c_str());
    tooltip_for_last("Position; |x| is the distance from the origin, the centre of mass of a preset.");
    double speed = std::sqrt(p.vel[0] * p.vel[0] + p.vel[1] * p.vel[1] + p.vel[2] * p.vel[2]);
    ImGui::Text("v (%.4g, %.4g, %.4g)  |v| %.4g%s", p.vel[0], p.vel[1], p.vel[2], speed,
                unit_text(info, Quantity::speed).c_str());
    if (p.have_potential) {
        ImGui::Text("KE %.4g  PE %.4g%s", p.kinetic, p.potential, unit_text(info, Quantity::energy).c_str());
    } else {
        ImGui::Text("KE %.4g%s", p.kinetic, unit_text(info, Quantity::energy).c_str());
    }
}

// A colour bar with the numbers at its ends and what it shows after them.
void color_bar(const std::function<Rgb(float)>& color, double lo, double hi, const char* what) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ImVec2 p = ImGui::GetCursorScreenPos();
    float w = ImGui::CalcItemWidth(), h = ImGui::GetTextLineHeight() * 0.8f;
    const int steps = 32;
    for (int i = 0; i < steps; ++i) {
        auto col = [&](float t) {
            Rgb c = color(t);
            return ImGui::GetColorU32(ImVec4(c.r, c.g, c.b, 1));
        };
        float x0 = p.x + w * float(i) / steps, x1 = p.x + w * float(i + 1) / steps;
        ImU32 a = col(float(i) / steps), b = col(float(i + 1) / steps);
        dl->AddRectFilledMultiColor(ImVec2(x0, p.y), ImVec2(x1, p.y + h), a, b, b, a);
    }
    ImGui::Dummy(ImVec2(w, h));
    char right[32];
    std::snprintf(right, sizeof right, "%.3g", hi);
    float x0 = ImGui::GetCursorPosX();
    ImGui::TextDisabled("%.3g", lo);
    ImGui::SameLine(x0 + std::max(0.0f, w - ImGui::CalcTextSize(right).x));
    ImGui::TextDisabled("%s", right);
    ImGui::SameLine(x0 + w + ImGui::GetStyle().ItemInnerSpacing.x);
    ImGui::TextDisabled("%s", what);
}

// The body colour map's legend: a bar for a quantity (speed; mass and |a| on a log scale; the light per
// pixel for density), one swatch per body set for group.
void color_legend(const PanelModel& m, const PanelInfo& info) {
    const ColorMode mode = m.particles.color;
    if (mode == ColorMode::white || mode == ColorMode::classic) return;
    if (mode == ColorMode::group) {
        const auto& starts = info.stats.groups.starts;
        for (std::size_t g = 0; g < starts.size(); ++g) {
            const Rgb c = group_color(int(g));
            if (g > 0) ImGui::SameLine();
            ImGui::ColorButton("##set", ImVec4(c.r, c.g, c.b, 1), ImGuiColorEditFlags_NoTooltip,
                               ImVec2(ImGui::GetTextLineHeight(), ImGui::GetTextLineHeight()));
            ImGui::SameLine();
            ImGui::TextDisabled("set %zu", g + 1);
        }
        tooltip_for_last(
            "Each body set of the preset (the collision's two galaxies; a central mass and the "
            "rest) in its own colour.");
        return;
    }
    const ColorMap map = m.particles.colormap;
    auto ramp = [map](float t) { return ramp_color(t, map); };
    if (mode == ColorMode::density) {
        color_bar(ramp, 0, 1, "light per pixel (log, 1 = white point)");
        return;
    }
    if (mode == ColorMode::potential) {
        // log(-phi) from the shallow end to the deep end; the bar's ends are phi itself.
        const ColorRange r = color_range(m.particles, info.stats);
        color_bar(ramp, -std::exp(double(r.lo)), -std::exp(double(r.hi)), "phi (log depth)");
        ImGui::TextDisabled("%s", info.phi_note.empty() ? "computing potentials..." : info.phi_note.c_str());
        tooltip_for_last(
            "Each body's potential from all the others (G included), by the force solver the run uses, "
            "where the bodies live. Recomputed at most every half second, and less often when one "
            "evaluation is slow (at least 20 times its duration apart); between them the colours lag.");
        return;
    }
    if (mode == ColorMode::local_density) {
        const ColorRange r = color_range(m.particles, info.stats);
        color_bar(ramp, std::exp(double(r.lo)), std::exp(double(r.hi)), "mass / volume (log)");
        ImGui::TextDisabled("%s", info.phi_note.empty() ? "computing densities..." : info.phi_note.c_str());
        tooltip_for_last(
            "Each body's 3D local density: the mass in the 3x3x3 cells of a grid around it over their "
            "volume, the cells sized so a body in the bulk has about 64 neighbours there. Recomputed like "
            "the "
            "potential colours; 'by density' instead shows the light piled on each pixel.");
        return;
    }
    ColorRange r = color_range(m.particles, info.stats);
    const bool log_scale = mode == ColorMode::mass || mode == ColorMode::accel;
    double lo = log_scale ? std::exp(double(r.lo)) : double(r.lo),
           hi = log_scale ? std::exp(double(r.hi)) : double(r.hi);
    color_bar(ramp, lo, hi,
              mode == ColorMode::mass    ? "mass (log)"
              : mode == ColorMode::accel ? "|a| (log)"
                                         : "speed");
}

void view_tab(PanelModel& m, PanelActions& a, const PanelInfo& info) {
    int color = int(m.particles.color);
    // In ColorMode's order.
    ImGui::PushItemWidth(ImGui::CalcItemWidth() * 0.6f);  // the colour map's combo shares the line
    ImGui::Combo("colour", &color,
                 "by speed\0by mass\0white\0by set\0by |a|\0by density\0orange (classic)\0by potential\0"
                 "by local density\0");
    ImGui::PopItemWidth();
    m.particles.color = ColorMode(std::clamp(color, 0, 6));
    tooltip_for_last(
        "set: each galaxy or body set its own hue; |a|: the force solver's accelerations; density: the "
        "light piled up on each pixel (the projected density), coloured after drawing; potential: how deep "
        "each body sits in the others' potential well (computed a few times a second, not every frame).");
    int map = int(m.particles.colormap);
    ImGui::SameLine();
    ImGui::PushItemWidth(ImGui::GetFontSize() * 5);
    ImGui::Combo("##map", &map, "ember\0viridis\0ice\0");
    ImGui::PopItemWidth();
    tooltip_for_last("The colour map: ember (red-orange-white-blue), viridis (even lightness steps), ice.");
    m.particles.colormap = ColorMap(std::clamp(map, 0, 2));
    color_legend(m, info);
    // Size and brightness share a line: the View tab fits 1280x720 without scrolling.
    ImGui::PushItemWidth(ImGui::CalcItemWidth() * 0.42f);
    ImGui::SliderFloat("size", &m.particles.size_px, 0.5f, 32.0f, "%.1f px",
                       ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    tooltip_for_last("Sprite diameter of a median-mass body at the focus distance; grows with mass^(1/3).");
    ImGui::SameLine();
    ImGui::SliderFloat("brightness", &m.particles.brightness, 0.01f, 10.0f, "%.2f",
                       ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    ImGui::PopItemWidth();
    ImGui::Checkbox("trails (T)", &m.trails);
    ImGui::SameLine();
    ImGui::PushItemWidth(ImGui::CalcItemWidth() * 0.5f);
    ImGui::SliderInt("length", &m.trail_length, 2, 512, "%d",
                     ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    ImGui::PopItemWidth();
    m.trail_length = std::clamp(m.trail_length, 2, 512);
    tooltip_for_last("Positions kept per body (a ring buffer on the GPU), one per drawn update.");
    ImGui::SameLine();
    ImGui::Checkbox("grid (X)", &m.grid);
    tooltip_for_last(
        "A grid in the plane z = 0 with the x (red) and y (green) axes. Its lines are one scale bar apart: "
        "the bar in the lower right corner names the spacing, in the scenario's units.");
    ImGui::Checkbox("velocity (V)", &m.vectors);
    tooltip_for_last("Velocity arrows, in each body's colour.");
    ImGui::SameLine();
    ImGui::Checkbox("accel. (A)", &m.accel_vectors);
    tooltip_for_last(
        "Acceleration arrows (green), from the force solver's accelerations where the bodies live (a GPU "
        "writes them straight into the vertex buffer).");
    ImGui::SameLine();
    ImGui::PushItemWidth(-1);
    ImGui::SliderFloat("##vscale", &m.vector_scale, 0.05f, 20.0f, "x%.2f",
                       ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    ImGui::PopItemWidth();
    tooltip_for_last("Arrow length: x1 draws a typical speed (or acceleration) a tenth of the view high.");
    ImGui::Checkbox("potential (G)", &m.potential);
    ImGui::SameLine();
    ImGui::PushItemWidth(ImGui::CalcItemWidth() * 0.5f);
    ImGui::SliderInt("grid", &m.potential_res, 16, 512, "%d",
                     ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
    ImGui::PopItemWidth();
    m.potential_res = std::clamp(m.potential_res, 16, 512);
    if (m.potential) {
        color_bar(potential_ramp_color, info.potential_min, info.potential_max,
                  info.potential_log ? "potential (log)" : "potential");
        tooltip_for_last(
            "The gravitational potential on the slice through the view's centre, facing the camera, with "
            "contour lines. The colours span the whole slice, from the bottom of the deepest well (left "
            "end) to the highest point (right end); log: equal colour steps are equal ratios of depth "
            "-phi, so deep wells keep the rest readable.");
        if (!info.potential_note.empty()) {
            ImGui::PushTextWrapPos(0.0f);
            ImGui::TextDisabled("%s", info.potential_note.c_str());
            ImGui::PopTextWrapPos();
        }
    }

    if (ImGui::TreeNode("drawing")) {
        int look = int(m.look);
        if (ImGui::Combo("look", &look, "nbody\0classic (CUDA sample)\0")) {
            m.look = Look(std::clamp(look, 0, 1));
            a.look_changed = true;
        }
        tooltip_for_last(
            "classic imitates NVIDIA's CUDA nbody sample: every body the same orange sprite, the light added "
            "and clamped (no tone curve, exposure or bloom), so dense cores clip to flat white.");
        int splat = int(m.particles.splat);
        ImGui::Combo("drawing", &splat, "auto\0point sprites\0compute splat\0");
        m.particles.splat = SplatMode(std::clamp(splat, 0, 2));
        tooltip_for_last(
            "Point sprites use the raster pipeline; the compute splat adds each body's light with "
            "atomics in a compute shader (much faster for a million small bodies on compute GPUs, "
            "bodies above 4 px shrink to 4 px). Auto: compute from N = 262144 up.");
        if (!info.draw_path.empty()) ImGui::TextDisabled("(%s)", info.draw_path.c_str());
        ImGui::Checkbox("tone mapping", &m.tone.tone_map);
        tooltip_for_last("Logarithmic tone mapping keeps dense cores from saturating to flat white.");
        ImGui::SliderFloat("exposure", &m.tone.exposure, 0.05f, 20.0f, "%.2f",
                           ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
        ImGui::Checkbox("auto exposure", &m.tone.auto_white);
        tooltip_for_last(
            "The white point follows the picture: the densest 0.5% of lit pixels reach white, the rest keep "
            "a gradient, at any N. Off: a white point from N alone.");
        ImGui::SameLine();
        ImGui::PushItemWidth(ImGui::CalcItemWidth() * 0.5f);
        ImGui::SliderFloat("bloom", &m.tone.bloom, 0.0f, 2.0f, "%.2f", ImGuiSliderFlags_AlwaysClamp);
        ImGui::PopItemWidth();
        tooltip_for_last("A soft glow around bright regions (0: off).");
        ImGui::SliderFloat("UI scale", &m.ui.scale, kMinUiScale, kMaxUiScale, "%.2fx",
                           ImGuiSliderFlags_AlwaysClamp);
        m.ui.scale = std::clamp(m.ui.scale, kMinUiScale, kMaxUiScale);
        // The font's name goes in the tooltip: a line of its own would make the tab scroll at 720 px.
        const std::string scale_help =
            "Projector mode (Ctrl+= / Ctrl+-, --ui-scale): the panel's font is rasterised again at the new "
            "size, so it stays sharp." +
            (info.ui_font.empty() ? std::string() : " Font: " + info.ui_font + ".");
        tooltip_for_last(scale_help.c_str());
        ImGui::Checkbox("high contrast", &m.ui.high_contrast);
        tooltip_for_last("White on black with bright controls, for a projector.");
        if (ImGui::Checkbox("vsync", &m.vsync)) a.vsync_changed = true;
        ImGui::SameLine();
        if (ImGui::Checkbox("fullscreen (F)", &m.fullscreen)) a.fullscreen_changed = true;
        ImGui::TreePop();
    }
    if (ImGui::Button("Fit (R)")) a.fit_camera = true;
    ImGui::SameLine();
    if (ImGui::Button("Reset view (Home)")) a.reset_camera = true;
    ImGui::SameLine();
    if (ImGui::Button("Screenshot (P)")) a.screenshot = true;
}

void backend_tab(PanelModel& m, PanelActions& a, const PanelInfo& info) {
    if (ImGui::BeginCombo("backend", m.backend.c_str())) {
        for (const auto& b : builtin_backends()) {
            ImGuiSelectableFlags flags = b.available() ? 0 : ImGuiSelectableFlags_Disabled;
            if (ImGui::Selectable(b.name.c_str(), b.name == m.backend, flags) && b.available()) {
                m.backend = b.name;
                a.switch_backend = true;
            }
            tooltip_for_last(b.available() ? b.description.c_str() : b.unavailable_reason().c_str());
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
    // Say plainly why a GPU backend is off: a tooltip on a disabled entry is easy to miss.
    ImGui::PushTextWrapPos(0.0f);
    for (const BackendInfo& b : builtin_backends()) {
        if (b.available() || b.residency != Residency::device) continue;
        ImGui::TextColored(kWarn, "%s off:", b.name.c_str());
        ImGui::SameLine();
        ImGui::TextWrapped("%s", b.unavailable_reason().c_str());
    }
    ImGui::TextWrapped("%s", info.gl_device.c_str());
    if (!info.cuda_device.empty()) ImGui::TextWrapped("%s", info.cuda_device.c_str());
    ImGui::TextWrapped("%s", info.transfer.c_str());
    if (!info.checkpoint.empty()) {
        ImGui::TextDisabled("%s", info.checkpoint.c_str());
        tooltip_for_last(
            "A full copy of the bodies kept to restore after a NaN/Inf. Not per frame: its cadence "
            "grows with its cost so it stays near 1% of the simulation time.");
    }
    if (!info.interop_note.empty()) ImGui::TextColored(kWarn, "%s", info.interop_note.c_str());
    ImGui::PopTextWrapPos();
}

void energy_section(const PanelInfo& info) {
    if (!ImGui::CollapsingHeader(energy_header(info).c_str(), ImGuiTreeNodeFlags_DefaultOpen)) return;
    if (!info.have_energy) {
        ImGui::TextDisabled("computing...");
        return;
    }
    ImGui::TextUnformatted(energy_text(info).c_str());
    if (!info.energy_note.empty()) {
        paragraph(info.energy_note, true);
        tooltip_for_last(
            "The exact potential sums every pair: too slow to repeat above this N on the CPU. "
            "With the tree force it comes from the tree at its theta, otherwise from the exact "
            "rows of evenly spaced sampled bodies scaled to N (nbody run does the same); a GPU "
            "backend sums it exactly.");
    }
    plot("|dE/E|", info.drift, "%.2e", true,
         "Relative energy change since the state was loaded (log scale); measured a few times per second "
         "(the potential costs N^2).");
}

void performance_section(const PanelInfo& info) {
    if (!ImGui::CollapsingHeader("Performance", ImGuiTreeNodeFlags_DefaultOpen)) return;
    if (info.adaptive) {
        plot("ms/max step", info.ms_step, "%.3f ms", false,
             "Wall time per max step (dt), all its blocks included (on the simulation thread).");
    } else {
        plot("ms/step", info.ms_step, "%.3f ms", false,
             "Wall time per simulation step (on the simulation thread).");
    }
    char rate[64];
    std::snprintf(rate, sizeof rate, "  %.3g GFLOP/s  %.0f fps", double(info.gflops.last()),
                  double(info.fps.last()));
    plot("interactions/s", info.interactions, "%.3g", false,
         info.adaptive
             ? "Each active body's force and jerk against all N, summed over the blocks of a max step, "
               "times max steps/s; 42 floating-point operations counted per interaction (20 for the "
               "force, the rest for the jerk)."
             : "N^2 body-body interactions per step times steps/s; 20 floating-point operations "
               "counted per interaction (the CUDA sample's convention).",
         rate);
}

void help_overlay(PanelModel& m) {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(
        ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + vp->WorkSize.y * 0.5f),
        ImGuiCond_Always, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowBgAlpha(0.85f);
    ImGui::Begin(
        "Help", &m.show_help,
        ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings);
    ImGui::Text("Mouse");
    ImGui::BulletText("left drag: orbit    right / middle drag: pan    wheel: zoom");
    ImGui::BulletText("click a body: select it    click empty space: deselect");
    ImGui::BulletText("Shift + left drag: drop a body with the dragged velocity");
    ImGui::Separator();
    ImGui::Text("Keys");
    // The descriptions' column past the widest key, in the current font (it grows with the UI scale).
    float keys_w = ImGui::CalcTextSize("Esc").x;
    for (const KeyBinding& k : key_bindings())
        keys_w =
            std::max(keys_w, ImGui::CalcTextSize((std::string(k.ctrl ? "Ctrl+" : "") + k.label).c_str()).x);
    const float column = ImGui::GetCursorPosX() + keys_w + ImGui::GetFontSize();
    for (const KeyBinding& k : key_bindings()) {
        ImGui::Text("%s%s", k.ctrl ? "Ctrl+" : "", k.label);
        ImGui::SameLine(column);
        ImGui::TextUnformatted(k.what);
    }
    ImGui::Text("Esc");
    ImGui::SameLine(column);
    ImGui::TextUnformatted("close a popup or this help; else quit");
    ImGui::End();
}

// A visible hint in the top-right corner, so the help is discoverable without the panel.
void help_hint(PanelModel& m) {
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x - 8, vp->WorkPos.y + 8), ImGuiCond_Always,
                            ImVec2(1, 0));
    ImGui::SetNextWindowBgAlpha(0.35f);
    ImGui::Begin("##help_hint", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                     ImGuiWindowFlags_NoNav);
    if (ImGui::SmallButton("? help")) m.show_help = !m.show_help;
    ImGui::End();
}

void quit_popup(PanelModel& m, PanelActions& a) {
    if (m.ask_quit && !ImGui::IsPopupOpen("Quit?")) ImGui::OpenPopup("Quit?");
    if (ImGui::BeginPopupModal("Quit?", nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
        ImGui::Text("Quit this run?");
        if (ImGui::Button("Save snapshot and quit")) {
            a.save_snapshot = true;  // written before the window closes (run_window_app waits for it)
            a.quit = true;
            ImGui::CloseCurrentPopup();
        }
        tooltip_for_last("Saves the exact state into the snapshots directory (as Ctrl+S), then quits.");
        ImGui::SameLine();
        if (ImGui::Button("Quit")) {
            a.quit = true;
            ImGui::CloseCurrentPopup();
        }
        ImGui::SameLine();
        if (ImGui::Button("Cancel")) {
            m.ask_quit = false;
            ImGui::CloseCurrentPopup();
        }
        ImGui::EndPopup();
    } else {
        m.ask_quit = false;  // closed by Esc
    }
}

// The tabs and sections of a live simulation (all but the time controls).
void simulation_sections(PanelModel& m, PanelActions& a, PanelInfo& info) {
    if (ImGui::BeginTabBar("tabs")) {
        for (int t = 0; t < 4; ++t) {
            ImGuiTabItemFlags flags = m.select_tab == t ? ImGuiTabItemFlags_SetSelected : 0;
            if (!ImGui::BeginTabItem(kPanelTabs[t], nullptr, flags)) continue;
            switch (t) {
                case 0:
                    physics_tab(m, info);
                    break;
                case 1:
                    scene_tab(m, a);
                    break;
                case 2:
                    view_tab(m, a, info);
                    // One header for both: the View tab fits 1280x720 without scrolling.
                    if (ImGui::CollapsingHeader("Camera path & video")) {
                        camera_path_section(m, a);
                        ImGui::Separator();
                        record_section(m, a, info);
                    }
                    break;
                default:
                    backend_tab(m, a, info);
                    break;
            }
            ImGui::EndTabItem();
        }
        m.select_tab = -1;
        ImGui::EndTabBar();
    }
    if (ImGui::CollapsingHeader("Selected body", ImGuiTreeNodeFlags_DefaultOpen)) picked_section(m, info);
    energy_section(info);
    performance_section(info);
}

}  // namespace

std::string unit_text(const PanelInfo& info, Quantity q) {
    if (info.length_unit.empty() || info.time_unit.empty()) return " (N-body)";
    switch (q) {
        case Quantity::time:
            return " " + info.time_unit;
        case Quantity::length:
            return " " + info.length_unit;
        case Quantity::speed:
            return " " + info.length_unit + "/" + info.time_unit;
        case Quantity::energy:
            return " " + (info.mass_unit.empty() ? std::string("M") : info.mass_unit) + " " +
                   info.length_unit + "^2/" + info.time_unit + "^2";
    }
    return {};
}

std::vector<std::string> wrap_at_spaces(std::string_view text, float width,
                                        const std::function<float(std::string_view)>& measure) {
    std::vector<std::string> lines;
    std::string line;
    std::size_t i = 0;
    while (i < text.size()) {
        const std::size_t start = text.find_first_not_of(' ', i);
        if (start == std::string_view::npos) break;
        const std::size_t end = std::min(text.find(' ', start), text.size());
        const std::string_view word = text.substr(start, end - start);
        std::string longer = line.empty() ? std::string(word) : line + " " + std::string(word);
        if (!line.empty() && measure(longer) > width) {
            lines.push_back(std::move(line));
            line = std::string(word);
        } else {
            line = std::move(longer);
        }
        i = end;
    }
    if (!line.empty() || lines.empty()) lines.push_back(std::move(line));
    return lines;
}

void scenario_notes(const PanelModel& m) {
    const PresetInfo* p = find_preset(m.preset);
    if (!p) return;
    paragraph(p->description, true);
    if (!p->units.empty()) paragraph("units: " + p->units, true);
    if (!p->look_for.empty() && ImGui::TreeNodeEx("what to look for", ImGuiTreeNodeFlags_DefaultOpen)) {
        paragraph(p->look_for);
        ImGui::TreePop();
    }
}

std::string energy_text(const PanelInfo& info) {
    char line[128];
    std::snprintf(line, sizeof line, "KE %.5g  PE %.5g  E %.7g", info.kinetic, info.potential, info.total);
    return line;
}

std::string energy_header(const PanelInfo& info) {
    const std::string unit = unit_text(info, Quantity::energy);
    // " (N-body)" already has its brackets; "###Energy" keeps the header's open state across unit changes.
    return "Energy" + (unit.front() == ' ' && unit[1] == '(' ? unit : " (" + unit.substr(1) + ")") +
           "###Energy";
}

std::string integrator_label(const IntegratorInfo& i) {
    return i.adaptive ? std::string("adaptive (") + i.name + ")" : std::string(i.name);
}

const char* reverse_button_label(bool adaptive, bool reversed) {
    if (adaptive) return "Reverse: off";
    return reversed ? "Forward (B)" : "Reverse (B)";
}

std::string clock_text(const PanelInfo& info) {
    // Each body of an adaptive integrator on its own clock: a "step" is a max step.
    // t is summed step by step, so running back to the start leaves rounding noise (t = -3e-16): within a
    // millionth of a step of 0 it reads 0.
    const double t = std::abs(info.sim_time) < 1e-6 * std::abs(info.dt) ? 0.0 : info.sim_time;
    // Whole rates where they are large; three digits below 100, so that a max step of seconds reads
    // 0.175 max steps/s, not 0.
    char rate[32];
    std::snprintf(rate, sizeof rate, info.steps_per_s >= 100 ? "%.0f" : "%.3g", info.steps_per_s);
    char line[160];
    std::snprintf(line, sizeof line, "N %zu  t %.4g%s%s  %lld %s  %s %s/s%s", info.n, t,
                  info.time_unit.empty() ? "" : " ", info.time_unit.c_str(),
                  static_cast<long long>(info.steps_total), info.adaptive ? "max steps" : "steps", rate,
                  info.adaptive ? "max steps" : "steps", info.reversed ? "  reversed" : "");
    return line;
}

PanelActions draw_panel(PanelModel& m, PanelInfo& info) {
    PanelActions a;
    handle_keys(m, a, info);
    help_hint(m);
    recording_indicator(info);
    if (m.show_help) help_overlay(m);
    quit_popup(m, a);
    m.panel_width = 0;
    if (m.show_panel) {
        const ImGuiViewport* vp = ImGui::GetMainViewport();
        // Fixed at the left edge, full height: controls and live plots without scrolling at 1280x720.
        ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x, vp->WorkPos.y), ImGuiCond_Always);
        // Its width grows with the UI scale (projector mode), resized when the scale changes.
        const float s = m.ui.scale;
        ImGui::SetNextWindowSizeConstraints(ImVec2(300 * s, 0), ImVec2(600 * s, vp->WorkSize.y));
        ImGui::SetNextWindowSize(ImVec2(370 * s, vp->WorkSize.y),
                                 m.panel_scale != s ? ImGuiCond_Always : ImGuiCond_FirstUseEver);
        m.panel_scale = s;
        ImGui::SetNextWindowBgAlpha(m.ui.high_contrast ? 1.0f : 0.82f);
        ImGui::Begin("nbody", nullptr, ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoCollapse);
        m.panel_width = ImGui::GetWindowWidth();
        ImGui::PushItemWidth(ImGui::GetWindowWidth() * 0.62f);
        if (!info.message.empty()) {
            // The button before the text, so a status line costs no line of its own at 720 px.
            const bool dismiss = ImGui::SmallButton("x##dismiss");
            tooltip_for_last("dismiss this message");
            ImGui::SameLine();
            ImGui::PushTextWrapPos(0.0f);
            ImGui::TextColored(ImVec4(1, 0.35f, 0.3f, 1), "%s", info.message.c_str());
            ImGui::PopTextWrapPos();
            if (dismiss) info.message.clear();
        }
        if (!info.screenshot_note.empty()) ImGui::TextDisabled("%s", info.screenshot_note.c_str());
        if (!info.busy.empty()) ImGui::TextColored(kWarn, "%s", info.busy.c_str());
        if (m.replay) {
            // A replay only shows snapshots: the timeline at the bottom is its one set of controls.
            ImGui::TextUnformatted(clock_text(info).c_str());
            view_tab(m, a, info);
            if (ImGui::CollapsingHeader("Selected body", ImGuiTreeNodeFlags_DefaultOpen))
                picked_section(m, info);
        } else {
            time_controls(m, a, info);
            simulation_sections(m, a, info);
        }
        ImGui::PopItemWidth();
        ImGui::End();
    }
    m.ui_popup_open = ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId | ImGuiPopupFlags_AnyPopupLevel);
    return a;
}

}  // namespace nbody
