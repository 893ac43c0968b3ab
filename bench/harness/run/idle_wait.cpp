#include "harness/run/idle_wait.hpp"

#include <algorithm>
#include <thread>

namespace preflight {
namespace {

// The first sleep is short, as most waits are: the other rank is a few microseconds behind.
constexpr std::chrono::microseconds kFirstPause{10};

}  // namespace

void wait_idle(MPI_Request& request) {
  auto pause = kFirstPause;
  for (int done = 0;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done != 0) return;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, kLongestPause);
  }
}

void idle_barrier(MPI_Comm comm) {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibarrier(comm, &request);
  wait_idle(request);
}

void idle_bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibcast(buffer, count, type, root, comm, &request);
  wait_idle(request);
}

}  // namespace preflight
