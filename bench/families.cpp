// preflight's families, one line each.
#include "families.hpp"

#include <array>

#include "checkpoint/checkpoint_family.hpp"
#include "comm/comm_family.hpp"
#include "correctness/algorithms.hpp"
#include "correctness/correctness_family.hpp"
#include "dataloader/dataloader_family.hpp"
#include "dataloader/dataset_make.hpp"
#include "fabric/fabric_family.hpp"
#include "matmul/matmul_family.hpp"
#include "memory/memory_family.hpp"
#include "preflight/schema/family_names.hpp"
#include "step/step_family.hpp"
#include "storage/storage_family.hpp"

namespace preflight {

std::span<const FamilyEntry> family_table() {
  static constexpr std::array kFamilies = {
      FamilyEntry{schema::kCommFamily, &comm::make_comm_family},
      FamilyEntry{schema::kStorageFamily, &storage::make_storage_family},
      FamilyEntry{schema::kCheckpointFamily, &checkpoint::make_checkpoint_family},
      FamilyEntry{schema::kMatmulFamily, &matmul::make_matmul_family},
      FamilyEntry{schema::kMemoryFamily, &memory::make_memory_family},
      FamilyEntry{schema::kFabricFamily, &fabric::make_fabric_family},
      FamilyEntry{schema::kDataloaderFamily, &dataloader::make_dataloader_family},
      FamilyEntry{schema::kStepFamily, &step::make_step_family},
      // Open MPI's tuned component takes a forced algorithm (the collective sweep) only with
      // use_dynamic_rules set at MPI_Init (correctness/algorithms.hpp).
      FamilyEntry{schema::kCorrectnessFamily, &correctness::make_correctness_family,
                  &correctness::set_dynamic_rules_default},
  };
  return kFamilies;
}

std::span<const ToolEntry> tool_table() {
  static constexpr std::array kTools = {
      ToolEntry{"dataset", "Image data sets for the dataloader family (dataset make)",
                &dataloader::add_dataset_commands},
  };
  return kTools;
}

}  // namespace preflight
