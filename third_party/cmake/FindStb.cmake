# Stb::Stb — Debian's libstb-dev: headers under /usr/include/stb and the implementations compiled into
# libstb (stb_image_write, stb_image, stb_truetype...), so no STB_*_IMPLEMENTATION in our sources.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PC_STB QUIET IMPORTED_TARGET stb)
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Stb REQUIRED_VARS PC_STB_FOUND)
if(Stb_FOUND AND NOT TARGET Stb::Stb)
  add_library(Stb::Stb ALIAS PkgConfig::PC_STB)
endif()
