# Sourced, not run (device-check.sh, gpu-tests.sh): the library path the device bundle's programs
# (preflight, preflight-report, mpirun) run with on a GPU machine. Needs $bundle (the bundle's
# folder); sets $library_path: the bundle's libraries, then this machine's NCCL, cuBLAS and
# nvJPEG, each the first found of $PREFLIGHT_NCCL_LIB, ldconfig, PyTorch's nvidia-* wheels,
# /usr/local/cuda. Only the bundle's programs get it: python3 and torch keep this machine's.
find_lib() {  # NAME PYTHON-PACKAGE: the folder that holds NAME, or nothing
  local name=$1 package=$2 dir
  for dir in ${PREFLIGHT_NCCL_LIB:-} \
             "$(ldconfig -p 2>/dev/null | awk -v n="$name" '$1 == n {print $NF; exit}' | xargs -r dirname)" \
             "$(python3 -c "import $package as p; print(list(p.__path__)[0] + '/lib')" 2>/dev/null)" \
             /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib; do
    [[ -n $dir && -e $dir/$name ]] && { echo "$dir"; return; }
  done
}
library_path=$bundle/lib
for library in "libnccl.so.2 nvidia.nccl" "libcublasLt.so.13 nvidia.cublas" \
               "libnvjpeg.so.13 nvidia.nvjpeg"; do
  # shellcheck disable=SC2086  # two words: the library and its wheel
  library_dir=$(find_lib $library)
  [[ -n $library_dir ]] && library_path+=:$library_dir
done
library_path+=${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
