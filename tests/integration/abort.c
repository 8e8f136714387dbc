/* bolt_abort from one rank ends the whole job with its code and message. */
#include <unistd.h>

#include "tutil.h"

int main(int argc, char **argv)
{
    int rank, size;
    tinit(&argc, &argv, &rank, &size);
    if (rank == size - 1)
        bolt_abort(5, "input file x.dat:12 is malformed");
    sleep(60); /* the others are stopped by boltrun */
    return 0;
}
