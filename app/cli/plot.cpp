#include "plot.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <utility>
#include <vector>

#include "process_pipe.hpp"
#include "sim/error.hpp"
#include "sim/integrate/integrators.hpp"
#include "sim/io/input_file.hpp"
#include "sim/platform/atomic_file.hpp"
#include "sim/run_settings.hpp"
#include "sim/util.hpp"

namespace nbody {
namespace {

namespace fs = std::filesystem;

// A CSV as nbody writes it: '# key = value' comment lines (parameters, machine), one header, rows.
struct CsvTable {
    std::map<std::string, std::string> notes;
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
    std::vector<std::size_t> row_lines;  // the file's line number of each row

    int column(const std::string& name) const {
        const auto it = std::find(header.begin(), header.end(), name);
        return it == header.end() ? -1 : static_cast<int>(it - header.begin());
    }
    const std::string* note(const std::string& key) const {
        const auto it = notes.find(key);
        return it == notes.end() ? nullptr : &it->second;
    }
};

std::string trim(const std::string& s) {
    const std::size_t a = s.find_first_not_of(" \t\r");
    if (a == std::string::npos) return "";
    return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(trim(cell));
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    return cells;
}

CsvTable parse_table(std::istream& in, const std::string& what) {
    CsvTable t;
    std::size_t line_no = 0;
    for (std::string line; std::getline(in, line);) {
        ++line_no;
        const std::string text = trim(line);
        if (text.empty()) continue;
        if (text[0] == '#') {
            const std::size_t eq = text.find('=');
            if (eq != std::string::npos) t.notes[trim(text.substr(1, eq - 1))] = trim(text.substr(eq + 1));
            continue;
        }
        if (t.header.empty()) {
            t.header = split(text);
        } else {
            t.rows.push_back(split(text));
            t.row_lines.push_back(line_no);
        }
    }
    if (t.header.empty()) throw Error(what + ": empty file (expected an energy log or a bench CSV)");
    return t;
}

// A number for gnuplot's data block; false for an empty or non-numeric cell (such rows are skipped).
bool number(const std::vector<std::string>& row, int col, double& out) {
    if (col < 0 || col >= static_cast<int>(row.size())) return false;
    const std::string& s = row[static_cast<std::size_t>(col)];
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(out);
}

// A gnuplot single-quoted string: only '' needs escaping; line breaks would end the command.
std::string gp_string(const std::string& s) {
    std::string out = "'";
    for (char c : s) {
        if (c == '\'')
            out += "''";
        else if (c == '\n' || c == '\r')
            out += ' ';
        else
            out += c;
    }
    return out + "'";
}

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

std::string preamble(const PlotRequest& r, const std::string& tmp) {
    // noenhanced: titles from file names and flags are printed as they are (no ^ _ @ markup).
    return "set terminal pngcairo size " + std::to_string(r.width) + "," + std::to_string(r.height) +
           " noenhanced font 'sans,10'\nset output " + gp_string(tmp) +
           "\nset grid\nset key outside right top\nset autoscale xfix\n";
}

// "hermite (eta 0.02, neighbours 8)": an integrator a file names, with the values of its settings the file
// gives (`value_of(name)`: the text, or null where it gives none), named as `nbody run`'s summary names them
// (with_settings). A value the file does not give is left out, not shown at its default (an older file);
// another name (or none) stays as it is.
template <typename ValueOf>
std::string integrator_with_settings(const std::string& name, ValueOf value_of) {
    const std::optional<Integrator> i = parse_integrator(name);
    if (!i) return name;
    Params p;
    p.integrator = *i;
    std::vector<SettingInfo> given;
    for (const SettingInfo& s : integrator_info(*i).settings) {
        const std::string* v = value_of(s.name);
        double value = 0;
        if (!v || std::from_chars(v->data(), v->data() + v->size(), value).ec != std::errc()) continue;
        p.*s.field = value;
        given.push_back(s);
    }
    return with_settings(integrator_info(*i).name, given, p);
}

// "plummer, N = 1024, openmp, leapfrog, dt = 0.01": what the energy log's parameter lines say. An
// adaptive integrator's dt is its max step, as `nbody run`'s summary says.
std::string energy_title(const CsvTable& t, const std::string& what) {
    std::vector<std::string> parts;
    bool adaptive = false;
    if (const std::string* v = t.note("preset")) parts.push_back(*v);
    if (const std::string* v = t.note("input")) parts.push_back(fs::path(*v).filename().string());
    if (const std::string* v = t.note("N")) parts.push_back("N = " + *v);
    if (const std::string* v = t.note("backend")) parts.push_back(*v);
    if (const std::string* v = t.note("precision")) parts.push_back(*v);
    if (const std::string* v = t.note("integrator")) {
        parts.push_back(integrator_with_settings(*v, [&](const char* key) { return t.note(key); }));
        const std::optional<Integrator> i = parse_integrator(*v);
        adaptive = i && integrator_info(*i).adaptive;
    }
    if (const std::string* v = t.note("dt")) parts.push_back((adaptive ? "max dt = " : "dt = ") + *v);
    if (const std::string* v = t.note("softening")) parts.push_back("softening = " + *v);
    if (parts.empty()) return "energy: " + fs::path(what).filename().string();
    return "energy: " + join(parts);
}

// One input file, parsed, with the name its lines carry in the legend.
struct LabeledTable {
    CsvTable table;
    std::string what;   // the file, for messages
    std::string label;  // the legend's name for its lines (several files only)
};

std::string energy_script(const std::vector<LabeledTable>& in, const PlotRequest& r, const std::string& tmp) {
    const bool several = in.size() > 1;
    std::string data, drift_plot, energy_plot;
    double t_lo = HUGE_VAL, t_hi = -HUGE_VAL;
    std::size_t n_drift = 0;
    for (std::size_t f = 0; f < in.size(); ++f) {
        const CsvTable& t = in[f].table;
        const int ct = t.column("t"), ck = t.column("kinetic"), cp = t.column("potential"),
                  ce = t.column("total"), cd = t.column("rel_drift");
        const std::string id = std::to_string(f);
        std::string drift = "$drift" + id + " << EOD\n", energy = "$energy" + id + " << EOD\n";
        std::size_t file_drift = 0, n_energy = 0;
        for (const auto& row : t.rows) {
            double tt = 0, k = 0, p = 0, e = 0, d = 0;
            if (!number(row, ct, tt) || !number(row, ck, k)) continue;
            if (number(row, cp, p) && number(row, ce, e)) {
                energy += num(tt) + " " + num(k) + " " + num(p) + " " + num(e) + "\n";
                ++n_energy;
                t_lo = std::min(t_lo, tt);
                t_hi = std::max(t_hi, tt);
            }
            if (number(row, cd, d) && d > 0) {  // the first row's 0 has no place on a log axis
                drift += num(tt) + " " + num(d) + "\n";
                ++file_drift;
            }
        }
        if (n_energy == 0) throw Error(in[f].what + ": no rows with energies to plot");
        data += drift + "EOD\n" + energy + "EOD\n";
        n_drift += file_drift;
        const std::string prefix = several ? in[f].label + ": " : "";
        if (file_drift > 0) {
            drift_plot += std::string(drift_plot.empty() ? "plot " : ", ") + "$drift" + id +
                          " using 1:2 with linespoints pointtype 7 pointsize 0.4 linewidth 2 title " +
                          gp_string(several ? in[f].label : "|dE/E|");
        }
        // Several files: their total energies only (kinetic and potential of each would be a crowd).
        if (!several) {
            energy_plot =
                "plot $energy0 using 1:2 with lines linewidth 2 title 'kinetic', '' using 1:3 with "
                "lines linewidth 2 title 'potential', '' using 1:4 with lines linewidth 2 title "
                "'total'";
        } else {
            energy_plot += std::string(energy_plot.empty() ? "plot " : ", ") + "$energy" + id +
                           " using 1:4 with lines linewidth 2 title " + gp_string(prefix + "total");
        }
    }
    const std::string title = !r.title.empty() ? r.title
                              : several        ? std::string("energy")
                                               : energy_title(in[0].table, in[0].what);
    std::string s = preamble(r, tmp) + data;
    // Both panels over the same t, whatever each one's data covers (the |dE/E| panel has no t = 0 point).
    // Fixed margins: the keys' widths differ between the panels and would otherwise shift their axes.
    if (t_hi > t_lo) s += "set xrange [" + num(t_lo) + ":" + num(t_hi) + "]\n";
    s += "set lmargin at screen 0.1\nset rmargin at screen 0.78\n";
    s += "set multiplot layout 2,1 title " + gp_string(title) + "\n";
    s += "set xlabel 't (simulation time units)'\n";
    if (n_drift > 0) {
        s += "set logscale y\nset format y '%.0e'\nset ylabel '|E - E0| / |E0| (relative energy error)'\n";
        s += drift_plot + "\n";
        s += "unset logscale y\nset format y '%.6g'\n";
    } else {
        s += "set ylabel '|E - E0| / |E0|'\nset label 1 'energy conserved exactly at every row' at graph "
             "0.5,0.5 center\nplot $energy0 using 1:(0) with lines title '|dE/E| = 0'\nunset label 1\n";
    }
    s += "set ylabel 'energy (simulation units)'\n";
    s += energy_plot + "\n";
    s += "unset multiplot\n";
    return s;
}

// A bench series' legend cell: "1 thread", "2 threads".
std::string threads_cell(const std::string& cell) {
    return cell + (cell == "1" ? " thread" : " threads");
}

// "1024", "16k", "1M": the tick label of an N the bench measured.
std::string n_label(double n) {
    char buf[32];
    if (n >= 1048576 && std::fmod(n, 1048576) == 0)
        std::snprintf(buf, sizeof buf, "%.0fM", n / 1048576);
    else if (n >= 16384 && std::fmod(n, 1024) == 0)
        std::snprintf(buf, sizeof buf, "%.0fk", n / 1024);
    else
        std::snprintf(buf, sizeof buf, "%.0f", n);
    return buf;
}

// Whether a bench row's interactions count an adaptive integrator's evaluations (active x N over its
// blocks) rather than N^2 a step. A CSV without the integrator column had one integrator in every row:
// an adaptive one where it has the ms_per_time_unit column (bench writes it only beside such a row).
bool adaptive_row(const CsvTable& t, const std::vector<std::string>& row, std::string& name) {
    const int c = t.column("integrator");
    if (c < 0) return t.column("ms_per_time_unit") >= 0;
    name = c < static_cast<int>(row.size()) ? row[static_cast<std::size_t>(c)] : "";
    const std::optional<Integrator> i = parse_integrator(name);
    return i && integrator_info(*i).adaptive;
}

// The y axis of a bench plot: what an interaction is in its rows. N^2 a step for the direct sum with a
// fixed-step integrator; the tree's own count (the interactions it evaluates); an adaptive integrator's
// count (bench --help) on a second line, with the neighbour scheme's where it is on.
std::string bench_ylabel(bool fixed, bool tree, const std::vector<std::string>& adaptive, bool neighbours) {
    const std::string first = "interactions per second (";
    const std::string bars = "bars: slowest to fastest repeat)";
    std::string counts =
        std::string(fixed ? "N^2 per step; " : "") + (tree ? "tree: those it evaluates; " : "");
    if (adaptive.empty()) return gp_string(first + counts + bars);
    const bool named = std::find(adaptive.begin(), adaptive.end(), "") == adaptive.end();
    const std::string names = named ? join(adaptive, "/") : "adaptive integrator";
    const std::string second =
        counts + names + ": active x N per block" + (neighbours ? " (neighbours per list evaluation)" : "");
    return gp_string(first + bars) + ".\"\\n\"." + gp_string(second);
}

std::string bench_script(const std::vector<LabeledTable>& in, const PlotRequest& r, const std::string& tmp) {
    struct Point {
        double n, ips, lo, hi;  // interactions/s at the median, slowest and fastest repeat
    };
    std::map<std::string, std::vector<Point>> series;
    std::vector<std::string> order;
    std::vector<double> ns;
    bool any_fixed = false, any_tree = false, any_neighbours = false;
    std::vector<std::string> adaptive_names;  // "" for a CSV that does not name it
    for (const LabeledTable& f : in) {
        const CsvTable& t = f.table;
        const int cn = t.column("n"), ci = t.column("interactions_per_second"), cm = t.column("ms_per_step"),
                  cmin = t.column("ms_min"), cmax = t.column("ms_max"), ck = t.column("neighbours"),
                  cf = t.column("force");
        // One line per combination of the columns that name a configuration.
        std::vector<int> keys;
        for (const char* k : {"backend", "precision", "force", "theta", "integrator", "threads"}) {
            if (t.column(k) >= 0) keys.push_back(t.column(k));
        }
        for (const auto& row : t.rows) {
            double n = 0, ips = 0, ms = 0, ms_min = 0, ms_max = 0;
            if (!number(row, cn, n) || !number(row, ci, ips) || n <= 0 || ips <= 0) continue;
            Point pt{n, ips, ips, ips};
            // The same work in the slowest and fastest repeat: the rate scales with 1/time.
            if (number(row, cm, ms) && number(row, cmin, ms_min) && number(row, cmax, ms_max) && ms_min > 0 &&
                ms_max > 0) {
                pt.lo = ips * ms / ms_max;
                pt.hi = ips * ms / ms_min;
            }
            std::string integrator;
            if (adaptive_row(t, row, integrator)) {
                if (std::find(adaptive_names.begin(), adaptive_names.end(), integrator) ==
                    adaptive_names.end())
                    adaptive_names.push_back(integrator);
                double k = 0;
                any_neighbours = any_neighbours || (number(row, ck, k) && k > 0);
            } else if (cf >= 0 && cf < static_cast<int>(row.size()) && row[std::size_t(cf)] == "tree") {
                any_tree = true;  // bench counts the interactions a tree row evaluates, not N^2
            } else {
                any_fixed = true;
            }
            std::vector<std::string> name;
            if (in.size() > 1) name.push_back(f.label + ":");
            for (int k : keys) {
                std::string cell = k < static_cast<int>(row.size()) ? row[static_cast<std::size_t>(k)] : "";
                const std::string& column = t.header[static_cast<std::size_t>(k)];
                if (column == "threads") cell = threads_cell(cell);
                if (column == "theta" && !cell.empty()) cell = "theta " + cell;
                // Its settings from their columns (bench writes a cell only where the setting acts).
                if (column == "integrator") {
                    cell = integrator_with_settings(cell, [&](const char* key) -> const std::string* {
                        const int c = t.column(setting_key(key));
                        if (c < 0 || c >= static_cast<int>(row.size()) || row[std::size_t(c)].empty())
                            return nullptr;
                        return &row[std::size_t(c)];
                    });
                }
                if (!cell.empty()) name.push_back(cell);  // a direct row's empty theta
            }
            const std::string label = join(name, " ");
            if (!series.count(label)) order.push_back(label);
            series[label].push_back(pt);
            if (std::find(ns.begin(), ns.end(), n) == ns.end()) ns.push_back(n);
        }
    }
    if (series.empty()) throw Error(in[0].what + ": no bench rows to plot");
    std::string s = preamble(r, tmp);
    std::string plot = "plot ";
    for (std::size_t i = 0; i < order.size(); ++i) {
        auto& pts = series[order[i]];
        std::sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) { return a.n < b.n; });
        s += "$s" + std::to_string(i) + " << EOD\n";
        for (const Point& pt : pts)
            s += num(pt.n) + " " + num(pt.ips) + " " + num(pt.lo) + " " + num(pt.hi) + "\n";
        s += "EOD\n";
        // The line through the medians, and the slowest-to-fastest repeat as an error bar in its colour.
        const std::string lt = " linetype " + std::to_string(i + 1);
        plot += (i ? ", " : "") + std::string("$s") + std::to_string(i) + " using 1:2 with linespoints" + lt +
                " linewidth 2 pointtype 7 title " + gp_string(order[i]) + ", $s" + std::to_string(i) +
                " using 1:2:3:4 with yerrorbars" + lt + " pointtype 7 pointsize 0.3 notitle";
    }
    std::string title = r.title;
    const CsvTable& t = in[0].table;
    if (title.empty()) {
        title = "nbody bench";
        if (const std::string* cpu = t.note("cpu")) {
            title += ": " + *cpu;
            if (const std::string* cores = t.note("cores")) title += " (" + *cores + " cores)";
        }
        if (const std::string* gpu = t.note("gpu"); gpu && *gpu != "none") title += ", " + *gpu;
    }
    // A tick at every N measured (powers of two rarely meet the decades a log axis labels by itself).
    std::sort(ns.begin(), ns.end());
    std::string tics;
    for (double n : ns) tics += (tics.empty() ? "" : ", ") + gp_string(n_label(n)) + " " + num(n);
    // A margin around the first and last N, so their ticks and error bars are off the frame.
    s += "set title " + gp_string(title) + "\nset logscale xy\nset xtics (" + tics +
         ")\nset format y '%.0e'\nset xrange [" + num(ns.front() / 1.25) + ":" + num(ns.back() * 1.25) +
         "]\n";
    s += "set xlabel 'N (bodies)'\nset ylabel " +
         bench_ylabel(any_fixed, any_tree, adaptive_names, any_neighbours) + "\n";
    // gnuplot's automatic margin leaves room for one line of y label: the second would cross the ticks.
    if (!adaptive_names.empty()) s += "set lmargin 12\nset ylabel offset -1.5,0\n";
    s += plot + "\n";
    return s;
}

// A cell that reads as a number but is NaN or Inf (a run's log up to a blow-up): gnuplot would skip
// it with a warning and draw the rest as if nothing had happened.
bool non_finite(const std::string& cell) {
    double v = 0;
    const auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
    return ec == std::errc() && ptr == cell.data() + cell.size() && !std::isfinite(v);
}

// Refuses an energy log with NaN or Inf in any row, naming the rows' line numbers (the first few).
void check_finite_rows(const LabeledTable& f) {
    constexpr std::size_t kNamed = 8;
    std::vector<std::size_t> bad;
    for (std::size_t r = 0; r < f.table.rows.size(); ++r) {
        const auto& row = f.table.rows[r];
        if (std::any_of(row.begin(), row.end(), non_finite)) bad.push_back(f.table.row_lines[r]);
    }
    if (bad.empty()) return;
    std::string lines;
    for (std::size_t k = 0; k < std::min(bad.size(), kNamed); ++k)
        lines += (k == 0 ? "" : ", ") + std::to_string(bad[k]);
    if (bad.size() > kNamed) lines += " and " + std::to_string(bad.size() - kNamed) + " more";
    throw Error(quote_excerpt(f.what) + ": NaN or Inf in " + std::to_string(bad.size()) +
                (bad.size() == 1 ? " row (line " : " rows (lines ") + lines +
                "): nothing plotted (remove those rows to plot the ones before them)");
}

bool is_energy_log(const CsvTable& t) {
    return t.column("rel_drift") >= 0 && t.column("t") >= 0;
}
bool is_bench(const CsvTable& t) {
    return t.column("interactions_per_second") >= 0 && t.column("n") >= 0;
}

std::string script_for(const std::vector<LabeledTable>& in, const PlotRequest& r, const std::string& tmp) {
    for (const LabeledTable& f : in) {
        if (!is_energy_log(f.table) && !is_bench(f.table))
            throw Error(f.what + ": not an energy log or a bench CSV written by nbody (header '" +
                        join(f.table.header, ",") + "')");
        if (is_energy_log(f.table) != is_energy_log(in[0].table))
            throw Error(f.what + ": cannot overlay an energy log and a bench CSV (" + in[0].what +
                        ") in one plot");
        if (is_energy_log(f.table)) check_finite_rows(f);
    }
    return is_energy_log(in[0].table) ? energy_script(in, r, tmp) : bench_script(in, r, tmp);
}

void render_plot(const std::vector<LabeledTable>& in, const PlotRequest& r) {
    check_plot_output(r.output, "-o");
    if (r.width < 64 || r.height < 64 || r.width > 8192 || r.height > 8192) {
        throw Error("plot size must be 64..8192 pixels a side (got " + std::to_string(r.width) + "x" +
                    std::to_string(r.height) + ")");
    }
    // gnuplot writes the AtomicFile's temporary; it is renamed only when gnuplot exits with status 0.
    AtomicFile file(r.output, AtomicFile::Mode::by_name);
    const std::string script = script_for(in, r, file.temp_path());
    ProcessPipe gnuplot({"gnuplot"}, r.output);
    gnuplot.write(script.data(), script.size());
    gnuplot.finish();
    std::error_code ec;
    if (fs::file_size(file.temp_path(), ec) == 0 || ec) {
        throw Error("gnuplot wrote nothing to '" + r.output + "'");
    }
    // gnuplot exits 0 even when its write failed (a full disk): a PNG is whole only if it ends with its
    // IEND chunk.
    char tail[8] = {};
    std::ifstream png(file.temp_path(), std::ios::binary);
    png.seekg(-8, std::ios::end);
    png.read(tail, sizeof tail);
    if (!png || std::memcmp(tail, "IEND\xAE\x42\x60\x82", 8) != 0) {
        throw Error("cannot write '" + r.output + "': gnuplot's image is incomplete (disk full?)");
    }
    file.commit();
}

}  // namespace

void check_plot_output(const std::string& path, const std::string& flag) {
    if (fs::path(path).extension() != ".png") {
        throw Error(flag + " must name a .png file (got '" + path + "')");
    }
    const fs::path dir = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        throw Error(flag + " '" + path + "': directory '" + dir.string() + "' does not exist");
    }
    check_output_path(path, flag);  // an existing FIFO, device or directory is refused before any work
    if (!on_path("gnuplot")) {
        throw Error(
            "plotting needs gnuplot, which is not on PATH: install it (apt-get install gnuplot-nox, "
            "or run scripts/setup.sh)");
    }
}

void plot_csv(const PlotRequest& request) {
    if (request.inputs.empty()) throw Error("nbody plot: no file to plot");
    if (!request.labels.empty() && request.labels.size() != request.inputs.size()) {
        throw Error("--label given " + std::to_string(request.labels.size()) + " times for " +
                    std::to_string(request.inputs.size()) + " files (give one per file, or none)");
    }
    std::vector<LabeledTable> tables;
    for (std::size_t i = 0; i < request.inputs.size(); ++i) {
        const std::string& path = request.inputs[i];
        // Through InputFile, as every other input: a FIFO with no writer reads as empty instead of blocking
        // forever, a device (/dev/zero) is refused instead of read until memory runs out, lines are bounded.
        InputFile in(path);
        std::string text, line;
        for (std::size_t line_no = 1; in.read_line(line, line_no); ++line_no) {
            text += line;
            text += '\n';
        }
        std::istringstream ss(text);
        tables.push_back({parse_table(ss, path), path,
                          request.labels.empty() ? fs::path(path).filename().string() : request.labels[i]});
    }
    render_plot(tables, request);
}

void plot_csv_text(const std::string& text, const std::string& what, const PlotRequest& request) {
    std::istringstream in(text);
    render_plot({{parse_table(in, what), what, what}}, request);
}

}  // namespace nbody
