# ImGui::ImGui — Debian's libimgui-dev: a static libimgui.a that already contains the GLFW and OpenGL3
# backends (headers in /usr/include/imgui/backends). It is built against the system stb (pkg-config
# Requires: stb) and its GLFW backend calls GLFW, so both are linked here. The freetype object in the
# archive is only pulled in by imgui_freetype.h users, which we are not.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PC_IMGUI QUIET IMPORTED_TARGET imgui)
endif()
find_package(glfw3 CONFIG QUIET)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(ImGui REQUIRED_VARS PC_IMGUI_FOUND glfw3_FOUND VERSION_VAR PC_IMGUI_VERSION)
if(ImGui_FOUND AND NOT TARGET ImGui::ImGui)
  add_library(ImGui::ImGui INTERFACE IMPORTED)
  target_link_libraries(ImGui::ImGui INTERFACE PkgConfig::PC_IMGUI glfw ${CMAKE_DL_LIBS})
endif()
