/* Linked into every executable of the ASan build (scripts/sanitize.sh), never into nbody itself.
 *
 * LeakSanitizer counts memory as reachable when a loaded module's globals point at it. Mesa's GL driver
 * (swrast_dri.so / libgallium) is dlclose'd when GLFW closes the X display, taking with it the only
 * pointers to memory it allocated in eglInitialize / context creation: LSan then reports those blocks as
 * leaks from "<unknown module>" frames, which no suppression can name. With dlclose a no-op, every module
 * stays mapped to the end, that memory stays reachable, and a real leak in a library is still reported
 * under the library's name (tests/sanitizers/lsan.supp). The executable's definition interposes on
 * libc's for every library (the build exports it with --export-dynamic-symbol=dlclose). */
int dlclose(void* handle) {
    (void)handle;
    return 0;
}
