// Without CUDA the step's GEMMs run on the CPU: the host schedule (step_schedule.hpp) runs it.
#include "step/step_schedule.hpp"

namespace preflight::step {

std::unique_ptr<StepSchedule> make_cuda_schedule(StepOperations&, std::size_t) {
  return nullptr;
}

}  // namespace preflight::step
