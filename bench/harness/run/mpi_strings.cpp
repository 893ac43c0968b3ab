#include "harness/run/mpi_strings.hpp"

#include <numeric>

namespace preflight {
namespace {

std::vector<int> offsets_of(const std::vector<int>& lengths) {
  std::vector<int> offsets(lengths.size(), 0);
  if (!lengths.empty()) std::exclusive_scan(lengths.begin(), lengths.end(), offsets.begin(), 0);
  return offsets;
}

std::vector<std::string> split(const std::string& joined, const std::vector<int>& lengths,
                               const std::vector<int>& offsets) {
  std::vector<std::string> out;
  out.reserve(lengths.size());
  for (std::size_t i = 0; i < lengths.size(); ++i)
    out.push_back(
        joined.substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(lengths[i])));
  return out;
}

std::size_t total(const std::vector<int>& lengths) {
  return static_cast<std::size_t>(std::accumulate(lengths.begin(), lengths.end(), 0L));
}

}  // namespace

std::vector<std::string> all_gather_strings(MPI_Comm comm, const std::string& mine) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(static_cast<std::size_t>(size));
  MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm);
  const auto offsets = offsets_of(lengths);
  std::string joined(total(lengths), '\0');
  MPI_Allgatherv(mine.data(), length, MPI_CHAR, joined.data(), lengths.data(), offsets.data(),
                 MPI_CHAR, comm);
  return split(joined, lengths, offsets);
}

std::vector<std::string> gather_strings(MPI_Comm comm, const std::string& mine, int root) {
  int size = 0, rank = 0;
  MPI_Comm_size(comm, &size);
  MPI_Comm_rank(comm, &rank);
  const int length = static_cast<int>(mine.size());
  std::vector<int> lengths(rank == root ? static_cast<std::size_t>(size) : 0);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, root, comm);
  const auto offsets = offsets_of(lengths);
  std::string joined(total(lengths), '\0');
  MPI_Gatherv(mine.data(), length, MPI_CHAR, joined.data(), lengths.data(), offsets.data(),
              MPI_CHAR, root, comm);
  return split(joined, lengths, offsets);
}

}  // namespace preflight
