# Epoxy::Epoxy — libepoxy (GL/EGL function loading) from Debian's libepoxy-dev, found through pkg-config.
# epoxy also resolves EGL entry points (it dlopens libEGL), so the offscreen path needs nothing else.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PC_EPOXY QUIET IMPORTED_TARGET epoxy)
endif()
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Epoxy REQUIRED_VARS PC_EPOXY_FOUND VERSION_VAR PC_EPOXY_VERSION)
if(Epoxy_FOUND AND NOT TARGET Epoxy::Epoxy)
  add_library(Epoxy::Epoxy ALIAS PkgConfig::PC_EPOXY)
endif()
