#include "gl_util.hpp"

#include <cstdio>
#include <string>

#include "sim/error.hpp"

namespace nbody {
namespace {

std::string shader_log(GLuint shader) {
    GLint len = 0;
    glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &len);
    std::string log(static_cast<std::size_t>(len > 1 ? len : 1), '\0');
    glGetShaderInfoLog(shader, len, nullptr, log.data());
    return log.c_str();
}

std::string program_log(GLuint program) {
    GLint len = 0;
    glGetProgramiv(program, GL_INFO_LOG_LENGTH, &len);
    std::string log(static_cast<std::size_t>(len > 1 ? len : 1), '\0');
    glGetProgramInfoLog(program, len, nullptr, log.data());
    return log.c_str();
}

// Driver logs span lines; the error contract is one line.
std::string one_line(std::string s) {
    for (char& c : s) {
        if (c == '\n' || c == '\r') c = ' ';
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
}

const char* stage_suffix(GLenum stage) {
    switch (stage) {
        case GL_VERTEX_SHADER:
            return ".vert";
        case GL_FRAGMENT_SHADER:
            return ".frag";
        case GL_COMPUTE_SHADER:
            return ".comp";
        default:
            return "";
    }
}

GLuint compile_stage(GLenum stage, std::initializer_list<const char*> parts, const char* label) {
    GLuint s = glCreateShader(stage);
    glShaderSource(s, GLsizei(parts.size()), parts.begin(), nullptr);
    glCompileShader(s);
    GLint ok = GL_FALSE;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (ok != GL_TRUE) {
        std::string log = shader_log(s);
        glDeleteShader(s);
        throw Error(std::string("shader '") + label + stage_suffix(stage) +
                    "' failed to compile: " + one_line(log));
    }
    return s;
}

// Links the shaders (deleting them) into a labelled program.
GLuint link_program(std::initializer_list<GLuint> shaders, const char* label) {
    GLuint p = glCreateProgram();
    for (GLuint s : shaders) glAttachShader(p, s);
    glLinkProgram(p);
    for (GLuint s : shaders) glDeleteShader(s);
    GLint ok = GL_FALSE;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (ok != GL_TRUE) {
        std::string log = program_log(p);
        glDeleteProgram(p);
        throw Error(std::string("shader program '") + label + "' failed to link: " + one_line(log));
    }
    label_object(GL_PROGRAM, p, label);
    return p;
}

}  // namespace

GLuint compile_program(const char* vert_src, const char* frag_src, const char* label) {
    using Parts = std::initializer_list<const char*>;
    return compile_program(Parts{vert_src}, Parts{frag_src}, label);
}

GLuint compile_program(std::initializer_list<const char*> vert_parts,
                       std::initializer_list<const char*> frag_parts, const char* label) {
    GLuint vs = compile_stage(GL_VERTEX_SHADER, vert_parts, label);
    GLuint fs = 0;
    try {
        fs = compile_stage(GL_FRAGMENT_SHADER, frag_parts, label);
    } catch (...) {
        glDeleteShader(vs);
        throw;
    }
    return link_program({vs, fs}, label);
}

GLuint compile_compute_program(std::initializer_list<const char*> parts, const char* label) {
    return link_program({compile_stage(GL_COMPUTE_SHADER, parts, label)}, label);
}

void label_object(GLenum kind, GLuint id, const char* label) {
    if (gl_at_least(4, 3) || epoxy_has_gl_extension("GL_KHR_debug")) glObjectLabel(kind, id, -1, label);
}

void check_gl(const char* what) {
    GLenum e = glGetError();
    if (e == GL_NO_ERROR) return;
    while (glGetError() != GL_NO_ERROR) {
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%04x", e);
    throw Error(std::string("OpenGL error ") + buf + " during " + what);
}

std::string gl_description() {
    auto str = [](GLenum name) {
        const auto* s = reinterpret_cast<const char*>(glGetString(name));
        return std::string(s ? s : "?");
    };
    return "OpenGL " + str(GL_VERSION) + " on " + str(GL_RENDERER);
}

bool gl_at_least(int major, int minor) {
    int v = epoxy_gl_version();  // e.g. 45
    return v >= major * 10 + minor;
}

}  // namespace nbody
