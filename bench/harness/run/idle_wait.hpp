#pragma once
// Waits of a rank for another rank's untimed work (rank 0 writing the last case's results, a
// data set being made, a report being gathered) that sleep between tests of the operation
// instead of spinning in MPI's progress loop. A blocking MPI call spins (Open MPI's shared
// memory transport has no blocking mode): on a host with fewer cores than ranks, as in CI and
// on a developer's machine, the waiting ranks then take the CPU that the rank doing the work
// needs. Never for a timed region or the barrier right before one: a sleeping rank answers up
// to kLongestPause late, which is nothing beside the work waited for and everything beside an
// operation's start.
#include <mpi.h>

#include <chrono>

namespace preflight {

// The longest sleep between two tests of a pending operation.
inline constexpr std::chrono::microseconds kLongestPause{500};

// Returns once `request` has completed; its status is ignored.
void wait_idle(MPI_Request& request);

// MPI_Barrier and MPI_Bcast, waited for with wait_idle: every rank of `comm` must call the
// same one at the same point (a non-blocking collective never matches a blocking one).
void idle_barrier(MPI_Comm comm);
void idle_bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm);

}  // namespace preflight
