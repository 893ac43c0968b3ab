# Every dependency comes from a Debian package (scripts/setup.sh installs them).
find_package(MPI REQUIRED COMPONENTS C)
find_package(fmt 9 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(Threads REQUIRED)
find_package(yaml-cpp REQUIRED)

# Serial HDF5 on purpose: only rank 0 writes. Never ask for the parallel variant here,
# FindHDF5 would then mix the openmpi C library with the serial C++ one.
set(HDF5_PREFER_PARALLEL OFF)
find_package(HDF5 1.10 REQUIRED COMPONENTS C)
if(HDF5_IS_PARALLEL)
  message(FATAL_ERROR "preflight needs the serial HDF5 (libhdf5-dev), found a parallel one: "
                      "${HDF5_C_LIBRARIES}")
endif()

# io_uring for the storage family's io_uring engine (liburing-dev).
find_package(PkgConfig REQUIRED)
pkg_check_modules(URING REQUIRED IMPORTED_TARGET liburing>=2.0)
# libdeflate for the report's reading of compressed matrices (libdeflate-dev:
# results-schema/include/preflight/schema/chunk_decode.hpp says why).
pkg_check_modules(LIBDEFLATE REQUIRED IMPORTED_TARGET libdeflate>=1.10)
# libfabric for the fabric family's ofi transport (libfabric-dev).
pkg_check_modules(LIBFABRIC REQUIRED IMPORTED_TARGET libfabric>=1.9)
# Image decode and encode for the dataloader family (libturbojpeg0-dev, libpng-dev).
pkg_check_modules(TURBOJPEG REQUIRED IMPORTED_TARGET libturbojpeg>=2.0)
pkg_check_modules(LIBPNG REQUIRED IMPORTED_TARGET libpng>=1.6.29)
