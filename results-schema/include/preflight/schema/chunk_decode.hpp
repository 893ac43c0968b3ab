// A matrix's chunks read as stored and decoded here, not through HDF5's filter pipeline: for
// the pipeline write_matrix sets (shuffle, deflate, Fletcher-32) HDF5 inflates with zlib into a
// buffer it grows from the compressed size by doubling, then unshuffles into another, under its
// global lock. A soak's report reads thousands of per-rank rows a round that way: most of its
// time. Here the checksum is verified as HDF5 verifies it, libdeflate inflates into a buffer of
// the chunk's size, and the shuffle is undone into the caller's rows.
//
// Anything else -- another pipeline or type, a chunk stored with a filter skipped, a checksum
// or stream that does not match -- returns false, and the caller reads through HDF5, which
// reads what it can and names what it cannot (a changed byte is still HDF5's checksum error).
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace preflight::h5::detail {

// HDF5's Fletcher-32 (H5_checksum_fletcher32): 16-bit big-endian words, sums folded every 360
// words; an odd last byte is the high half of a word.
std::uint32_t fletcher32(std::span<const std::uint8_t> bytes);

// One chunk as stored by write_matrix's pipeline -> its `elements` doubles, shuffled back, into
// `out`, through `inflated` (at least elements x 8 bytes); false where the checksum or the
// deflate stream does not hold exactly that.
bool decode_chunk(std::span<const std::uint8_t> stored, std::size_t elements,
                  std::span<std::uint8_t> inflated, double* out);

// The rows x cols doubles of `set` into `out` (rows * cols long), chunk by chunk as stored;
// false, with `out` undefined, where this path does not apply (see above).
bool read_matrix_chunks(hid_t set, std::size_t rows, std::size_t cols, double* out);

}  // namespace preflight::h5::detail
