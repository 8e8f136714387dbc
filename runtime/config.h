/*
 * config.h — BOLT_* settings from the environment (declared in params.def).
 *
 * bolt_config_load() reads and checks every setting once; a malformed value is
 * an error that names the variable and what it accepts.
 */
#ifndef BOLT_CONFIG_H
#define BOLT_CONFIG_H

#include <stddef.h>
#include <stdio.h>

enum bolt_param_type { BOLT_PT_INT, BOLT_PT_SIZE, BOLT_PT_DOUBLE, BOLT_PT_BOOL, BOLT_PT_STRING };

enum bolt_param_id {
#define BOLT_PARAM(ID, TYPE, DEF, HELP) BOLT_P_##ID,
#include "runtime/params.def"
#undef BOLT_PARAM
    BOLT_P_COUNT
};

struct bolt_param_info {
    const char *env;      /* "BOLT_TIMEOUT" */
    enum bolt_param_type type;
    const char *def;
    const char *help;
};

int bolt_config_load(void);
const struct bolt_param_info *bolt_param_info(enum bolt_param_id id);
long long bolt_param_int(enum bolt_param_id id);     /* INT, SIZE, BOOL */
double bolt_param_double(enum bolt_param_id id);
const char *bolt_param_string(enum bolt_param_id id);
/* Sets a param from text (checked as load checks it): the value stays over
 * the environment's through later loads (the MPI tools interface writes
 * settings this way, before MPI_Init reads them). */
int bolt_param_set(enum bolt_param_id id, const char *text);
/* Parses `text` as the param's type; used by load and by the unit tests. */
int bolt_param_parse(enum bolt_param_id id, const char *text, long long *ival, double *dval);
/* Prints the table for bolt-info --params (name, type, default, current, help). */
void bolt_config_print(FILE *out);

#endif
