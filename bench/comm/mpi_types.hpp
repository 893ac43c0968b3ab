// The MPI datatype of each element type: one table, for the comm family's MPI backend and the
// correctness family's MPI sweep.
#pragma once

#include <mpi.h>

#include "comm/collective.hpp"

namespace preflight::comm {

// MPI_DATATYPE_NULL for the types MPI has none of (float16, bfloat16): a backend's supports()
// says so before any case is made.
MPI_Datatype mpi_type(DType t);

}  // namespace preflight::comm
