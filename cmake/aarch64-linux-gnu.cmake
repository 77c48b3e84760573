# Cross-compiling for 64-bit ARM Linux (docs/arm64.md) with Debian's
# g++-aarch64-linux-gnu:
#
#   cmake -G Ninja -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
#
# Libraries come from the cross toolchain's sysroot (/usr/aarch64-linux-gnu:
# libc, libstdc++) and from TORCHEDGE_ARM64_SYSROOT, Debian's arm64 XNNPACK,
# pthreadpool, cpuinfo and GoogleTest packages unpacked by scripts/setup.sh
# (not installed: the XNNPACK and pthreadpool packages cannot sit beside
# their amd64 twins). Tests run through qemu-user (CMAKE_CROSSCOMPILING_EMULATOR):
# -L points the emulated dynamic loader at the toolchain's sysroot and
# LD_LIBRARY_PATH at the unpacked libraries.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

if(NOT TORCHEDGE_ARM64_SYSROOT)
  get_filename_component(TORCHEDGE_ARM64_SYSROOT ${CMAKE_CURRENT_LIST_DIR}/../.arm64-sysroot ABSOLUTE)
endif()
set(TORCHEDGE_ARM64_SYSROOT ${TORCHEDGE_ARM64_SYSROOT} CACHE PATH
    "arm64 libraries unpacked by scripts/setup.sh")
set(TORCHEDGE_ARM64_LIBDIR ${TORCHEDGE_ARM64_SYSROOT}/usr/lib/aarch64-linux-gnu)
if(NOT EXISTS ${TORCHEDGE_ARM64_LIBDIR}/libXNNPACK.so)
  message(FATAL_ERROR "no arm64 XNNPACK in ${TORCHEDGE_ARM64_SYSROOT}: run scripts/setup.sh")
endif()

# Libraries, headers and CMake packages from the two sysroots only; programs
# (flatc, ccache) from the host.
set(CMAKE_FIND_ROOT_PATH ${TORCHEDGE_ARM64_SYSROOT} /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# libXNNPACK.so needs libcpuinfo.so.0 and libpthreadpool.so.0 at link time.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,-rpath-link,${TORCHEDGE_ARM64_LIBDIR}")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-Wl,-rpath-link,${TORCHEDGE_ARM64_LIBDIR}")

# The toolchain's libc comes first on LD_LIBRARY_PATH: where libc6:arm64 is
# installed too, ld.so.cache points at /lib/aarch64-linux-gnu/libc.so.6, a
# different build from the sysroot's loader, and the first pthread_create
# then spins forever.
find_program(TORCHEDGE_QEMU_AARCH64 qemu-aarch64)
if(TORCHEDGE_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${TORCHEDGE_QEMU_AARCH64} -L /usr/aarch64-linux-gnu
      -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib:${TORCHEDGE_ARM64_LIBDIR})
endif()
