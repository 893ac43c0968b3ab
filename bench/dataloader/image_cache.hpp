// The page-cache state of the images a pass will read: evicted first unless warm, then how much
// of them is cached (the cache-state proof, as the storage family's). Shared by the dataloader
// case and the step's data feed, so both start a pass from the same proven state.
#pragma once

#include <cstddef>
#include <vector>

#include "dataloader/image_set.hpp"
#include "storage/cache_state.hpp"

namespace preflight::dataloader {

// Evicts the pages of images `order` of `set` when `cache` evicts, then returns the fraction of
// their bytes resident in the page cache (NaN for no images). Throws naming the image whose
// file cannot be opened or evicted.
double set_cache_state(const ImageSet& set, const std::vector<std::size_t>& order,
                       storage::CacheState cache);

}  // namespace preflight::dataloader
