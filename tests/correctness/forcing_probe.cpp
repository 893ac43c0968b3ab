// Proves that forcing an Open MPI algorithm takes effect (bench/correctness/algorithms.hpp):
// the sweep's own forced_duplicate for each of all-reduce's algorithms, and an all-reduce of
// float data whose sums round (not the exact fill pattern), so that algorithms that add in a
// different order give different bits. Without use_dynamic_rules at MPI_Init every algorithm
// gives the default's bits, and a sweep would run the default again and again unseen: this
// probe fails then. Prints, on rank 0, one line per algorithm (its result's hash) and PASS when
// basic_linear, ring and recursive_doubling give three different results.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "comm/collective.hpp"
#include "correctness/algorithms.hpp"

namespace pc = preflight::correctness;

namespace {

std::uint64_t hash_of(const std::vector<float>& v) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the bytes
  for (float x : v) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &x, sizeof(bits));
    for (int b = 0; b < 4; ++b) h = (h ^ ((bits >> (8 * b)) & 0xff)) * 1099511628211ull;
  }
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  pc::set_dynamic_rules_default();
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::size_t count = 1 << 16;  // past every fall-back of algorithms.hpp on 4 ranks
  std::vector<float> in(count), out(count);
  std::uint32_t state = 12345u + 7919u * static_cast<std::uint32_t>(rank);
  for (auto& x : in) {
    state = state * 1664525u + 1013904223u;
    x = static_cast<float>(state >> 8) / static_cast<float>(1 << 24) * (rank % 2 ? 1e4f : 1e-3f);
  }
  const auto algorithms = pc::mpi_algorithms(preflight::comm::Collective::kAllReduce);
  std::map<std::string, std::uint64_t> hashes;
  for (const auto& a : algorithms.list) {
    std::vector<std::pair<std::string, int>> cvars = {{algorithms.cvar, a.value}};
    if (a.name == "segmented_ring")
      cvars.emplace_back(algorithms.cvar + "_segmentsize", pc::kSegmentBytes);
    MPI_Comm comm = pc::forced_duplicate(MPI_COMM_WORLD, cvars);
    MPI_Allreduce(in.data(), out.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM, comm);
    MPI_Comm_free(&comm);
    hashes[a.name] = hash_of(out);
  }
  MPI_Allreduce(in.data(), out.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  hashes["default"] = hash_of(out);
  if (rank == 0) {
    std::printf("dynamic rules: %s\n",
                algorithms.why_not_forced.empty() ? "on" : algorithms.why_not_forced.c_str());
    for (const auto& [name, h] : hashes)
      std::printf("%-20s %016llx\n", name.c_str(), static_cast<unsigned long long>(h));
    const std::set<std::uint64_t> three = {hashes["basic_linear"], hashes["ring"],
                                           hashes["recursive_doubling"]};
    std::printf("%s: %zu different results from basic_linear, ring, recursive_doubling\n",
                three.size() == 3 ? "PASS" : "FAIL", three.size());
  }
  MPI_Finalize();
  return 0;
}
