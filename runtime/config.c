/* config.c — BOLT_* settings, declared once in params.def, read and checked once. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "runtime/config.h"
#include "runtime/errors.h"

static const char *const type_names[] = {"int", "size", "seconds", "bool", "string"};

static const struct bolt_param_info params[BOLT_P_COUNT] = {
#define BOLT_PARAM(ID, TYPE, DEF, HELP) [BOLT_P_##ID] = {"BOLT_" #ID, BOLT_PT_##TYPE, DEF, HELP},
#include "runtime/params.def"
#undef BOLT_PARAM
};

static struct {
    int loaded;
    long long ival[BOLT_P_COUNT];
    double dval[BOLT_P_COUNT];
    const char *sval[BOLT_P_COUNT];
    char *set[BOLT_P_COUNT]; /* bolt_param_set's values: they win over the environment */
} cfg;

const struct bolt_param_info *bolt_param_info(enum bolt_param_id id)
{
    return (unsigned)id < BOLT_P_COUNT ? &params[id] : NULL;
}

static int parse_size(const char *t, long long *out)
{
    char *end;
    errno = 0;
    double v = strtod(t, &end);
    if (end == t || errno || v < 0 || !isfinite(v))
        return -1;
    double mult = 1;
    switch (toupper((unsigned char)*end)) {
    case 'K': mult = 1024.0; end++; break;
    case 'M': mult = 1024.0 * 1024; end++; break;
    case 'G': mult = 1024.0 * 1024 * 1024; end++; break;
    default: break;
    }
    if (mult > 1 && (*end == 'B' || *end == 'b' || *end == 'i'))
        end += (*end == 'i' && (end[1] == 'B' || end[1] == 'b')) ? 2 : 1;
    if (*end)
        return -1;
    if (v * mult > 9.0e18)
        return -1;
    *out = (long long)(v * mult);
    return 0;
}

int bolt_param_parse(enum bolt_param_id id, const char *t, long long *ival, double *dval)
{
    const struct bolt_param_info *p = bolt_param_info(id);
    char *end;
    if (!p || !t)
        return BOLT_ERR_ARG;
    switch (p->type) {
    case BOLT_PT_INT:
        errno = 0;
        *ival = strtoll(t, &end, 10);
        if (end == t || *end || errno)
            return bolt_err_set(BOLT_ERR_CONFIG, "%s='%s' is not an integer", p->env, t);
        return BOLT_OK;
    case BOLT_PT_SIZE:
        if (parse_size(t, ival))
            return bolt_err_set(BOLT_ERR_CONFIG,
                                "%s='%s' is not a size (bytes, optionally with K, M or G)", p->env, t);
        return BOLT_OK;
    case BOLT_PT_DOUBLE:
        errno = 0;
        *dval = strtod(t, &end);
        if (end == t || *end || errno || !isfinite(*dval) || *dval < 0)
            return bolt_err_set(BOLT_ERR_CONFIG, "%s='%s' is not a non-negative number of seconds",
                                p->env, t);
        return BOLT_OK;
    case BOLT_PT_BOOL:
        if (!strcmp(t, "1") || !strcasecmp(t, "yes") || !strcasecmp(t, "true") || !strcasecmp(t, "on"))
            *ival = 1;
        else if (!strcmp(t, "0") || !strcasecmp(t, "no") || !strcasecmp(t, "false") ||
                 !strcasecmp(t, "off"))
            *ival = 0;
        else
            return bolt_err_set(BOLT_ERR_CONFIG, "%s='%s' is not a boolean (use 1 or 0)", p->env, t);
        return BOLT_OK;
    case BOLT_PT_STRING:
        return BOLT_OK;
    }
    return BOLT_ERR_INTERNAL;
}

int bolt_config_load(void)
{
    for (int i = 0; i < BOLT_P_COUNT; i++) {
        const char *env = getenv(params[i].env);
        /* Defaults are parsed with the same code, so a bad default fails tests. */
        int rc = bolt_param_parse(i, params[i].def, &cfg.ival[i], &cfg.dval[i]);
        if (rc)
            return rc;
        cfg.sval[i] = params[i].def;
        /* A value set by bolt_param_set wins, even an empty one. */
        const char *v = cfg.set[i] ? cfg.set[i] : env && *env ? env : NULL;
        if (v) {
            rc = bolt_param_parse(i, v, &cfg.ival[i], &cfg.dval[i]);
            if (rc)
                return rc;
            cfg.sval[i] = v;
        }
    }
    cfg.loaded = 1;
    return BOLT_OK;
}

static void ensure_loaded(void)
{
    /* Tools and tests may query before an explicit load; a bad value then
     * falls back to the default here and is reported by the explicit load. */
    if (!cfg.loaded && bolt_config_load() != BOLT_OK) {
        for (int i = 0; i < BOLT_P_COUNT; i++) {
            bolt_param_parse(i, params[i].def, &cfg.ival[i], &cfg.dval[i]);
            cfg.sval[i] = params[i].def;
        }
        cfg.loaded = 1;
    }
}

int bolt_param_set(enum bolt_param_id id, const char *text)
{
    long long ival = 0;
    double dval = 0;
    int rc = bolt_param_parse(id, text, &ival, &dval);
    if (rc)
        return rc;
    char *copy = strdup(text);
    if (!copy)
        return bolt_err_set(BOLT_ERR_NOMEM, "bolt_param_set: out of memory");
    ensure_loaded();
    free(cfg.set[id]);
    cfg.set[id] = copy;
    cfg.ival[id] = ival;
    cfg.dval[id] = dval;
    cfg.sval[id] = copy;
    return BOLT_OK;
}

long long bolt_param_int(enum bolt_param_id id)
{
    ensure_loaded();
    return cfg.ival[id];
}

double bolt_param_double(enum bolt_param_id id)
{
    ensure_loaded();
    return cfg.dval[id];
}

const char *bolt_param_string(enum bolt_param_id id)
{
    ensure_loaded();
    return cfg.sval[id];
}

void bolt_config_print(FILE *out)
{
    ensure_loaded();
    for (int i = 0; i < BOLT_P_COUNT; i++) {
        const char *env = getenv(params[i].env);
        fprintf(out, "%s (%s, default %s%s%s%s)\n    %s\n", params[i].env, type_names[params[i].type],
                *params[i].def ? params[i].def : "empty", env ? ", now '" : "", env ? env : "",
                env ? "'" : "", params[i].help);
    }
}
