/*
 * args.c — parsing boltrun's options (names mirror mpirun's).
 */
#include "launcher/args.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *boltrun_usage(void)
{
    return "usage: boltrun [-np N] [-x VAR[=VALUE]]... [--tag-output] [--timeout SEC] [--stdin RANK|none]\n"
           "               [--bind-to core|numa|none] [--map-by slot|node|core|numa] [--report-bindings]\n"
           "               [--host H1[:SLOTS],H2[:SLOTS]...] [--hostfile FILE] [--launch-agent CMD]\n"
           "               [--calibration FILE] [--]\n"
           "               PROGRAM [ARGS...]\n"
           "Starts N ranks of PROGRAM on this host, or on the hosts given.\n"
           "  -np N, -n N, --np N  number of ranks (default 1; with hosts, one per slot)\n"
           "  --host LIST, -H LIST hosts and their slots (no count: 1), e.g. h1:2,h2:2; each is\n"
           "                       reached with the remote shell (BOLT_RSH, default ssh\n"
           "                       -o BatchMode=yes), which starts bolt-hostd there\n"
           "  --hostfile FILE      hosts from FILE, Open MPI's format: \"host slots=N\" per line\n"
           "  --launch-agent CMD   the remote shell command (overrides BOLT_RSH)\n"
           "  --calibration FILE   the cluster's measured links (bolt-cluster check\n"
           "                       --write-calibration): the collectives' cost model uses each\n"
           "                       link (ring along the fastest, mesh only where every link is\n"
           "                       good; bolt-info --coll shows the choices). Default: the file\n"
           "                       bolt.calibration beside the --hostfile, when there is one\n"
           "  -x VAR               pass boltrun's value of VAR to the ranks\n"
           "  -x VAR=VALUE         set VAR=VALUE in the ranks' environment\n"
           "  --tag-output         prefix each output line with \"[rank] \"\n"
           "  --timeout SEC        stop the job after SEC seconds (exit status 124)\n"
           "  --stdin RANK         forward boltrun's stdin to rank RANK (default 0); the\n"
           "                       other ranks read /dev/null\n"
           "  --stdin none         every rank reads /dev/null\n"
           "  --bind-to WHAT       bind each rank to a core, a NUMA node or nothing (default:\n"
           "                       core when the ranks do not outnumber the cores, else none)\n"
           "  --map-by HOW         slot or core: consecutive ranks on consecutive cores (default)\n"
           "                       and, across hosts, fill each host's slots in turn;\n"
           "                       node: round-robin over the hosts; numa: round-robin over NUMA nodes\n"
           "  --report-bindings    print where each rank is bound, one line per rank on stderr\n"
           "  --version, --help\n"
           "Everything after PROGRAM is passed to it untouched.\n"
           "Settings: BOLT_TIMEOUT (bootstrap waits), BOLT_KILL_GRACE (seconds from SIGTERM to SIGKILL),\n"
           "BOLT_BIND_TO and BOLT_MAP_BY (defaults of --bind-to and --map-by).\n";
}

int bind_to_parse(const char *text, enum bind_to *out)
{
    static const struct { const char *name; enum bind_to v; } t[] = {
        {"none", BIND_TO_NONE}, {"core", BIND_TO_CORE}, {"numa", BIND_TO_NUMA}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(text, t[i].name) == 0) {
            *out = t[i].v;
            return 0;
        }
    return -1;
}

const char *bind_to_name(enum bind_to b)
{
    return b == BIND_TO_CORE ? "core" : b == BIND_TO_NUMA ? "numa" : b == BIND_TO_NONE ? "none" : "default";
}

int map_by_parse(const char *text, enum map_by *out)
{
    static const struct { const char *name; enum map_by v; } t[] = {
        {"slot", MAP_BY_SLOT}, {"core", MAP_BY_CORE}, {"numa", MAP_BY_NUMA}, {"node", MAP_BY_NODE}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(text, t[i].name) == 0) {
            *out = t[i].v;
            return 0;
        }
    return -1;
}

static int fail(char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(err, cap, "boltrun: ");
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < cap)
        vsnprintf(err + n, cap - (size_t)n, fmt, ap);
    va_end(ap);
    return 2;
}

/* Matches "--name", "-name" (mpirun accepts both), and their "=value" forms.
 * Returns 1 and sets *inline_val (NULL when no '=') on a match. */
static int match_opt(const char *arg, const char *name, const char **inline_val)
{
    const char *p = arg;
    if (p[0] != '-')
        return 0;
    p += (p[1] == '-') ? 2 : 1;
    size_t n = strlen(name);
    if (strncmp(p, name, n) != 0)
        return 0;
    if (p[n] == '\0') {
        *inline_val = NULL;
        return 1;
    }
    if (p[n] == '=') {
        *inline_val = p + n + 1;
        return 1;
    }
    return 0;
}

static int valid_var_name(const char *s, size_t n)
{
    if (n == 0 || !((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
              s[i] == '_'))
            return 0;
    return 1;
}

int boltrun_parse_args(int argc, char **argv, struct boltrun_args *a, char *err, size_t errcap)
{
    memset(a, 0, sizeof *a);
    a->np = 1;
    const char *stdin_text = NULL;
    if (errcap)
        err[0] = '\0';
    a->exports = calloc((size_t)(argc > 0 ? argc : 1), sizeof *a->exports);
    if (a->exports == NULL)
        return fail(err, errcap, "out of memory");
    int i = 1;
    for (; i < argc; i++) {
        const char *arg = argv[i], *val = NULL;
        if (strcmp(arg, "--") == 0) {
            i++;
            break;
        }
        if (arg[0] != '-' || arg[1] == '\0')
            break; /* the program */
        if (match_opt(arg, "help", &val) || strcmp(arg, "-h") == 0) {
            a->help = 1;
            return 0;
        }
        if (match_opt(arg, "version", &val) || strcmp(arg, "-V") == 0) {
            a->version = 1;
            return 0;
        }
        if (match_opt(arg, "tag-output", &val)) {
            if (val)
                return fail(err, errcap, "--tag-output takes no value");
            a->tag_output = 1;
            continue;
        }
        if (match_opt(arg, "report-bindings", &val)) {
            if (val)
                return fail(err, errcap, "--report-bindings takes no value");
            a->report_bindings = 1;
            continue;
        }
        const char *name = NULL;
        int which = 0;
        if (match_opt(arg, "np", &val) || (arg[1] == 'n' && match_opt(arg, "n", &val) && arg[1] != '-')) {
            name = "-np";
            which = 1;
        } else if (strncmp(arg, "--", 2) != 0 && match_opt(arg, "x", &val)) {
            name = "-x";
            which = 2;
        } else if (match_opt(arg, "timeout", &val)) {
            name = "--timeout";
            which = 3;
        } else if (match_opt(arg, "stdin", &val)) {
            name = "--stdin";
            which = 4;
        } else if (match_opt(arg, "bind-to", &val)) {
            name = "--bind-to";
            which = 5;
        } else if (match_opt(arg, "map-by", &val)) {
            name = "--map-by";
            which = 6;
        } else if (match_opt(arg, "host", &val) || strcmp(arg, "-H") == 0) {
            name = "--host";
            which = 7;
        } else if (match_opt(arg, "hostfile", &val) || match_opt(arg, "machinefile", &val)) {
            name = "--hostfile";
            which = 8;
        } else if (match_opt(arg, "launch-agent", &val)) {
            name = "--launch-agent";
            which = 9;
        } else if (match_opt(arg, "calibration", &val)) {
            name = "--calibration";
            which = 10;
        } else {
            return fail(err, errcap, "unknown option '%s' (see boltrun --help)", arg);
        }
        if (val == NULL) {
            if (i + 1 >= argc)
                return fail(err, errcap, "%s needs a value", name);
            val = argv[++i];
        }
        if (which == 1) {
            char *end;
            errno = 0;
            long v = strtol(val, &end, 10);
            if (*val == '\0' || *end != '\0' || errno != 0 || v <= 0)
                return fail(err, errcap, "-np expects a positive integer, got '%s'", val);
            if (v > BOLTRUN_MAX_NP)
                return fail(err, errcap, "-np %ld is more than boltrun can start on one host (at most %d)", v,
                            BOLTRUN_MAX_NP);
            a->np = (int)v;
            a->np_given = 1;
        } else if (which == 7) {
            if (*val == '\0')
                return fail(err, errcap, "--host expects HOST[:SLOTS][,HOST[:SLOTS]...], got an empty list");
            a->host_spec = val;
        } else if (which == 8) {
            if (*val == '\0')
                return fail(err, errcap, "--hostfile expects a file name");
            a->hostfile = val;
        } else if (which == 10) {
            if (*val == '\0')
                return fail(err, errcap, "--calibration expects a file name");
            a->calibration = val;
        } else if (which == 9) {
            if (strspn(val, " \t") == strlen(val))
                return fail(err, errcap, "--launch-agent expects a command (like 'ssh -o BatchMode=yes')");
            a->launch_agent = val;
        } else if (which == 2) {
            const char *eq = strchr(val, '=');
            size_t n = eq ? (size_t)(eq - val) : strlen(val);
            if (!valid_var_name(val, n))
                return fail(err, errcap, "-x expects VAR or VAR=VALUE with VAR a variable name, got '%s'", val);
            a->exports[a->nexports++] = (char *)val;
        } else if (which == 4) {
            if (strcmp(val, "none") == 0) {
                a->stdin_rank = -1;
            } else {
                char *end;
                errno = 0;
                long v = strtol(val, &end, 10);
                if (*val < '0' || *val > '9' || *end != '\0' || errno != 0 || v >= BOLTRUN_MAX_NP)
                    return fail(err, errcap, "--stdin expects a rank number or 'none', got '%s'", val);
                a->stdin_rank = (int)v;
            }
            stdin_text = val;
        } else if (which == 5) {
            if (bind_to_parse(val, &a->bind_to) != 0)
                return fail(err, errcap, "--bind-to expects " BIND_TO_VALUES ", got '%s'", val);
        } else if (which == 6) {
            if (map_by_parse(val, &a->map_by) != 0)
                return fail(err, errcap, "--map-by expects " MAP_BY_VALUES ", got '%s'", val);
            a->map_by_given = 1;
        } else {
            char *end;
            errno = 0;
            double v = strtod(val, &end);
            if (*val == '\0' || *end != '\0' || errno != 0 || !(v > 0) || !isfinite(v) || v > 1e9)
                return fail(err, errcap, "--timeout expects a positive number of seconds, got '%s'", val);
            a->timeout = v;
            a->timeout_text = val;
        }
    }
    if (i >= argc)
        return fail(err, errcap, "no program given (usage: boltrun -np N PROGRAM [ARGS...])");
    if (a->stdin_rank >= a->np && (a->np_given || (!a->host_spec && !a->hostfile)))
        return fail(err, errcap, "--stdin %s: the job has no such rank (-np %d: ranks 0 to %d)", stdin_text, a->np,
                    a->np - 1);
    a->prog_argv = argv + i;
    a->prog_argc = argc - i;
    return 0;
}

void boltrun_args_free(struct boltrun_args *a)
{
    free(a->exports);
    a->exports = NULL;
}
