// How much of the machine other work took while a measurement ran: the kernels' wall times grow
// with it, so a report says what it was measured beside.
//
// From two samples, at the start and at the end:
//   busy_s   = the machine's CPU time in every state but idle and iowait, /proc/stat's first line
//              (user nice system irq softirq steal), in clock ticks / sysconf(_SC_CLK_TCK);
//              steal (a hypervisor running other guests on this VM's CPUs) counts as other work
//   own_s    = this process's user + system time, its waited-for children's included
//              (getrusage(RUSAGE_SELF) + getrusage(RUSAGE_CHILDREN))
//   wall_s   = the elapsed time, cpus = the CPUs the machine has online
//   other_share = max(0, (busy_s(end) - busy_s(start)) - (own_s(end) - own_s(start))) / (wall_s x cpus)
// 0 on an idle machine; 0.5 when other processes kept half of the CPUs busy throughout. Clock
// ticks are 10 ms, so a window shorter than about a second says little.
#pragma once

#include <optional>
#include <string_view>

namespace numatwin::validate {

struct CpuSample {
  double machine_busy_s = 0.0;  // every CPU's time outside idle and iowait since boot
  double own_cpu_s = 0.0;       // this process's user + system time (and its waited-for children's)
  double wall_s = 0.0;          // a steady clock
  int cpus = 0;                 // CPUs online
};

// The machine's busy time from the text of /proc/stat (its first line, "cpu ..."), in seconds for
// `ticks_per_s`; nullopt when the line is missing or has fewer than 8 numbers.
std::optional<double> machine_busy_s_from_proc_stat(std::string_view text, double ticks_per_s);

// Samples this machine now; nullopt when /proc/stat cannot be read.
std::optional<CpuSample> sample_cpu();

// other_share above (0 when the window is empty).
double other_work_share(const CpuSample& start, const CpuSample& end);

}  // namespace numatwin::validate
