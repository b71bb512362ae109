/*
 * vramplan: the command-line tool. Uses only the public API of libvramplan.
 *
 * Exit status: 0 success, 1 bad input (message on stderr as file:line:col: what),
 * 2 usage error. The commands live one per file (estimate.c has estimate and fit, plan.c
 * plan and diagnose); help.c holds every help text and the man page.
 */
#include <errno.h>
#include <string.h>

#include "cli.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} commands[] = {
    { "inspect", cmd_inspect }, { "fit", cmd_fit },         { "plan", cmd_plan },
    { "cards", cmd_cards },     { "diagnose", cmd_diagnose }, { "init", cmd_init },
};

static int help_command(int argc, char **argv)
{
    if (argc > 2) {
        fprintf(stderr, "usage: vramplan help [COMMAND]\n");
        return EXIT_USAGE;
    }
    if (help_print(stdout, argc == 2 ? argv[1] : NULL) != 0) {
        char t1[256];
        fprintf(stderr, "vramplan help: unknown command '%s'\n", shown(t1, sizeof(t1), argv[1], 0));
        return EXIT_USAGE;
    }
    return 0;
}

static int run(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "estimate") == 0)
        return cmd_estimate(argc - 1, argv + 1, 0);
    if (argc > 1 && strcmp(argv[1], "help") == 0)
        return help_command(argc - 1, argv + 1);
    for (size_t i = 0; argc > 1 && i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        char t1[256];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            help_print(stdout, NULL);
            return 0;
        }
        if (strcmp(a, "-V") == 0 || strcmp(a, "--version") == 0) {
            printf("vramplan %s (libvramplan %s)\n", VP_VERSION_STRING, vp_version_string());
            return 0;
        }
        if (strcmp(a, "--man") == 0) {
            help_man(stdout);
            return 0;
        }
        size_t n;
        const char *const *names = help_commands(&n);
        const char *near = a[0] == '-' ? NULL : closest_name(a, names, n);
        fprintf(stderr, a[0] == '-' ? "vramplan: unknown option '%s'" : "vramplan: unknown command '%s'",
                shown(t1, sizeof(t1), a, 0));
        if (near != NULL)
            fprintf(stderr, "; did you mean '%s'?", near);
        fprintf(stderr, "\n\n");
        help_print(stderr, NULL);
        return EXIT_USAGE;
    }
    char *none[] = { argv[0], NULL };
    return cmd_estimate(1, none, 1);
}

int main(int argc, char **argv)
{
    int rc = run(argc, argv);
    /* what went to stdout directly (--help, --version, --man) must have arrived: a full
     * disk or a closed pipe is an error, not a success (the commands' own output says so
     * itself, through out_close()) */
    if ((fflush(stdout) != 0 || ferror(stdout)) && rc == 0) {
        fprintf(stderr, "vramplan: cannot write to stdout: %s\n", strerror(errno));
        rc = EXIT_BAD_INPUT;
    }
    return rc;
}
