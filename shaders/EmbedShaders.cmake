# nbody_embed_shaders(TARGET target SHADERS a.vert b.frag ...): generates <build>/generated/shaders/a_vert.hpp
# (constant nbody::shaders::kAVert) for each file and adds the folder to the target's include path, so
# sources write #include "shaders/a_vert.hpp".
set(NBODY_EMBED_SHADER_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/embed_shader.cmake")

function(nbody_embed_shaders)
  cmake_parse_arguments(ARG "" "TARGET" "SHADERS" ${ARGN})
  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/generated")
  set(headers)
  foreach(src IN LISTS ARG_SHADERS)
    get_filename_component(abs "${src}" ABSOLUTE)
    get_filename_component(stem "${src}" NAME_WE)
    get_filename_component(ext "${src}" LAST_EXT)
    string(SUBSTRING "${ext}" 1 -1 ext)
    # particle + vert -> kParticleVert
    set(name "k")
    string(REPLACE "_" ";" parts "${stem};${ext}")
    foreach(part IN LISTS parts)
      string(SUBSTRING "${part}" 0 1 first)
      string(SUBSTRING "${part}" 1 -1 rest)
      string(TOUPPER "${first}" first)
      string(APPEND name "${first}${rest}")
    endforeach()
    set(header "${out_dir}/shaders/${stem}_${ext}.hpp")
    add_custom_command(
      OUTPUT "${header}"
      COMMAND ${CMAKE_COMMAND} -DINPUT=${abs} -DOUTPUT=${header} -DNAME=${name} -P ${NBODY_EMBED_SHADER_SCRIPT}
      DEPENDS "${abs}" "${NBODY_EMBED_SHADER_SCRIPT}"
      COMMENT "Embedding shader ${stem}.${ext}"
      VERBATIM)
    list(APPEND headers "${header}")
  endforeach()
  target_sources(${ARG_TARGET} PRIVATE ${headers})
  target_include_directories(${ARG_TARGET} PRIVATE "${out_dir}")
endfunction()
