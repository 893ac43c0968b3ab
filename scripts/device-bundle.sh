#!/usr/bin/env bash
# Makes the bundle scripts/device-check.sh runs on a GPU machine that has the CUDA driver, CMake
# and PyTorch but none of our Debian libraries and no package registry:
#
#   device-bundle/bin/      preflight, preflight-report, Open MPI's mpirun (orterun) and orted
#   device-bundle/lib/      their shared libraries as ldd resolves them here, less the C library,
#                           the dynamic loader and what the GPU machine brings (libcuda, NCCL,
#                           cuBLAS, NVML); the CUDA runtime is linked into preflight (static)
#   device-bundle/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/, .../pmix2/  Open MPI's and PMIx's
#                           plugins, where OPAL_PREFIX=device-bundle makes Open MPI look
#   device-bundle/share/openmpi/  Open MPI's help texts
#   device-bundle/lib/glibc/      this machine's C library and loader, for a GPU machine whose
#                           own C library is older (device-check.sh falls back to them)
#   device-bundle/device-check.sh, configs/device/, scripts/device/ (torch.matmul, the table's
#                           summaries), tests/nccl/  what the check runs
#   device-bundle/share/preflight/references/  the reference envelopes, where preflight-report
#                           looks beside itself (bin/../share/preflight/references)
#
# device-bundle.sh [--build DIR] [--out DIR] [--from-build]
#   --build DIR    the build folder (default build/device, configured with
#                  PREFLIGHT_DEVICE_CHECK_ONLY=ON, PREFLIGHT_CUDA=ON and sm_90 + PTX)
#   --from-build   take the executables from DIR as they are (e.g. build/ci), build nothing
#   --out DIR      where the bundle goes (default device-bundle, git-ignored); replaced
# Exit 0 when the bundle is made and under 64 MiB, 2 on bad usage or a missing piece.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build/device out=$root/device-bundle from_build=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --from-build) from_build=1; shift ;;
    *) echo "device-bundle.sh: unknown argument $1 (see the header)" >&2; exit 2 ;;
  esac
done
limit_mib=64
if [[ $from_build -eq 0 ]]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPREFLIGHT_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DPREFLIGHT_DEVICE_CHECK_ONLY=ON >/dev/null
  ninja -C "$build" preflight preflight-report
fi
for exe in "$build/bench/preflight" "$build/reports/preflight-report"; do
  [[ -x $exe ]] || { echo "device-bundle.sh: $exe not built" >&2; exit 2; }
done
mpi_plugins=$(ompi_info --path pkglibdir --parsable | sed 's/.*://')
mpi_data=$(ompi_info --path pkgdatadir --parsable | sed 's/.*://')
pmix_root=$(dirname "$(dirname "$(find /usr/lib -path '*pmix*/lib/pmix' -type d | head -1)")")
[[ -d $mpi_plugins && -d $pmix_root ]] || { echo "device-bundle.sh: Open MPI or PMIx plugins not found" >&2; exit 2; }

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/share"
cp "$build/bench/preflight" "$build/reports/preflight-report" "$out/bin/"
cp "$(readlink -f "$(command -v mpirun)")" "$out/bin/mpirun"
cp "$(command -v orted)" "$out/bin/orted"
# Open MPI finds its plugins and help texts under OPAL_PREFIX by the paths it was built with.
rel() { realpath --relative-to=/usr "$1"; }
mkdir -p "$out/$(dirname "$(rel "$mpi_plugins")")" "$out/$(dirname "$(rel "$pmix_root")")"
cp -r "$mpi_plugins" "$out/$(rel "$mpi_plugins")"
cp -r "$pmix_root" "$out/$(rel "$pmix_root")"
rm -rf "$out/$(rel "$pmix_root")/include"
cp -r "$mpi_data" "$out/share/"
# Plugins for networks this check does not use pull in large libraries: leave them out.
find "$out" -name 'mca_*ucx*' -o -name 'mca_*openib*' -o -name 'mca_*psm*' -o -name 'mca_*ofi*' \
  -o -name 'mca_*verbs*' -o -name 'mca_*portals*' -o -name 'mca_*cuda*' -o -name 'mca_*java*' | xargs rm -f

# Shared libraries as ldd resolves them, but not the C library, the loader, or what the GPU
# machine has its own of (the driver's libcuda and NVML, NCCL, cuBLAS).
skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libpthread|libdl\.so|librt\.so|libresolv|libcuda\.so|libnvidia-|libnccl|libcublas|libcudart)'
# One ldd over every executable and plugin: it lists each one's whole closure of libraries.
find "$out/bin" "$out/lib" -type f \( -perm -u+x -o -name '*.so' \) -print0 |
  xargs -0 ldd 2>/dev/null | awk '/=> \//{print $1, $3}' | sort -u |
  while read -r name path; do
    [[ $name =~ $skip || -e $out/lib/$name ]] && continue
    cp -L "$path" "$out/lib/$name"
  done

# This machine's C library and loader, apart: device-check.sh runs preflight through them only
# where the GPU machine's C library is older than the one these libraries were built against
# (Open MPI's libevent here needs glibc 2.36).
mkdir -p "$out/lib/glibc"
for name in ld-linux-x86-64.so.2 libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2 librt.so.1 libresolv.so.2; do
  cp -L "/lib/x86_64-linux-gnu/$name" "$out/lib/glibc/$name"
done

mkdir -p "$out/configs" "$out/tests"
cp "$root/scripts/device-check.sh" "$out/"
cp -r "$root/configs/device" "$out/configs/"
mkdir -p "$out/scripts" && cp -r "$root/scripts/device" "$out/scripts/"
cp -r "$root/tests/nccl" "$out/tests/"
cp -r "$root/tests/mpi" "$out/tests/"
mkdir -p "$out/share/preflight" && cp -r "$root/configs/references" "$out/share/preflight/"
size_kib=$(du -sk "$out" | cut -f1)
echo "device-bundle.sh: $out, $((size_kib / 1024)) MiB ($(find "$out" -type f | wc -l) files)"
# A bundle from a normal build (--from-build, the CI test) carries OpenBLAS, which the
# device-check build leaves out (matmul's openblas_backend_none.cpp): it does not count.
if [[ $from_build -eq 1 && -f $out/lib/libopenblas.so.0 ]]; then
  blas_kib=$(du -sk "$out/lib/libopenblas.so.0" | cut -f1)
  size_kib=$((size_kib - blas_kib))
  echo "device-bundle.sh: $((size_kib / 1024)) MiB without OpenBLAS ($((blas_kib / 1024)) MiB), which the device-check build leaves out"
fi
if [[ $size_kib -ge $((limit_mib * 1024)) ]]; then
  echo "device-bundle.sh: the bundle is over ${limit_mib} MiB" >&2
  exit 2
fi
