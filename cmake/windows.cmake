# Windows build (included from CMakeLists.txt when WIN32; docs/windows.md,
# "Building").  Which files build is CMakeLists.txt's folder rule (each
# layer's files and its win32/ subfolder, no src/net/), with a small POSIX
# compat (src/windows/compat/, force-included) and the Windows backend
# (src/windows/).  A file whose work is POSIX through and through but that
# sits beside portable files (not yet split into posix/ and win32/) says so
# in its head comment (" * Builds on: POSIX (why; ...)") and is left out
# here; src/windows/unported.c answers its public functions with
# SBX_E_UNSUPPORTED, and scripts/ci-windows checks the DLL still exports
# every public function.
foreach(f ${SBX_SOURCES})
  file(STRINGS ${f} sbx_posix_only REGEX "^ \\* Builds on: POSIX" LIMIT_COUNT 1)
  if(sbx_posix_only)
    list(REMOVE_ITEM SBX_SOURCES ${f})
  endif()
endforeach()
file(GLOB SBX_WIN_SOURCES CONFIGURE_DEPENDS src/windows/*.c)
list(APPEND SBX_SOURCES ${SBX_WIN_SOURCES})

set(SBX_WIN_COMPAT_DIR ${CMAKE_CURRENT_SOURCE_DIR}/src/windows/compat)
# advapi32: tokens, SIDs, ACLs; ws2_32: inet_pton (profile targets);
# bcrypt: the per-spawn SID's random bits.
set(SBX_WIN_LIBS advapi32 ws2_32 bcrypt)
# No libgcc or winpthread DLL to ship beside ours.
set(SBX_WIN_LINK_OPTIONS -static-libgcc -static)
set(SBX_WIN_RUN_SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/tools/sandbox-run/windows/main.c)
add_compile_options(-include ${SBX_WIN_COMPAT_DIR}/sbx_compat.h)
# The C99 stdio of mingw-w64 (%zu, %lld), not msvcrt's.
add_compile_definitions(__USE_MINGW_ANSI_STDIO=1)
