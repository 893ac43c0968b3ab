// The files a storage benchmark reads: written once under <dir>/preflight-<id>/ with a marker
// that says preflight made them and whether they are whole, reused by later runs, removed at
// the end unless kept. Nothing is ever written outside that directory, and nothing in it that
// the marker does not list.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/run/rank_context.hpp"

namespace preflight::storage {

struct DatasetSpec {
  std::string dir;  // the user's directory (absolute)
  std::string id;   // the set is <dir>/preflight-<id>
  std::uint64_t bytes_per_rank = 0;
  bool per_rank_files = false;  // rank-NNNNNN.dat, one per world rank
  bool shared_file = false;     // shared.dat, one segment of bytes_per_rank per world rank
  bool keep = false;            // leave the files for a later run
};

inline constexpr std::uint32_t kSharedFileId = 0xFFFE;  // + 1 fits the pattern's 16 bits

// The file system type of `path` (ext4, xfs, tmpfs, lustre, ...), or "unknown".
std::string fs_type_of(const std::string& path);

class Dataset {
 public:
  Dataset(DatasetSpec spec, const RankContext& ctx);
  ~Dataset();  // removes what this run prepared, unless spec.keep (no MPI calls)
  Dataset(const Dataset&) = delete;
  Dataset& operator=(const Dataset&) = delete;

  // Collective, read-only: the directory exists and is writable, the set directory (if any)
  // is preflight's, the free space suffices, the file system suits the cache states. Throws
  // UsageError on every rank with rank 0's message.
  void check(bool needs_eviction, bool needs_direct) const;
  // Collective: writes what is missing (once per run); a failure (ENOSPC) removes the partial
  // set and throws UsageError on every rank.
  void prepare();
  // Collective, after prepare(): whether the marker vouches for the files' content. A
  // checkpoint's save overwrites them (incomplete until it has finished: a run that ends in the
  // middle leaves nothing a later run trusts), a restore reads them whole (complete). Throws
  // UsageError on every rank when the marker cannot be written.
  void mark_complete(bool complete);

  const DatasetSpec& spec() const { return spec_; }
  std::string set_dir() const;
  std::string rank_file(int world_rank) const;
  std::string shared_file() const;
  std::string fs_type() const;  // of spec.dir

 private:
  std::string marker() const;
  std::vector<std::string> file_names() const;  // every file the spec calls for, bare names
  void remove_files(bool everything) const;

  DatasetSpec spec_;
  RankContext ctx_;
  bool prepared_ = false;
  bool wrote_ = false;     // this run created or completed the set (cleanup removes it)
  bool complete_ = false;  // what the marker says since prepare()
};

}  // namespace preflight::storage
