// One constant per family name: what a case's `family` attribute holds, what a campaign's
// `family:` key names, and what the report's plug-ins compare a case's family with.
#pragma once

#include <string_view>

namespace preflight::schema {

inline constexpr std::string_view kCommFamily = "comm";
inline constexpr std::string_view kStorageFamily = "storage";
inline constexpr std::string_view kCheckpointFamily = "checkpoint";
inline constexpr std::string_view kMatmulFamily = "matmul";
inline constexpr std::string_view kMemoryFamily = "memory";
inline constexpr std::string_view kFabricFamily = "fabric";
inline constexpr std::string_view kDataloaderFamily = "dataloader";
inline constexpr std::string_view kStepFamily = "step";
inline constexpr std::string_view kCorrectnessFamily = "correctness";

}  // namespace preflight::schema
