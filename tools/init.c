#include "cli.h"
int cmd_init(int argc, char **argv) { (void)argc; (void)argv; return 0; }
