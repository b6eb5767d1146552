// `numatwin schedule`: a shuffle order designed for the machine and the thread placement
// (sim/schedule/shuffle_schedule.hpp has the method), checked by the fluid model against naive, ring and
// coordinated random, tight and loose; --out writes the schedule as JSON.
#pragma once

namespace CLI {
class App;
}

namespace numatwin::cli {

void register_schedule_command(CLI::App& app);

}  // namespace numatwin::cli
