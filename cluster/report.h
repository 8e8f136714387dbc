/*
 * report.h — a cluster check's findings for people (text and a map in the
 * terminal, a graphviz drawing) and for scripts (JSON, report_json.c).
 */
#ifndef BOLT_CLUSTER_REPORT_H
#define BOLT_CLUSTER_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "cluster/check.h"

void report_text(FILE *f, const struct cl_check *c);
/* The hosts as a matrix: which pairs have a cable, a shared network, a
 * one-way path or nothing, with the measured numbers. */
void report_map(FILE *f, const struct cl_check *c);
/* Writes the map as a graphviz graph (`dot -Tsvg FILE`). 0, or -1 with err. */
int report_dot(const char *path, const struct cl_check *c, char *err, size_t cap);
/* Writes everything as one JSON object. 0, or -1 with err (no JSON library). */
int report_json(FILE *f, const struct cl_check *c, char *err, size_t cap);

#endif
