# Finds what the device backends need and sets:
#   GPUCAP_HAVE_CUDA         nvcc works: kernels/device_backend.cu is built for CUDA
#   GPUCAP_HAVE_THRUST_OMP   CCCL headers and OpenMP: the same source is built for Thrust's OpenMP
#   GPUCAP_CCCL_INCLUDE_DIR  where thrust/, cub/ and cuda/std live
set(GPUCAP_HAVE_CUDA OFF)
if(NOT GPUCAP_ENABLE_CUDA STREQUAL "OFF")
  # nvcc is often installed off the PATH, at /usr/local/cuda/bin.
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
    find_program(GPUCAP_NVCC nvcc HINTS /usr/local/cuda/bin)
    if(GPUCAP_NVCC)
      set(CMAKE_CUDA_COMPILER ${GPUCAP_NVCC})
    endif()
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # Named architectures (native fails without a GPU): sm_90 code for H100/H200, plus
    # compute_90 PTX that newer GPUs compile at load time.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90)
    endif()
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(GPUCAP_HAVE_CUDA ON)
    message(STATUS "gpucap: CUDA backend ON (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, "
                   "architectures ${CMAKE_CUDA_ARCHITECTURES})")
  elseif(GPUCAP_ENABLE_CUDA STREQUAL "ON")
    message(FATAL_ERROR "GPUCAP_ENABLE_CUDA=ON but no working nvcc was found; install the CUDA "
                        "toolkit, put nvcc on the PATH or set CUDACXX")
  else()
    message(STATUS "gpucap: CUDA backend OFF (nvcc not found)")
  endif()
endif()

set(GPUCAP_HAVE_THRUST_OMP OFF)
if(NOT GPUCAP_ENABLE_THRUST_OMP STREQUAL "OFF")
  set(_gpucap_cccl_hints /usr/local/cuda/include/cccl /usr/local/cuda/include)
  if(CUDAToolkit_INCLUDE_DIRS)
    list(PREPEND _gpucap_cccl_hints ${CUDAToolkit_INCLUDE_DIRS}/cccl ${CUDAToolkit_INCLUDE_DIRS})
  endif()
  find_path(GPUCAP_CCCL_INCLUDE_DIR thrust/version.h HINTS ${_gpucap_cccl_hints})
  if(GPUCAP_CCCL_INCLUDE_DIR AND GPUCAP_ENABLE_OPENMP)
    set(GPUCAP_HAVE_THRUST_OMP ON)
    message(STATUS "gpucap: Thrust OpenMP backend ON (CCCL headers in ${GPUCAP_CCCL_INCLUDE_DIR})")
  elseif(GPUCAP_ENABLE_THRUST_OMP STREQUAL "ON")
    message(FATAL_ERROR "GPUCAP_ENABLE_THRUST_OMP=ON needs OpenMP and the CCCL headers "
                        "(thrust/version.h; set GPUCAP_CCCL_INCLUDE_DIR)")
  else()
    message(STATUS "gpucap: Thrust OpenMP backend OFF (no CCCL headers or no OpenMP)")
  endif()
endif()
