// mpi_cxx.cc — mpi.h from C++ (MPI 3.1's C bindings, what C++ codes call
// since the C++ bindings were removed in MPI 3.0): built with -Wall -Wextra
// -pedantic, it links (extern "C": every name resolves to libmpi's) and
// runs. It does what C++ codes do: C++ types with MPI_CXX_BOOL and
// MPI_CXX_*_COMPLEX, callbacks written in C++ (a templated user
// operation, an error handler, attribute copy and delete functions), a
// struct type built with offsetof over a std::vector, a communicator owned
// by an RAII class, error classes as case labels, and the functions that
// return no int (MPI_Wtime, MPI_Aint_add, handle conversions).
#include <cstddef>
#include <complex>
#include <cstdlib>
#include <vector>

#include "mtest.h"

namespace {

// A communicator that frees itself, as C++ codes wrap them.
class Comm {
public:
    explicit Comm(MPI_Comm parent) : c_(MPI_COMM_NULL) { CHECK_MPI(MPI_Comm_dup(parent, &c_)); }
    ~Comm() { if (c_ != MPI_COMM_NULL) MPI_Comm_free(&c_); }
    MPI_Comm get() const { return c_; }
private:
    Comm(const Comm &);
    Comm &operator=(const Comm &);
    MPI_Comm c_;
};

// std::complex<T> sums and products of Gaussian integers: exact in every
// precision, compared with the serial result.
template <typename T>
std::complex<T> gauss(bool prod, int r, int k)
{
    static const std::complex<T> units[4] = {std::complex<T>(1, 0), std::complex<T>(0, 1),
                                             std::complex<T>(-1, 0), std::complex<T>(0, -1)};
    if (!prod)
        return std::complex<T>(static_cast<T>(r + 3 * k - 2), static_cast<T>(2 * r - k));
    return (r + k) % 3 == 0 ? std::complex<T>(1, 1) : units[(r + 2 * k) % 4];
}

template <typename T>
void complex_reductions(MPI_Datatype dt, const char *tname)
{
    const int n = 5;
    for (int o = 0; o < 2; o++) {
        bool prod = o == 1;
        std::vector<std::complex<T> > in(n), out(n), want(n);
        for (int k = 0; k < n; k++) {
            in[k] = gauss<T>(prod, mt_rank, k);
            want[k] = gauss<T>(prod, 0, k);
            for (int r = 1; r < mt_size; r++)
                want[k] = prod ? want[k] * gauss<T>(prod, r, k) : want[k] + gauss<T>(prod, r, k);
        }
        CHECK_MPI(MPI_Allreduce(&in[0], &out[0], n, dt, prod ? MPI_PROD : MPI_SUM, MPI_COMM_WORLD));
        for (int k = 0; k < n; k++)
            CHECK(out[k] == want[k], "%s %s element %d: (%g, %g), want (%g, %g)", tname,
                  prod ? "MPI_PROD" : "MPI_SUM", k, static_cast<double>(out[k].real()),
                  static_cast<double>(out[k].imag()), static_cast<double>(want[k].real()),
                  static_cast<double>(want[k].imag()));
    }
}

void bools()
{
    bool mine[2] = {true, mt_rank == mt_size - 1};
    bool all[2] = {false, true}, any[2] = {false, false};
    CHECK_MPI(MPI_Allreduce(mine, all, 2, MPI_CXX_BOOL, MPI_LAND, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Allreduce(mine, any, 2, MPI_CXX_BOOL, MPI_LOR, MPI_COMM_WORLD));
    CHECK(all[0] && all[1] == (mt_size == 1), "MPI_LAND on MPI_CXX_BOOL: %d %d", all[0], all[1]);
    CHECK(any[0] && any[1], "MPI_LOR on MPI_CXX_BOOL: %d %d", any[0], any[1]);
}

// A user operation as a function template: the element of largest magnitude.
template <typename T>
void max_magnitude(void *in, void *inout, int *len, MPI_Datatype *)
{
    const T *a = static_cast<const T *>(in);
    T *b = static_cast<T *>(inout);
    for (int i = 0; i < *len; i++)
        if (std::abs(a[i]) > std::abs(b[i]))
            b[i] = a[i];
}

void user_op()
{
    MPI_Op op;
    CHECK_MPI(MPI_Op_create(max_magnitude<long long>, 1, &op));
    // Rank r gives (-1)^r (r + 1) * 1000 + k: the last rank's has the largest magnitude.
    std::vector<long long> v(3), r(3);
    for (int k = 0; k < 3; k++)
        v[k] = (mt_rank % 2 ? -1 : 1) * (mt_rank + 1) * 1000LL + k;
    CHECK_MPI(MPI_Allreduce(&v[0], &r[0], 3, MPI_LONG_LONG, op, MPI_COMM_WORLD));
    for (int k = 0; k < 3; k++) {
        long long want = ((mt_size - 1) % 2 ? -1 : 1) * mt_size * 1000LL + k;
        CHECK(r[k] == want, "user op element %d: %lld, want %lld", k, r[k], want);
    }
    // MPI_IN_PLACE on a vector, with a predefined operation.
    std::vector<long long> s(3, mt_rank + 1);
    CHECK_MPI(MPI_Allreduce(MPI_IN_PLACE, &s[0], 3, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    CHECK(s[2] == static_cast<long long>(mt_size) * (mt_size + 1) / 2, "MPI_IN_PLACE sum: %lld", s[2]);
    CHECK_MPI(MPI_Op_free(&op));
    CHECK(op == MPI_OP_NULL, "MPI_Op_free did not null the handle");
}

int error_calls, error_class;

void on_error(MPI_Comm *, int *code, ...)
{
    error_calls++;
    MPI_Error_class(*code, &error_class);
}

const char *class_name(int cls)
{
    switch (cls) { // the error classes are constant expressions
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPI_ERR_RANK: return "MPI_ERR_RANK";
    case MPI_ERR_COMM: return "MPI_ERR_COMM";
    default: return "another class";
    }
}

void errors()
{
    Comm c(MPI_COMM_WORLD);
    MPI_Errhandler h;
    CHECK_MPI(MPI_Comm_create_errhandler(on_error, &h));
    CHECK_MPI(MPI_Comm_set_errhandler(c.get(), h));
    CHECK_MPI(MPI_Errhandler_free(&h));
    int x = 0;
    int rc = MPI_Send(&x, 1, MPI_INT, mt_size + 3, 0, c.get());
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    CHECK(error_calls == 1, "the C++ error handler ran %d times", error_calls);
    CHECK(cls == MPI_ERR_RANK && error_class == MPI_ERR_RANK,
          "send to rank %d: %s (handler saw %s), want MPI_ERR_RANK", mt_size + 3,
          class_name(cls), class_name(error_class));
}

int deletes;

int count_delete(MPI_Comm, int, void *value, void *extra)
{
    deletes++;
    CHECK(value == extra, "the delete callback got another value");
    return MPI_SUCCESS;
}

void attributes()
{
    static int marker;
    int key, key_nocopy;
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &key, &marker));
    CHECK_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &key_nocopy, 0));
    {
        Comm a(MPI_COMM_WORLD);
        CHECK_MPI(MPI_Comm_set_attr(a.get(), key, &marker));
        CHECK_MPI(MPI_Comm_set_attr(a.get(), key_nocopy, &marker));
        Comm b(a.get());
        void *v = 0;
        int flag = 0;
        CHECK_MPI(MPI_Comm_get_attr(b.get(), key, &v, &flag));
        CHECK(flag && v == &marker, "MPI_COMM_DUP_FN did not copy the attribute");
        CHECK_MPI(MPI_Comm_get_attr(b.get(), key_nocopy, &v, &flag));
        CHECK(!flag, "MPI_COMM_NULL_COPY_FN copied the attribute");
    }
    CHECK(deletes == 2, "the C++ delete callback ran %d times for two communicators", deletes);
    CHECK_MPI(MPI_Comm_free_keyval(&key));
    CHECK_MPI(MPI_Comm_free_keyval(&key_nocopy));
}

struct Particle {
    double pos[3];
    int id;
    char tag;
};

// A struct type from offsetof, resized to sizeof: a std::vector of them
// passes around the ring.
void structs()
{
    int len[3] = {3, 1, 1};
    MPI_Aint disp[3] = {offsetof(Particle, pos), offsetof(Particle, id), offsetof(Particle, tag)};
    MPI_Datatype types[3] = {MPI_DOUBLE, MPI_INT, MPI_CHAR}, raw, t;
    CHECK_MPI(MPI_Type_create_struct(3, len, disp, types, &raw));
    CHECK_MPI(MPI_Type_create_resized(raw, 0, sizeof(Particle), &t));
    CHECK_MPI(MPI_Type_commit(&t));
    const int n = 4;
    std::vector<Particle> out(n), in(n);
    for (int i = 0; i < n; i++) {
        Particle p = {{mt_rank + 0.5, i * 1.0, -1.0}, mt_rank * 100 + i, static_cast<char>('a' + i)};
        out[i] = p;
    }
    int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
    MPI_Status st;
    CHECK_MPI(MPI_Sendrecv(&out[0], n, t, right, 7, &in[0], n, t, left, 7, MPI_COMM_WORLD, &st));
    int count = -1;
    CHECK_MPI(MPI_Get_count(&st, t, &count));
    CHECK(count == n && st.MPI_SOURCE == left && st.MPI_TAG == 7, "status: count %d source %d tag %d",
          count, st.MPI_SOURCE, st.MPI_TAG);
    for (int i = 0; i < n; i++)
        CHECK(in[i].pos[0] == left + 0.5 && in[i].pos[1] == i && in[i].id == left * 100 + i &&
              in[i].tag == 'a' + i, "particle %d from rank %d is wrong", i, left);
    CHECK_MPI(MPI_Type_free(&t));
    CHECK_MPI(MPI_Type_free(&raw));
}

// The functions that return something else than an error code.
void non_int_returns()
{
    double t0 = MPI_Wtime();
    CHECK(MPI_Wtick() > 0.0 && MPI_Wtime() >= t0, "MPI_Wtime/MPI_Wtick");
    std::vector<double> a(4);
    MPI_Aint p0, p3;
    CHECK_MPI(MPI_Get_address(&a[0], &p0));
    CHECK_MPI(MPI_Get_address(&a[3], &p3));
    CHECK(MPI_Aint_diff(p3, p0) == static_cast<MPI_Aint>(3 * sizeof(double)) &&
          MPI_Aint_add(p0, 3 * sizeof(double)) == p3, "MPI_Aint_add/MPI_Aint_diff");
    MPI_Fint f = MPI_Comm_c2f(MPI_COMM_WORLD);
    CHECK(MPI_Comm_f2c(f) == MPI_COMM_WORLD, "MPI_Comm_c2f/f2c round trip");
    CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE)) == MPI_DOUBLE, "MPI_Type_c2f/f2c round trip");
}

} // namespace

int main(int argc, char **argv)
{
    mt_init(&argc, &argv, "mpi_cxx");
    complex_reductions<float>(MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX");
    complex_reductions<double>(MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX");
    complex_reductions<long double>(MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX");
    bools();
    user_op();
    errors();
    attributes();
    structs();
    non_int_returns();
    return mt_finish();
}
