#include "numatwin/validate/host/cpu_contention.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace numatwin::validate {

std::optional<double> machine_busy_s_from_proc_stat(std::string_view text, double ticks_per_s) {
  const std::string first(text.substr(0, text.find('\n')));
  std::istringstream in(first);
  std::string label;
  if (!(in >> label) || label != "cpu" || !(ticks_per_s > 0.0)) return std::nullopt;
  // user nice system idle iowait irq softirq steal [guest guest_nice: already in user and nice]
  std::vector<double> ticks;
  double v = 0.0;
  while (ticks.size() < 8 && in >> v) ticks.push_back(v);
  if (ticks.size() < 8) return std::nullopt;
  const double busy = ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6] + ticks[7];
  return busy / ticks_per_s;
}

std::optional<CpuSample> sample_cpu() {
  std::ifstream stat("/proc/stat");
  std::string line;
  if (!stat || !std::getline(stat, line)) return std::nullopt;
  const long ticks = sysconf(_SC_CLK_TCK);
  const std::optional<double> busy = machine_busy_s_from_proc_stat(line, ticks > 0 ? static_cast<double>(ticks) : 0.0);
  if (!busy) return std::nullopt;
  rusage self{};
  rusage children{};  // a kernel run in a child process (waited for) is this measurement's own work too
  if (getrusage(RUSAGE_SELF, &self) != 0 || getrusage(RUSAGE_CHILDREN, &children) != 0) return std::nullopt;
  const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
  CpuSample s;
  s.machine_busy_s = *busy;
  s.own_cpu_s = seconds(self.ru_utime) + seconds(self.ru_stime) + seconds(children.ru_utime) + seconds(children.ru_stime);
  s.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  s.cpus = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  return s;
}

double other_work_share(const CpuSample& start, const CpuSample& end) {
  const double window = (end.wall_s - start.wall_s) * std::max(1, end.cpus);
  if (!(window > 0.0)) return 0.0;
  const double other = (end.machine_busy_s - start.machine_busy_s) - (end.own_cpu_s - start.own_cpu_s);
  return std::clamp(other / window, 0.0, 1.0);
}

}  // namespace numatwin::validate
