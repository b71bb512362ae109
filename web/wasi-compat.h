/*
 * Force-included (-include) when the library is compiled for wasm32-wasi (web/meson.build).
 * WASI has no chmod and no absolute paths, so wasi-libc leaves fchmod() and realpath()
 * undeclared. Only vp_sheet_save() calls them, and the page never saves a file (it offers
 * a download instead): web/wasi-compat.c defines both to fail with ENOSYS, which
 * vp_sheet_save() reports as VP_EIO like any other failed write.
 */
#ifndef VRAMPLAN_WEB_WASI_COMPAT_H
#define VRAMPLAN_WEB_WASI_COMPAT_H
#if defined(__wasi__)
#include <sys/types.h>
char *realpath(const char *restrict path, char *restrict resolved);
int fchmod(int fd, mode_t mode);
#endif
#endif
