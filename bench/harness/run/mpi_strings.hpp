// Moving variable-length strings between ranks.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace preflight {

// Every rank gets every rank's string, in rank order.
std::vector<std::string> all_gather_strings(MPI_Comm comm, const std::string& mine);

// Rank `root` gets every rank's string in rank order; the others get nothing.
std::vector<std::string> gather_strings(MPI_Comm comm, const std::string& mine, int root);

}  // namespace preflight
