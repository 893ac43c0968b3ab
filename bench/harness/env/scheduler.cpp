#include "harness/env/scheduler.hpp"

#include <fmt/format.h>

#include <cstdlib>

namespace preflight {

EnvLookup process_environment() {
  return [](const char* name) { return std::getenv(name); };
}

nlohmann::ordered_json scheduler_facts(const EnvLookup& env) {
  if (env("SLURM_JOB_ID") == nullptr) return nullptr;
  // Key in the file -> Slurm's variable; a variable Slurm did not set is left out.
  const std::pair<const char*, const char*> slurm[] = {
      {"job_id", "SLURM_JOB_ID"},
      {"job_name", "SLURM_JOB_NAME"},
      {"node_list", "SLURM_JOB_NODELIST"},
      {"partition", "SLURM_JOB_PARTITION"},
      {"nodes", "SLURM_JOB_NUM_NODES"},
      {"ntasks", "SLURM_NTASKS"},
      {"tasks_per_node", "SLURM_TASKS_PER_NODE"},
      {"step_id", "SLURM_STEP_ID"},
      {"cluster", "SLURM_CLUSTER_NAME"},
  };
  nlohmann::ordered_json facts = {{"kind", "slurm"}};
  for (const auto& [key, variable] : slurm)
    if (const char* v = env(variable)) facts[key] = v;
  return facts;
}

std::vector<int> expand_tasks_per_node(const std::string& text) {
  std::vector<int> out;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t used = 0;
    int tasks = 0, repeat = 1;
    try {
      tasks = std::stoi(text.substr(i), &used);
    } catch (const std::exception&) {
      return {};
    }
    if (tasks < 0) return {};
    i += used;
    if (i < text.size() && text[i] == '(') {
      if (text.compare(i, 2, "(x") != 0) return {};
      try {
        repeat = std::stoi(text.substr(i + 2), &used);
      } catch (const std::exception&) {
        return {};
      }
      i += 2 + used;
      if (i >= text.size() || text[i] != ')' || repeat < 1 || repeat > 1000000) return {};
      ++i;
    }
    out.insert(out.end(), static_cast<std::size_t>(repeat), tasks);
    if (i < text.size() && text[i++] != ',') return {};
  }
  return out;
}

SchedulerPlacement scheduler_tasks_here(const EnvLookup& env, int world_size) {
  const char* node = env("SLURM_NODEID");
  if (node == nullptr) return {};
  const char* step_tasks = env("SLURM_STEP_NUM_TASKS");
  const bool srun_launched = step_tasks != nullptr && std::atoi(step_tasks) == world_size;
  const char* name = srun_launched ? "SLURM_STEP_TASKS_PER_NODE" : "SLURM_TASKS_PER_NODE";
  const char* v = env(name);
  if (v == nullptr) return {};
  const auto tasks = expand_tasks_per_node(v);
  const int index = std::atoi(node);
  if (index < 0 || static_cast<std::size_t>(index) >= tasks.size()) return {};
  return {tasks[static_cast<std::size_t>(index)],
          fmt::format("{}={} at SLURM_NODEID={}{}", name, v, node,
                      srun_launched ? "" : ", the job's request: srun did not launch the ranks"),
          srun_launched};
}

}  // namespace preflight
