#!/usr/bin/env bash
# Installs the Debian packages preflight needs to build, test and run. Idempotent and
# non-interactive; when everything is there it only checks and returns.
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config git clang-format
  openmpi-bin libopenmpi-dev
  libhdf5-dev hdf5-tools
  libfmt-dev libyaml-cpp-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev libbenchmark-dev
  libfabric-dev libfabric-bin libhwloc-dev liburing-dev libopenblas-dev libdeflate-dev
  libturbojpeg0-dev libpng-dev
  libjpeg-turbo-progs python3-pil mate-backgrounds  # the dataloader parity scripts: tjbench, a PIL loop, real photographs
  fio gnuplot-nox chromium python3 python3-h5py python3-numpy python3-pandas  # pandas: docs/results.md
  bc iproute2 procps util-linux  # used by the test scripts (emulated hosts, timing checks)
  slurm-wlm munge prometheus prometheus-node-exporter python3-yaml  # tests: a local Slurm, the Prometheus export, the MPIJob manifest
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi
echo "setup: installing ${missing[*]}"
sudo=
[[ $(id -u) -eq 0 ]] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
