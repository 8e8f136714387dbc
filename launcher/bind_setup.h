/*
 * bind_setup.h — boltrun's placement step, between parsing and starting.
 */
#ifndef BOLTRUN_BIND_SETUP_H
#define BOLTRUN_BIND_SETUP_H

#include <stddef.h>

#include "launcher/args.h"
#include "launcher/bind.h"

/* Plans the ranks' placement (see bind.h), prints the plan's warning and,
 * with --report-bindings, the report. Returns 0, or boltrun's exit status
 * (2 bad setting, 1 out of memory) with a message in err. */
int bind_setup(const struct boltrun_args *a, struct bind_plan *p, char *err, size_t cap);

#endif
