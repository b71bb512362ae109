#include "cli.h"
int svg_estimate(const char *path, const vp_estimate *e, const vp_sheet *s, vp_bytes cap,
                 const char *cap_from) { (void)path; (void)e; (void)s; (void)cap; (void)cap_from; return 0; }
int svg_plan(const char *path, const vp_plan *p, const vp_sheet *s) { (void)path; (void)p; (void)s; return 0; }
