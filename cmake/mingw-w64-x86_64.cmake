# Cross-compile libsandbox for 64-bit Windows with mingw-w64 (Debian:
# apt-get install mingw-w64).  scripts/ci-windows uses it:
#   cmake -S . -B build-win -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake
# It builds libsandbox.dll, its import library libsandbox.dll.a, the static
# libsandbox.a and sandbox-run.exe (docs/windows.md, "Building").
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(SBX_MINGW_TRIPLET x86_64-w64-mingw32 CACHE STRING "mingw-w64 target triplet")
set(CMAKE_C_COMPILER   ${SBX_MINGW_TRIPLET}-gcc)
set(CMAKE_CXX_COMPILER ${SBX_MINGW_TRIPLET}-g++)
set(CMAKE_RC_COMPILER  ${SBX_MINGW_TRIPLET}-windres)

# Headers and libraries come from the target's sysroot only, programs from
# the build machine.
set(CMAKE_FIND_ROOT_PATH /usr/${SBX_MINGW_TRIPLET})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config must never hand the build machine's Linux libraries to a
# Windows link.
set(ENV{PKG_CONFIG_LIBDIR} /usr/${SBX_MINGW_TRIPLET}/lib/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

# Windows 8 (for the job object's nested jobs and the handle list) and
# the UTF-16 API.
add_compile_definitions(_WIN32_WINNT=0x0602 WINVER=0x0602 UNICODE _UNICODE)
