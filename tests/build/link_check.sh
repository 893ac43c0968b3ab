#!/usr/bin/env bash
# Each dependency links only where it is used: libfabric nowhere (opened at run time), liburing
# into the storage family (its io_uring engine) and the executables made with it, never into the
# harness or the comm family; libturbojpeg and libpng into the dataloader's image kernels alone;
# and the serial HDF5 alone, never next to a parallel one.
# link_check.sh NINJA BUILD_DIR PREFLIGHT PREFLIGHT_REPORT
set -uo pipefail
ninja=$1 build=$2 preflight=$3 report=$4
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
link_line() { "$ninja" -C "$build" -t commands "$1" | tail -1; }

probe=$(link_line comm_only_probe)
[[ $probe == *libpreflight_comm.a* ]] || fail "comm_only_probe does not link libpreflight_comm.a: $probe"
[[ $probe == *uring* ]] && fail "comm_only_probe (harness + comm) links liburing: $probe"
[[ $probe == *libpreflight_storage* ]] && fail "comm_only_probe links the storage family: $probe"

main=$(link_line preflight)
[[ $main == *uring* ]] || fail "preflight's link line lacks liburing (the io_uring engine needs it): $main"
[[ $(link_line preflight-report) == *uring* ]] && fail "preflight-report links liburing"

# The static libraries: only preflight_storage holds the io_uring engine's object.
# (each family's library is built in its own folder, bench/<family>/).
for lib in harness comm storage; do
  a=$(find "$build/bench" -name "libpreflight_$lib.a" | head -n 1)
  [[ -n $a ]] || { fail "libpreflight_$lib.a missing under $build/bench"; continue; }
  undefined=$(nm "$a" 2>/dev/null | grep ' U io_uring_')
  if [[ -n $undefined ]]; then
    [[ $lib == storage ]] || fail "libpreflight_$lib.a calls io_uring"
  else
    [[ $lib == storage ]] && fail "libpreflight_storage.a has no io_uring engine"
  fi
done

# NCCL: only the comm family's NCCL backend calls collectives (and the GPU environment query
# its version); never the harness or another family, never the report.
for lib in harness storage; do
  a=$(find "$build/bench" -name "libpreflight_$lib.a" | head -n 1)
  [[ -n $a && $(nm "$a" 2>/dev/null) == *" U nccl"* ]] && fail "libpreflight_$lib.a calls NCCL"
done
if [[ $(ldd "$preflight") == *libnccl* ]]; then
  a=$(find "$build/bench" -name libpreflight_comm.a | head -n 1)
  [[ $(nm "$a" 2>/dev/null) == *" U ncclCommInitRank"* ]] || fail "preflight loads NCCL but libpreflight_comm.a has no NCCL backend"
fi
[[ $(ldd "$report") == *libnccl* ]] && fail "preflight-report loads NCCL"

for exe in "$preflight" "$report"; do
  libs=$(ldd "$exe" | grep -o 'libhdf5[^ ]*' | sort -u | tr '\n' ' ')
  [[ $libs == *openmpi* || $libs == *mpich* ]] && fail "$(basename "$exe") loads a parallel HDF5: $libs"
  echo "$(basename "$exe"): HDF5 ${libs:-none}"
done
[[ $(ldd "$preflight") == *liburing* ]] || fail "preflight does not load liburing"
[[ $(ldd "$report") == *liburing* ]] && fail "preflight-report loads liburing"
[[ $(ldd "$report") == *libmpi* ]] && fail "preflight-report loads MPI"
# libfabric is opened when the ofi transport is asked for (bench/fabric/ofi_library.hpp): linked,
# its dependencies' constructors (libpsm_infinipath: 0.25 s of usleep pinned to CPU 0) would run
# in every preflight process.
for exe in "$preflight" "$report"; do
  [[ $(ldd "$exe") == *libfabric* ]] && fail "$(basename "$exe") links libfabric"
done
# cuBLASLt likewise (bench/matmul/cublaslt_library.hpp): linked, its constructors took 0.3 s of
# every preflight process's start (--version: 0.42 s, 0.045 s without).
for exe in "$preflight" "$report"; do
  [[ $(ldd "$exe") == *libcublas* ]] && fail "$(basename "$exe") links cuBLAS"
done
a=$(find "$build/bench" -name libpreflight_fabric.a | head -n 1)
[[ -n $a && $(nm "$a" 2>/dev/null) == *" U fi_getinfo"* ]] && fail "libpreflight_fabric.a calls fi_getinfo directly"
# The image codecs: only the dataloader's image kernels use them; the report never loads them.
[[ $(ldd "$preflight") == *libturbojpeg* ]] || fail "preflight does not load libturbojpeg"
[[ $(ldd "$report") == *libturbojpeg* || $(ldd "$report") == *libpng* ]] && fail "preflight-report loads an image codec"
[[ $probe == *turbojpeg* || $probe == *libpng* ]] && fail "comm_only_probe links an image codec: $probe"
for lib in harness storage comm; do
  a=$(find "$build/bench" -name "libpreflight_$lib.a" | head -n 1)
  [[ -n $a && $(nm "$a" 2>/dev/null) == *" U tjInit"* ]] && fail "libpreflight_$lib.a calls TurboJPEG"
done

echo "comm_only_probe: $(echo "$probe" | grep -o 'lib[a-z_0-9]*\.\(a\|so\)' | sort -u | tr '\n' ' ')"
[[ $failures -eq 0 ]] && echo "link check: ok"
[[ $failures -eq 0 ]]
