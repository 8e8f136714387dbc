/*
 * logits_cmp.c — two logit vectors (float32 files, the reference's first):
 * prints the largest difference, the relative RMS difference and both
 * arg-maxes; exits 1 when the relative RMS exceeds TOL, or when Bolt's
 * arg-max is not the reference's and the reference puts it more than
 * NEAR times the logits' spread below its own top (0: the arg-maxes must
 * be the same).
 *
 *   logits_cmp REF.bin BOLT.bin TOL [NEAR]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static float *load(const char *p, long *n)
{
    FILE *f = fopen(p, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    *n = ftell(f) / 4;
    rewind(f);
    float *x = malloc((size_t)*n * 4 + 4);
    if (x && fread(x, 4, (size_t)*n, f) != (size_t)*n) {
        free(x);
        x = NULL;
    }
    fclose(f);
    return x;
}

int main(int argc, char **argv)
{
    long na, nb;
    float *a, *b;
    if ((argc != 4 && argc != 5) || !(a = load(argv[1], &na)) || !(b = load(argv[2], &nb)) || na != nb || na == 0) {
        fprintf(stderr, "logits_cmp: two logit files of one length and a tolerance\n");
        return 2;
    }
    double e = 0, r = 0, mx = 0;
    long ia = 0, ib = 0;
    for (long i = 0; i < na; i++) {
        double d = fabs((double)a[i] - b[i]);
        mx = d > mx ? d : mx;
        e += d * d;
        r += (double)a[i] * a[i];
        if (a[i] > a[ia])
            ia = i;
        if (b[i] > b[ib])
            ib = i;
    }
    double rel = sqrt(e / r), tol = atof(argv[3]), near = argc > 4 ? atof(argv[4]) : 0;
    double lo = a[0];
    for (long i = 1; i < na; i++)
        lo = a[i] < lo ? a[i] : lo;
    double gap = ((double)a[ia] - a[ib]) / ((double)a[ia] - lo + 1e-30);
    printf("max |diff| %.3g, relative RMS %.3g (tolerance %.3g), arg-max %ld / %ld", mx, rel, tol, ia, ib);
    if (ia != ib)
        printf(" (Bolt's %.3g of the range below the reference's top)", gap);
    printf("\n");
    free(a);
    free(b);
    return rel <= tol && (ia == ib || gap <= near) ? 0 : 1;
}
