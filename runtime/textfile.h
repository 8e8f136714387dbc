/*
 * textfile.h — the small line-oriented files Bolt's tools write and read
 * (bolt-cluster's calibration and RDMA device map): the whole file read
 * at once, then its lines as words.
 */
#ifndef BOLT_TEXTFILE_H
#define BOLT_TEXTFILE_H

#include <stddef.h>

/* Reads the file at path (at most max bytes) into *text, NUL-terminated
 * (free it). Returns 0, or an errno value: EFBIG past max, ENOMEM, or
 * open's or read's; the caller words the message. */
int bolt_textfile_read(const char *path, size_t max, char **text);

/* One line's words (at most 64, split on blanks; '#' starts a comment
 * that runs to the end of the line) and its number from 1; a nonzero
 * return stops the walk and is returned. */
typedef int bolt_textfile_line_fn(void *arg, char **w, int nw, int line);

/* Calls fn on each line of text that holds a word. A line of 4096 bytes
 * or more is an error ("fname:line: line too long", -1). */
int bolt_textfile_lines(const char *text, const char *fname, bolt_textfile_line_fn *fn, void *arg, char *err,
                        size_t cap);

#endif
