# genbind.awk — Bolt's Fortran bindings, generated from the C face's table.
#
#   awk -v mode=c   -f genbind.awk special.in mpi_functions.h >fbind.c
#   awk -v mode=f90 -f genbind.awk special.in mpi_functions.h >mpi.f90
#   awk -v mode=missing -f genbind.awk special.in mpi_functions.h
#
# mpi_functions.h lists every MPI function of libmpi that returns int, with
# its C parameters. For each, mode=c writes mpi_name_ and pmpi_name_ (gfortran's
# names for MPI_NAME and PMPI_NAME): every argument by reference, INTEGER
# handles, an ierror argument last, then the hidden lengths of CHARACTER
# arguments (size_t). How each C parameter crosses is decided by its type and,
# where C's type says too little, its name (see classify). A function whose
# crossing needs more than these rules has its wrapper written by hand in
# special.in ("@@c Name": F_NAME stands for the Fortran name, C_CALL for the C
# function; "@@once Name": helpers written once); its section is used only
# when the table has the function. mode=f90 writes the mpi module: its
# constants (mpif-consts.h) and an explicit interface for every bound routine
# ("@@f90 Name" replaces the derived one; "@@f90 always" adds routines outside
# the table, "@@f90 generic" generic interfaces), choice buffers taken as they
# come through gfortran's NO_ARG_CHECK. mode=missing lists the functions with no
# Fortran binding and why (MPI_T_ and the C-only handle conversions aside).
# POSIX awk only (the build runs it with mawk, gawk or macOS's awk).

BEGIN {
    nfn = 0
    split("MPI_Comm MPI_Datatype MPI_Group MPI_Request MPI_Op MPI_Errhandler MPI_Info " \
          "MPI_Message MPI_Win MPI_File MPI_Session", h, " ")
    for (i in h) handle[h[i]] = 1
    akind["MPI_Aint"] = "MPI_ADDRESS_KIND"
    akind["MPI_Offset"] = "MPI_OFFSET_KIND"
    akind["MPI_Count"] = "MPI_COUNT_KIND"
    # Callbacks whose Fortran form is the C one (all arguments pointers):
    # the Fortran procedure is passed as it is.
    split("MPI_User_function MPI_Comm_errhandler_function MPI_Win_errhandler_function " \
          "MPI_File_errhandler_function MPI_Handler_function", h, " ")
    for (i in h) samefn[h[i]] = 1
    # LOGICAL in Fortran: int parameters by value, through pointers, in arrays.
    split("commute reorder high flag", h, " ")
    for (i in h) lvalue[h[i]] = 1
    split("flag commute weighted", h, " ")
    for (i in h) lout[h[i]] = 1
    split("periods remain_dims", h, " ")
    for (i in h) larray[h[i]] = 1
}

FNR == 1 { file++ }

# ---- special.in: sections of hand-written code -------------------------------
file == 1 && /^@@c / { sec = "c"; cur = $2; csec[cur] = ""; next }
file == 1 && /^@@once / { sec = "o"; cur = $2; osec[cur] = ""; next }
file == 1 && /^@@f90 / { sec = "f"; cur = $2; fsec[cur] = ""; next }
file == 1 && /^@@end/ { sec = ""; next }
file == 1 && sec == "c" { csec[cur] = csec[cur] $0 "\n"; next }
file == 1 && sec == "o" { osec[cur] = osec[cur] $0 "\n"; next }
file == 1 && sec == "f" { fsec[cur] = fsec[cur] $0 "\n"; next }
file == 1 { next }

# ---- mpi_functions.h: BOLT_MPI_FN(Name, (params), (args)) ----------------------
file == 2 && /^BOLT_MPI_FN\(/ {
    s = $0
    sub(/^BOLT_MPI_FN\([ ]*/, "", s)
    name = s
    sub(/[ ]*,.*$/, "", name)
    sub(/^[^(]*\(/, "", s)
    sub(/\).*$/, "", s)
    fname[++nfn] = name
    fparams[nfn] = s
    intable[name] = 1
}

function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }

# Splits parameter i of the current function into P_const, P_type (without
# const and '*'), P_stars, P_arr ("", "[]" or "[][3]") and P_name.
function parse(p,    t, m) {
    p = trim(p)
    P_const = (p ~ /(^|[^A-Za-z_])const[ \t]/)
    gsub(/(^|[ \t])const[ \t]+/, " ", p)
    p = trim(p)
    P_arr = ""
    if (match(p, /\[.*$/)) {
        P_arr = substr(p, RSTART)
        p = trim(substr(p, 1, RSTART - 1))
    }
    match(p, /[A-Za-z_][A-Za-z_0-9]*$/)
    P_name = substr(p, RSTART)
    t = substr(p, 1, RSTART - 1)
    P_stars = gsub(/\*/, "", t)
    P_type = trim(t)
}

# How a parameter crosses, for C wrappers: sets K (kind) or returns a reason
# it cannot be bound generically. Kinds:
#   val vall (logical) ptr ptrl (logical out) idx (1-based index out)
#   arr arr3 (int[][3]) wts (weights array) errc (error codes array)
#   aval (address/offset/count by value) choice attr (attribute value in)
#   baseptr strin strout status cstatus fn
function classify(    t, n) {
    t = P_type; n = P_name
    if (t == "void" && P_stars == 1 && P_arr == "") {
        if (n == "attribute_val") { K = "attr"; return "" }
        if (n == "baseptr") { K = "baseptr"; return "" }
        if (n == "extra_state" || n == "buffer_addr") return "its " n " needs a hand-written wrapper"
        K = "choice"; return ""
    }
    if (t == "char") {
        if ((P_stars == 1 && P_arr == "") || (P_stars == 0 && P_arr == "[]")) {
            K = P_const ? "strin" : "strout"; return ""
        }
        return "its array of strings " n " needs a hand-written wrapper"
    }
    if (t == "int" || t == "MPI_Fint" || (t in handle)) {
        if (P_stars == 0 && P_arr == "") { K = (t == "int" && (n in lvalue)) ? "vall" : "val"; return "" }
        if (P_stars == 1 && P_arr == "") {
            if (t == "int" && (n in lout)) { K = "ptrl"; return "" }
            if (t == "int" && n == "index") { K = "idx"; return "" }
            K = "ptr"; return ""
        }
        if (P_stars == 0 && P_arr == "[]") {
            if (n == "array_of_indices") return "its array_of_indices needs a hand-written wrapper"
            if (n ~ /weights$/) { K = "wts"; return "" }
            if (n == "array_of_errcodes") { K = "errc"; return "" }
            K = "arr"; return ""
        }
        if (P_stars == 0 && P_arr == "[][3]") { K = "arr3"; return "" }
    }
    if (t in akind) {
        if (P_stars == 0 && P_arr == "") { K = "aval"; return "" }
        if ((P_stars == 1 && P_arr == "") || (P_stars == 0 && P_arr == "[]")) { K = "ptr"; return "" }
    }
    if (t == "MPI_Status" && P_stars == 1 && P_arr == "") { K = P_const ? "cstatus" : "status"; return "" }
    if (t == "MPI_Status") return "its array of statuses needs a hand-written wrapper"
    if (t ~ /_function$/ && P_stars == 1 && P_arr == "") {
        if (t in samefn) { K = "fn"; return "" }
        return "its callback " t " needs a hand-written wrapper"
    }
    return "no rule for parameter '" (P_const ? "const " : "") t " " substr("**", 1, P_stars) n P_arr "'"
}

# Functions with no Fortran binding by the standard.
function conly(name) {
    return name ~ /^T_/ || name ~ /_(c2f|f2c|c2f08|f082c)$/ || name == "Pcontrol"
}

# Why function i cannot be bound ("" when it can): hand-written, or every
# parameter classified.
function unbound(i,    np, p, j, why) {
    if (conly(fname[i])) return "C only"
    if (fname[i] in csec) return ""
    if (fparams[i] == "void") return ""
    np = split(fparams[i], p, ",")
    for (j = 1; j <= np; j++) {
        parse(p[j])
        why = classify()
        if (why != "") return why
    }
    return ""
}

function lower(s) { return tolower(s) }

# ---- mode=c ------------------------------------------------------------------
function cwrap(i, pre, cname,    np, p, j, n, decl, hidden, before, call, after, strs, fn, sep) {
    fn = lower(pre) "_" lower(fname[i]) "_"
    decl = ""; hidden = ""; before = ""; call = ""; after = ""; strs = ""
    np = fparams[i] == "void" ? 0 : split(fparams[i], p, ",")
    for (j = 1; j <= np; j++) {
        parse(p[j])
        classify()
        n = P_name
        sep = call == "" ? "" : ", "
        if (K == "choice") { decl = decl "void *" n ", "; call = call sep "f_buf(" n ")" }
        else if (K == "attr") { decl = decl "MPI_Aint *" n ", "; call = call sep "(void *)*" n }
        else if (K == "baseptr") { decl = decl "MPI_Aint *" n ", "; call = call sep n }
        else if (K == "strin") {
            decl = decl "char *" n ", "; hidden = hidden ", size_t " n "_len"
            before = before "    char *" n "_c = f_str_in(" n ", " n "_len, " ((n == "key" || n == "value") ? 1 : 0) ");\n"
            strs = strs (strs == "" ? "" : " && ") n "_c"
            after = after "    free(" n "_c);\n"
            call = call sep n "_c"
        } else if (K == "strout") {
            decl = decl "char *" n ", "; hidden = hidden ", size_t " n "_len"
            before = before "    char " n "_c[F_STRMAX] = \"\";\n"
            after = after "    f_str_out(" n "_c, " n ", " n "_len);\n"
            call = call sep n "_c"
        } else if (K == "val") { decl = decl "MPI_Fint *" n ", "; call = call sep "*" n }
        else if (K == "vall") { decl = decl "MPI_Fint *" n ", "; call = call sep "*" n " != F_FALSE" }
        else if (K == "aval") { decl = decl P_type " *" n ", "; call = call sep "*" n }
        else if (K == "ptr" || K == "arr") {
            decl = decl ((P_type in akind) ? P_type : "MPI_Fint") " *" n ", "; call = call sep n
        } else if (K == "arr3") { decl = decl "MPI_Fint *" n ", "; call = call sep "(int (*)[3])" n }
        else if (K == "wts") { decl = decl "MPI_Fint *" n ", "; call = call sep "f_weights(" n ")" }
        else if (K == "errc") { decl = decl "MPI_Fint *" n ", "; call = call sep "f_errcodes(" n ")" }
        else if (K == "ptrl") {
            decl = decl "MPI_Fint *" n ", "
            before = before "    int " n "_c = 0;\n"
            after = after "    *" n " = " n "_c ? F_TRUE : F_FALSE;\n"
            call = call sep "&" n "_c"
        } else if (K == "idx") {
            decl = decl "MPI_Fint *" n ", "
            before = before "    int " n "_c = MPI_UNDEFINED;\n"
            after = after "    *" n " = f_index_out(" n "_c);\n"
            call = call sep "&" n "_c"
        } else if (K == "status" || K == "cstatus") {
            decl = decl "MPI_Fint *" n ", "
            before = before "    MPI_Status " n "_c, *" n "_p = f_status_in(" n ", &" n "_c);\n"
            if (K == "status") after = "    f_status_out(" n "_p, " n ");\n" after
            call = call sep n "_p"
        } else if (K == "fn") { decl = decl P_type " *" n ", "; call = call sep n }
    }
    printf "void %s(%sMPI_Fint *ierr%s)\n{\n%s", fn, decl, hidden, before
    if (strs == "")
        printf "    *ierr = %s(%s);\n", cname, call
    else
        printf "    if (%s)\n        *ierr = %s(%s);\n    else\n        *ierr = f_nomem(\"MPI_%s\");\n", strs, cname, call, fname[i]
    printf "%s}\n\n", after
}

function emit_c(    i, s, why) {
    print "/* fbind.c — the Fortran bindings, generated by mpi/fortran/genbind.awk from"
    print " * mpi/mpi_functions.h and mpi/fortran/special.in: do not edit. */"
    print "#include \"fortran.h\""
    print ""
    for (i = 1; i <= nfn; i++) {
        why = unbound(i)
        if (why != "") {
            printf "/* MPI_%s: no Fortran binding (%s) */\n\n", fname[i], why
            continue
        }
        if (fname[i] in osec) printf "%s\n", osec[fname[i]]
        if (fname[i] in csec) {
            s = csec[fname[i]]
            gsub(/F_NAME/, "mpi_" lower(fname[i]) "_", s); gsub(/C_CALL/, "MPI_" fname[i], s)
            printf "%s\n", s
            s = csec[fname[i]]
            gsub(/F_NAME/, "pmpi_" lower(fname[i]) "_", s); gsub(/C_CALL/, "PMPI_" fname[i], s)
            printf "%s\n", s
        } else {
            cwrap(i, "mpi", "MPI_" fname[i])
            cwrap(i, "pmpi", "PMPI_" fname[i])
        }
    }
}

# ---- mode=f90 ------------------------------------------------------------------
# The Fortran declaration of the parsed parameter (whatever its C wrapper).
function fdecl(    t, n, k) {
    t = P_type; n = P_name
    if (t == "void" && P_stars == 1) {
        if (n == "attribute_val" || n == "baseptr" || n == "extra_state")
            return "integer(kind=MPI_ADDRESS_KIND) :: " n
        return "!GCC$ ATTRIBUTES NO_ARG_CHECK :: " n "\n    integer, dimension(*) :: " n
    }
    if (t == "char") {
        if (P_stars == 2 || (P_stars == 1 && P_arr != "")) return "character(len=*), dimension(*) :: " n
        return "character(len=*) :: " n
    }
    if (t == "MPI_Status") {
        if (P_arr != "") return "integer, dimension(MPI_STATUS_SIZE,*) :: " n
        return "integer, dimension(MPI_STATUS_SIZE) :: " n
    }
    if (t ~ /_function$/) return "external :: " n
    k = "integer"
    if (t in akind) k = "integer(kind=" akind[t] ")"
    if (t == "int" && ((P_stars == 0 && P_arr == "" && (n in lvalue)) || \
                       (P_stars == 1 && (n in lout)) || (P_arr != "" && (n in larray))))
        k = "logical"
    if (P_arr == "[][3]") return k ", dimension(3,*) :: " n
    if (P_arr != "") return k ", dimension(*) :: " n
    return k " :: " n
}

# "subroutine NAME(a, b, ...)" folded into lines of free form.
function header(kw, name, args,    s, out, n, a, j) {
    out = "  " kw " " name "("
    n = split(args, a, ",")
    for (j = 1; j <= n; j++) {
        s = a[j] (j < n ? ", " : ")")
        if (length(out) + length(s) > 100) { print out "&"; out = "      " }
        out = out s
    }
    print out
}

function finterface(i,    np, p, j, args, decls, n) {
    n = fname[i]
    if (n in fsec) { printf "%s", fsec[n]; return }
    np = fparams[i] == "void" ? 0 : split(fparams[i], p, ",")
    args = ""; decls = ""
    for (j = 1; j <= np; j++) {
        parse(p[j])
        args = args P_name ","
        decls = decls "    " fdecl() "\n"
    }
    header("subroutine", "MPI_" n, args "ierror")
    printf "    import\n    implicit none\n%s    integer :: ierror\n  end subroutine MPI_%s\n", decls, n
}

function emit_f90(    i) {
    print "! mpi.f90 - Bolt's mpi module, generated by mpi/fortran/genbind.awk from"
    print "! mpi/mpi_functions.h and mpi/fortran/special.in: do not edit."
    print "module mpi"
    print "  implicit none"
    print "  include 'mpif-consts.h'"
    print "  external :: MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, MPI_COMM_DUP_FN"
    print "  external :: MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, MPI_TYPE_DUP_FN"
    print "  external :: MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, MPI_WIN_DUP_FN"
    print "  external :: MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, MPI_DUP_FN, MPI_CONVERSION_FN_NULL"
    print "  interface"
    printf "%s", fsec["always"]
    for (i = 1; i <= nfn; i++)
        if (unbound(i) == "") finterface(i)
    print "  end interface"
    printf "%s", fsec["generic"]
    print "end module mpi"
}

END {
    if (nfn == 0) { print "genbind.awk: no BOLT_MPI_FN lines in the second file" > "/dev/stderr"; exit 1 }
    if (mode == "c") emit_c()
    else if (mode == "f90") emit_f90()
    else if (mode == "missing") {
        for (i = 1; i <= nfn; i++) {
            why = unbound(i)
            if (why != "" && why != "C only") printf "MPI_%s: %s\n", fname[i], why
        }
    } else { print "genbind.awk: mode must be c, f90 or missing" > "/dev/stderr"; exit 2 }
}
