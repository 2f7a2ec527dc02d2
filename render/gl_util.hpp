#pragma once
// Small OpenGL helpers shared by the render modules: program building, debug labels, error checks.
#include <epoxy/gl.h>

#include <initializer_list>
#include <string>

namespace nbody {

// Compiles and links a vertex + fragment program. Throws nbody::Error with the driver's log on failure.
GLuint compile_program(const char* vert_src, const char* frag_src, const char* label);

// The same, each stage given as parts compiled as one text in order (a shared piece first, with #version).
GLuint compile_program(std::initializer_list<const char*> vert_parts,
                       std::initializer_list<const char*> frag_parts, const char* label);

// Compiles and links a compute program from parts. Throws nbody::Error with the driver's log on failure.
GLuint compile_compute_program(std::initializer_list<const char*> parts, const char* label);

// Names a GL object for debuggers and the debug-output log (no-op where KHR_debug is missing).
void label_object(GLenum kind, GLuint id, const char* label);

// Throws nbody::Error "OpenGL error 0x.... during <what>" if the GL error flag is set.
void check_gl(const char* what);

// "OpenGL 4.5 (Core Profile) Mesa ... on llvmpipe (...)" for logs and the panel.
std::string gl_description();

// True if the current context is at least OpenGL major.minor.
bool gl_at_least(int major, int minor);

}  // namespace nbody
