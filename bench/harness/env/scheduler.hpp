// What the scheduler that started the job says about it (Slurm's SLURM_* variables), recorded
// in the results (attribute `scheduler`) and checked against what MPI launched.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace preflight {

// Reads one environment variable (nullptr when unset); std::getenv, or a table in tests.
using EnvLookup = std::function<const char*(const char*)>;

EnvLookup process_environment();

// The job's facts as an object, in this order: kind, job_id, job_name, node_list, partition,
// nodes, ntasks, tasks_per_node, step_id, cluster; null when no scheduler set them.
nlohmann::ordered_json scheduler_facts(const EnvLookup& env);

// Slurm's compressed tasks-per-node list, "2(x3),1" -> {2, 2, 2, 1}; empty when malformed.
std::vector<int> expand_tasks_per_node(const std::string& text);

// The tasks the scheduler placed on this rank's node, and the variables that said so.
struct SchedulerPlacement {
  int tasks = 0;       // 0: the scheduler does not say
  std::string source;  // "SLURM_STEP_TASKS_PER_NODE=2(x2) at SLURM_NODEID=1"
  // The ranks are the step's tasks (srun launched them): then the placement is the launch. Else
  // (mpirun inside an allocation: srun launched one daemon per node) it is what the job asked
  // for, which mpirun may rightly differ from.
  bool launched_by_scheduler = false;
};
SchedulerPlacement scheduler_tasks_here(const EnvLookup& env, int world_size);

}  // namespace preflight
