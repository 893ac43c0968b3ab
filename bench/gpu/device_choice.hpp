// Which of the GPUs a rank sees it takes, and whether two ranks of a host ended on one GPU. Pure:
// the NCCL backend gathers what each rank took, this judges it (tests/unit/gpu_parts_test.cpp).
//
// A launcher shows a rank either every GPU of its host (mpirun; one rank per GPU by host-local
// rank) or only its own (srun --gpus-per-task=1 or --gpu-bind, Kubernetes device plugins: each
// rank sees one GPU, device 0). Taking the host-local rank modulo the GPUs it sees is right in
// both cases; what decides whether the job can run is whether the GPUs taken are distinct.
#pragma once

#include <string>
#include <vector>

namespace preflight::gpu {

// The CUDA device index this rank takes: host_rank modulo visible; -1 when it sees none.
int device_for(int host_rank, int visible);

// "" when every host rank took a GPU of its own; else which ranks share which GPU, e.g. "host
// ranks 0 and 2 both took GPU 0000:18:00.0". gpu_of_host_rank: the PCI bus id (or UUID) of the
// GPU each of a host's ranks took, by host rank.
std::string shared_gpu(const std::vector<std::string>& gpu_of_host_rank);

}  // namespace preflight::gpu
